"""The command line as users meet it: exit codes, formats, selection, suppressions, config, docs."""

import json
import re

from ftlint.lint.registry import known_codes
from tests.helpers import ROOT, codes_at, findings_json, run_ftlint, run_python, write_project

BAD = """
class Sentinel:
    def on_fault(self, exc):
        self.scheduler.reset_prefix_cache()
        for req in self.scheduler.running:
            req.async_tokens_to_discard = 1
"""


def test_exit_codes_and_text_format(tmp_path):
    write_project(tmp_path, {"bad.py": BAD, "good.py": "def on_fault(self, exc):\n    return None\n"})
    proc = run_ftlint("check", "bad.py", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[:2] == [
        "bad.py:3:9: FT005 Fault path calls `reset_prefix_cache()`: it drops the next output frame and empties the whole prefix cache instead of the dirty tail",
        "bad.py:5:13: FT001 [*] Fault path discards the next output frame; the failed step's frame never arrives, so the first good frame after resume is dropped",
    ]
    assert run_ftlint("check", "good.py", cwd=tmp_path).returncode == 0
    assert run_ftlint("check", "--exit-zero", "bad.py", cwd=tmp_path).returncode == 0


def test_json_has_the_documented_fields(tmp_path):
    write_project(tmp_path, {"bad.py": BAD})
    code, findings = findings_json("bad.py", cwd=tmp_path)
    assert code == 1
    first = findings[0]
    for key in ("path", "line", "column", "end_line", "end_column", "code", "name", "message", "severity"):
        assert key in first
    assert (first["line"], first["column"], first["end_column"], first["severity"]) == (3, 9, 44, "error")


def test_select_and_ignore_by_code_and_prefix(tmp_path):
    write_project(tmp_path, {"bad.py": BAD})
    assert [f["code"] for f in findings_json("--select", "FT005", "bad.py", cwd=tmp_path)[1]] == ["FT005"]
    assert [f["code"] for f in findings_json("--ignore", "FT00", "bad.py", cwd=tmp_path)[1]] == []
    assert [f["code"] for f in findings_json("--select", "FT", "--ignore", "FT005", "bad.py", cwd=tmp_path)[1]] == [
        "FT001"
    ]
    proc = run_ftlint("check", "--select", "FT999", "bad.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert "--select: unknown rule code or prefix 'FT999'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_noqa_on_line_statement_start_and_file(tmp_path):
    write_project(
        tmp_path,
        {
            "a.py": """
                class Sentinel:
                    def on_fault(self, exc):
                        self.scheduler.reset_prefix_cache()  # noqa: FT005
                        self.scheduler.reset_prefix_cache(  # noqa: FT001, FT004, FT005
                            reset_running_requests=True,
                        )
                        self.scheduler.reset_prefix_cache()  # noqa
                        self.scheduler.reset_prefix_cache()  # noqa: FT001, FT004
            """,
            "b.py": """
                # ftlint: noqa: FT005
                def on_fault(engine, exc):
                    engine.scheduler.reset_prefix_cache()
            """,
        },
    )
    _code, findings = findings_json("a.py", "b.py", cwd=tmp_path)
    assert codes_at(findings) == [("a.py", 8, "FT005")]


def test_config_per_file_ignores_and_exclude(tmp_path):
    write_project(
        tmp_path,
        {"pkg/a.py": BAD, "pkg/b.py": BAD, "vendor/c.py": BAD},
        config='exclude = ["vendor"]\n[tool.ftlint.per-file-ignores]\n"pkg/b.py" = ["FT001"]\n',
    )
    _code, findings = findings_json(cwd=tmp_path)
    assert codes_at(findings) == [
        ("pkg/a.py", 3, "FT005"),
        ("pkg/a.py", 5, "FT001"),
        ("pkg/b.py", 3, "FT005"),
    ]
    # an explicitly passed excluded file is linted unless --force-exclude (pre-commit passes files)
    assert findings_json("vendor/c.py", cwd=tmp_path)[0] == 1
    assert findings_json("--force-exclude", "vendor/c.py", cwd=tmp_path) == (0, [])


def test_bad_config_names_file_and_key(tmp_path):
    write_project(tmp_path, {"a.py": BAD}, config='selct = ["FT"]\n')
    proc = run_ftlint("check", "a.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert "pyproject.toml" in proc.stderr and "selct" in proc.stderr and "select" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_fix_rewrites_keeps_comments_and_relints_clean(tmp_path):
    write_project(
        tmp_path,
        {
            "s.py": """
                class Sentinel:
                    def on_fault(self, exc):
                        self._evict_tails()  # tail only
                        for req in list(self.scheduler.running):
                            # back to waiting; resume after recovery
                            self.scheduler._preempt_request(req, 0.0, drop_stale_output=True)
                        for r in self.scheduler.waiting:
                            self.scheduler.preempt_request(r, 1.0)  # second queue

                    def _evict_tails(self):
                        self.kv.evict_blocks(set())
            """
        },
    )
    diff = run_ftlint("check", "--diff", "s.py", cwd=tmp_path)
    assert diff.returncode == 1 and "+            req.num_in_flight_tokens = 0" in diff.stdout
    assert "drop_stale_output" in (tmp_path / "s.py").read_text(), "--diff must not write"
    fixed = run_ftlint("check", "--fix", "s.py", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    text = (tmp_path / "s.py").read_text()
    assert "# back to waiting; resume after recovery" in text and "# second queue" in text
    assert "drop_stale_output" not in text
    assert text.count("num_in_flight_tokens = 0") == 2 and text.count("num_stale_output_tokens = 0") == 2
    compile(text, "s.py", "exec")
    assert findings_json("s.py", cwd=tmp_path) == (0, [])


def test_python_dash_m_and_version(tmp_path):
    proc = run_ftlint("--version", cwd=tmp_path)
    assert proc.returncode == 0 and re.fullmatch(r"ftlint \d+\.\d+\.\d+\n", proc.stdout)


def test_rule_docs_pages(tmp_path):
    page = run_ftlint("rule", "FT007", cwd=tmp_path)
    assert page.returncode == 0
    for heading in (
        "# missing-dirty-eviction (FT007)",
        "## What it does",
        "## Why is this bad?",
        "## Example",
        "Use instead:",
    ):
        assert heading in page.stdout
    listing = run_ftlint("rule", "--all", cwd=tmp_path)
    assert listing.returncode == 0
    assert [line.split()[0] for line in listing.stdout.splitlines()] == known_codes()
    unknown = run_ftlint("rule", "FT999", cwd=tmp_path)
    assert unknown.returncode == 2 and "unknown rule code" in unknown.stderr


def test_the_bundled_example_shows_real_findings(tmp_path):
    proc = run_ftlint("check", "--format", "json", str(ROOT / "ftlint/examples/bad_fault_handler.py"), cwd=tmp_path)
    codes = {f["code"] for f in json.loads(proc.stdout)}
    assert proc.returncode == 1
    assert {"FT001", "FT006", "FT007"} <= codes


def test_rule_codes_read_without_import_match_the_rules():
    from ftlint.lint.registry import all_rules, rule_codes

    assert rule_codes() == tuple(all_rules())


def test_cached_check_does_not_import_libcst(tmp_path):
    """A warm run must not pay for LibCST (~0.5 s): everything comes from the cache."""
    write_project(tmp_path, {"a.py": BAD})
    env = {"FTLINT_NO_CACHE": ""}
    first = run_ftlint("check", "a.py", cwd=tmp_path, env=env)
    assert first.returncode == 1
    probe = "import sys; from ftlint.cli import main; code = main(['check', 'a.py']); print('LIBCST', 'libcst' in sys.modules); sys.exit(code)"
    proc = run_python(probe, cwd=tmp_path, env=env)
    assert proc.returncode == 1, proc.stderr
    assert "LIBCST False" in proc.stdout
    assert proc.stdout.splitlines()[0] == first.stdout.splitlines()[0]


def test_the_command_leaves_quickly_with_all_its_output(tmp_path):
    """`check`, `rule` and `review` end with os._exit (no interpreter teardown): output
    on a pipe and in --output-file is complete, exit codes are kept; `verify` exits
    normally (vLLM's exit handlers must run)."""
    handlers = "".join(
        f"class S{i}:\n    def on_fault(self, exc):\n        self.scheduler.reset_prefix_cache()\n\n"
        for i in range(400)
    )
    write_project(tmp_path, {"many.py": handlers})
    proc = run_ftlint("check", "--format", "json", "many.py", cwd=tmp_path)
    assert proc.returncode == 1 and len(json.loads(proc.stdout)) == 400  # ~200 KB through the pipe
    proc = run_ftlint("check", "--format", "json", "--output-file", "out.json", "many.py", cwd=tmp_path)
    assert proc.returncode == 1 and len(json.loads((tmp_path / "out.json").read_text())) == 400
    listing = run_ftlint("rule", "--all", cwd=tmp_path)
    assert listing.returncode == 0 and listing.stdout.splitlines()[-1].split()[0] == known_codes()[-1]
    # no interpreter teardown: an atexit handler never runs after `check` or `rule`
    for command in (["check", "many.py"], ["rule", "FT001"]):
        probe = (
            "import atexit, sys; atexit.register(print, 'TEARDOWN'); "
            f"sys.argv = ['ftlint', *{command!r}]; from ftlint.cli import run; run()"
        )
        proc = run_python(probe, cwd=tmp_path)
        assert proc.returncode == (1 if command[0] == "check" else 0), proc.stderr
        assert proc.stdout and "TEARDOWN" not in proc.stdout, command
