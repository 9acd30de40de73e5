"""ruff's flags on `check` (issue 23 item 1): --exit-non-zero-on-fix, -q/--quiet, -s/--silent."""

from tests.helpers import run_ftlint, write_project

FIXABLE = """
class Sentinel:
    def on_fault(self, exc):
        self._evict_tails()  # tail only
        for req in list(self.scheduler.running):
            self.scheduler._preempt_request(req, 0.0, drop_stale_output=True)
        for r in self.scheduler.waiting:
            self.scheduler.preempt_request(r, 1.0)

    def _evict_tails(self):
        self.kv.evict_blocks(set())
"""
HANDLER = "class S:\n    def on_fault(self, exc):\n        self.scheduler.reset_prefix_cache()\n"


def test_exit_non_zero_on_fix_exits_1_when_something_was_fixed(tmp_path):
    write_project(tmp_path, {"s.py": FIXABLE})
    fixed = run_ftlint("check", "--fix", "--exit-non-zero-on-fix", "s.py", cwd=tmp_path)
    assert fixed.returncode == 1, fixed.stdout + fixed.stderr
    assert "drop_stale_output" not in (tmp_path / "s.py").read_text()
    again = run_ftlint("check", "--fix", "--exit-non-zero-on-fix", "s.py", cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr  # nothing left to fix


def test_quiet_drops_the_fixed_message_and_silent_prints_nothing(tmp_path):
    write_project(tmp_path, {"s.py": FIXABLE, "t.py": FIXABLE, "m.py": HANDLER})
    plain = run_ftlint("check", "--fix", "t.py", cwd=tmp_path)
    assert "fixed" in plain.stderr, plain.stderr
    quiet = run_ftlint("check", "-q", "--fix", "s.py", cwd=tmp_path)
    assert quiet.returncode == 0 and "fixed" not in quiet.stderr, quiet.stderr
    silent = run_ftlint("check", "-s", "m.py", cwd=tmp_path)
    assert silent.returncode == 1 and silent.stdout == "" and silent.stderr == ""
    loud = run_ftlint("check", "--silent", "m.py", cwd=tmp_path)
    assert loud.returncode == 1 and loud.stdout == ""


def test_clean_removes_the_cache_ftlint_wrote_and_nothing_else(tmp_path):
    write_project(tmp_path, {"m.py": HANDLER})
    run_ftlint("check", "m.py", cwd=tmp_path, env={"FTLINT_NO_CACHE": None})
    cache = tmp_path / ".ftlint_cache"
    assert (cache / "CACHEDIR.TAG").is_file()
    proc = run_ftlint("clean", cwd=tmp_path)
    assert proc.returncode == 0 and not cache.exists(), proc.stderr
    mine = tmp_path / "mine"
    (mine / "keep.txt").parent.mkdir()
    (mine / "keep.txt").write_text("data")
    proc = run_ftlint("clean", "--cache-dir", "mine", cwd=tmp_path)
    assert proc.returncode == 2 and "not a cache ftlint wrote" in proc.stderr
    assert (mine / "keep.txt").read_text() == "data"


def test_show_fixes_names_files_escaped(tmp_path):
    """A file name with ESC, BEL and a latin-1 byte: --show-fixes prints it escaped."""
    import os

    write_project(tmp_path, {})
    name = b"a\x1bb\x07c\xe9.py"
    with open(os.path.join(os.fsencode(tmp_path), name), "w") as fh:
        fh.write(FIXABLE)
    proc = run_ftlint("check", "--fix", "--show-fixes", ".", cwd=tmp_path, binary=True)
    err = proc.stderr.decode("utf-8", "replace")
    assert "a\\x1bb\\x07c\\xe9.py" in err, err
    assert "\x1b" not in err and "\x07" not in err and "udce9" not in err


def test_exclude_and_extend_exclude_on_the_command_line(tmp_path):
    write_project(tmp_path, {"a.py": HANDLER, "b.py": "x = 1\n"})
    assert run_ftlint("check", ".", cwd=tmp_path).returncode == 1
    extend = run_ftlint("check", "--extend-exclude", "a.py", ".", cwd=tmp_path)
    assert extend.returncode == 0, extend.stdout + extend.stderr
    replaced = run_ftlint("check", "--exclude", "b.py,a.py", ".", cwd=tmp_path)
    assert replaced.returncode == 0, replaced.stdout + replaced.stderr
    other = run_ftlint("check", "--exclude", "b.py", ".", cwd=tmp_path)
    assert other.returncode == 1, other.stdout + other.stderr


def test_show_files_lists_what_would_be_linted(tmp_path):
    write_project(tmp_path, {"a.py": HANDLER, "sub/b.py": "x = 1\n", "notes.txt": "no"}, 'extend-exclude = ["sub"]\n')
    proc = run_ftlint("check", "--show-files", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [str(tmp_path / "a.py")]


def test_fix_only_fixes_and_reports_nothing_left(tmp_path):
    write_project(tmp_path, {"s.py": FIXABLE, "m.py": HANDLER})
    proc = run_ftlint("check", "--fix-only", ".", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout + proc.stderr
    assert "drop_stale_output" not in (tmp_path / "s.py").read_text()
    assert run_ftlint("check", "m.py", cwd=tmp_path).returncode == 1  # its finding is left, unreported
