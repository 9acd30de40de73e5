"""Paths are data: a non-UTF-8 file name (bytes Python decodes with surrogateescape) or a
name with a newline is escaped in every format, never a crash or a broken line; the report
is built before ``--output-file`` is touched and replaces it atomically."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ftlint.report import FORMATS, render
from tests.helpers import ft001, ft002, make_ctx, run_ftlint
from tests.report.official_schemas import review_request_validator, reviewdog_validator, sarif_schema_validator

# b"caf\xe9" is Latin-1, not UTF-8: os.fsdecode gives "caf\udce9".
RAW_NAME = b"caf\xe9\nnew.py"
NAME = os.fsdecode(RAW_NAME)

HANDLER = b"""\
class Sentinel:
    def on_fault(self, exc):
        self.engine.scheduler.reset_prefix_cache()
"""


def findings_named(name: str):
    return [ft002(path=name), ft001(path=name)]


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_format_escapes_a_non_utf8_name(fmt):
    out = render(fmt, findings_named(NAME), make_ctx(root=None, cwd=None, diff_lines=None))
    out.encode("utf-8")  # strict: no lone surrogate left
    assert "caf" in out
    if fmt == "sarif":
        assert "caf%E9%0Anew.py" in out  # the URI keeps the exact bytes
    else:
        assert "caf\\xe9" in out or "caf\\\\xe9" in out  # \xNN (JSON doubles the backslash)


def test_structured_formats_stay_valid():
    ctx = make_ctx(root=None, cwd=None, diff_lines=None)
    sarif_schema_validator().validate(json.loads(render("sarif", findings_named(NAME), ctx)))
    reviewdog_validator("DiagnosticResult").validate(json.loads(render("rdjson", findings_named(NAME), ctx)))
    review = json.loads(render("github-review", findings_named(NAME), ctx))
    review_request_validator().validate(review)
    assert {c["path"] for c in review["comments"]} == {"caf\\xe9\nnew.py"}
    (data,) = json.loads(render("json", [ft002(path=NAME)], ctx))
    assert data["path"] == "caf\\xe9\nnew.py"


def test_text_prints_one_line_per_finding_whatever_the_name():
    out = render("text", [ft002(path="evil\nname.py"), ft002(path="\x1b[31mred.py")], make_ctx())
    lines = out.splitlines()
    assert lines[:2] == [
        "\\x1b[31mred.py:40:9: FT002 evict_blocks() in except-handler without holding the block-pool lock",
        "evil\\nname.py:40:9: FT002 evict_blocks() in except-handler without holding the block-pool lock",
    ]
    assert lines[2] == "Found 2 errors."


def test_github_and_markdown_keep_one_line():
    out = render("github", [ft002(path="evil\nname.py")], make_ctx(root=None, cwd=None))
    assert out.count("\n") == 1
    md = render("markdown", [ft002(path="evil\nname.py")], make_ctx(root=None, cwd=None))
    assert "`evil\\nname.py:40`" in md


@pytest.fixture
def odd_project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n", encoding="utf-8")
    with open(os.path.join(os.fsencode(tmp_path), RAW_NAME), "wb") as fh:
        fh.write(HANDLER)
    return tmp_path


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_cli_output_file_with_a_non_utf8_name(odd_project: Path, fmt: str):
    report = odd_project / "report.out"
    proc = run_ftlint(
        "check", "--no-cache", "--format", fmt, "--output-file", str(report), ".", cwd=odd_project, binary=True
    )
    assert proc.returncode == 1, proc.stderr.decode(errors="replace")
    assert b"Traceback" not in proc.stderr
    text = report.read_bytes().decode("utf-8")  # strict
    assert "FT005" in text


def test_cli_stdout_text_with_a_newline_in_the_name(odd_project: Path):
    proc = run_ftlint("check", "--no-cache", ".", cwd=odd_project, binary=True)
    assert proc.returncode == 1
    lines = proc.stdout.decode("utf-8").splitlines()
    assert lines[0].startswith("caf\\xe9\\nnew.py:3:9: FT005 ")
    assert lines[1] == "Found 1 error."


def test_failed_build_keeps_the_old_report(odd_project: Path, monkeypatch):
    """A run that fails before the report is complete leaves the previous report as it was."""
    report = odd_project / "report.json"
    report.write_text("old report\n", encoding="utf-8")
    proc = run_ftlint("check", "--config", "missing.toml", "-o", str(report), ".", cwd=odd_project, binary=True)
    assert proc.returncode == 2 and report.read_text(encoding="utf-8") == "old report\n"

    import ftlint.report
    from ftlint import cli

    def broken(*_args, **_kwargs):
        raise RuntimeError("renderer failed")

    monkeypatch.chdir(odd_project)
    monkeypatch.setattr(ftlint.report, "render", broken)
    assert cli.main(["check", "--no-cache", "-o", str(report), "."]) == 2  # "ftlint: internal error: ..."
    assert report.read_text(encoding="utf-8") == "old report\n"
    assert sorted(p.name for p in odd_project.iterdir() if p.name.startswith(".ftlint-report")) == []


def test_output_file_is_replaced_atomically_keeping_its_mode(odd_project: Path):
    report = odd_project / "report.txt"
    report.write_text("old\n", encoding="utf-8")
    os.chmod(report, 0o640)
    before = os.stat(report).st_ino
    proc = run_ftlint("check", "--no-cache", "-o", str(report), ".", cwd=odd_project, binary=True)
    assert proc.returncode == 1
    assert "FT005" in report.read_text(encoding="utf-8")
    assert os.stat(report).st_ino != before  # a new file renamed over the old one
    assert os.stat(report).st_mode & 0o777 == 0o640
    assert not [p for p in odd_project.iterdir() if p.name.startswith(".ftlint-report")]


def test_output_file_in_a_missing_directory_is_a_clear_error(odd_project: Path):
    proc = run_ftlint("check", "--no-cache", "-o", "no/such/dir/r.txt", ".", cwd=odd_project, binary=True)
    assert proc.returncode == 2
    assert proc.stderr.decode().strip().endswith("No such file or directory")
    assert b"--output-file no/such/dir/r.txt" in proc.stderr and b"Traceback" not in proc.stderr
