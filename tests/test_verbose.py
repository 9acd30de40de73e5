"""`ftlint check --verbose` says what the analysis could not follow, instead of guessing."""

from __future__ import annotations

from tests.helpers import run_ftlint, write_project

HANDLER = """
import mystery


class Sentinel:
    def on_fault(self, exc):
        sched = self.engine.scheduler
        mystery.cleanup(sched)
        self._walk(sched, 3)
        sched.finish_requests(None, "aborted")

    def _walk(self, sched, n):
        if n:
            self._walk(sched, n - 1)
"""


def test_verbose_names_what_the_analysis_could_not_follow(tmp_path):
    write_project(tmp_path, {"sentinel.py": HANDLER})
    quiet = run_ftlint("check", "sentinel.py", cwd=tmp_path)
    loud = run_ftlint("check", "--verbose", "sentinel.py", cwd=tmp_path)
    assert quiet.returncode == loud.returncode == 1
    assert quiet.stdout == loud.stdout  # the same findings
    assert "note:" not in quiet.stderr
    notes = [line for line in loud.stderr.splitlines() if line.startswith("ftlint: note: ")]
    assert "ftlint: note: Sentinel.on_fault: `mystery.cleanup()` is not resolved; taken as no effect" in notes
    assert any("`Sentinel._walk` is recursive" in line for line in notes)


def test_verbose_reads_no_cached_result(tmp_path):
    """A cached run has no analysis to report on: --verbose analyses again."""
    write_project(tmp_path, {"sentinel.py": HANDLER})
    env = {"FTLINT_NO_CACHE": "", "XDG_CACHE_HOME": str(tmp_path / "user-cache")}
    assert run_ftlint("check", "sentinel.py", cwd=tmp_path, env=env).returncode == 1
    again = run_ftlint("check", "--verbose", "sentinel.py", cwd=tmp_path, env=env)
    assert "is not resolved" in again.stderr
