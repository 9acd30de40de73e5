"""`ftlint check -` (with and without --stdin-filename), as editors and formatters pipe
it: the real command line as a subprocess, stdin as bytes."""

from __future__ import annotations

import json
import subprocess

from tests.helpers import (
    HELPER_FREES,
    SENTINEL_CALLS_HELPER,
    SENTINEL_DROPS_FRAME,
    SENTINEL_FIXED,
    check_stdin,
    run_ftlint,
    write_project,
)


def report(proc: subprocess.CompletedProcess, stream: str = "stdout") -> list[tuple[str, int, str]]:
    text = getattr(proc, stream).decode()
    assert "Traceback" not in proc.stderr.decode(), proc.stderr.decode()
    return [(f["path"], f["line"], f["code"]) for f in json.loads(text or "[]")]


def test_stdin_is_linted_as_the_file_named(tmp_path):
    write_project(tmp_path, {"pkg/__init__.py": ""})
    proc = check_stdin(SENTINEL_DROPS_FRAME, "--format", "json", name="pkg/sentinel.py", cwd=tmp_path)
    assert proc.returncode == 1
    assert report(proc) == [("pkg/sentinel.py", 6, "FT001")]
    assert not (tmp_path / "pkg" / "sentinel.py").exists()  # nothing written


def test_stdin_without_a_name_is_reported_as_dash(tmp_path):
    write_project(tmp_path, {})
    proc = check_stdin(SENTINEL_DROPS_FRAME, cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.decode().startswith("-:6:13: FT001 ")


def test_stdin_resolves_helpers_on_disk_relative_to_the_name(tmp_path):
    """The handler comes from stdin, its helper from disk (pkg/helpers.py beside PATH)."""
    write_project(tmp_path, {"pkg/__init__.py": "", "pkg/helpers.py": HELPER_FREES})
    proc = check_stdin(SENTINEL_CALLS_HELPER, "--format", "json", name="pkg/sentinel.py", cwd=tmp_path)
    assert report(proc) == [("pkg/sentinel.py", 6, "FT007")]


def test_stdin_text_replaces_the_file_on_disk(tmp_path):
    """A fixed buffer piped in is what counts, not the stale file with the same name."""
    write_project(tmp_path, {"pkg/__init__.py": "", "pkg/sentinel.py": SENTINEL_DROPS_FRAME})
    proc = check_stdin(SENTINEL_FIXED, name="pkg/sentinel.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()


def test_per_file_ignores_and_force_exclude_follow_the_name(tmp_path):
    write_project(
        tmp_path,
        {"pkg/__init__.py": ""},
        config="""
        extend-exclude = ["vendored/**"]
        [tool.ftlint.per-file-ignores]
        "pkg/legacy.py" = ["FT001"]
        """,
    )
    ignored = check_stdin(SENTINEL_DROPS_FRAME, name="pkg/legacy.py", cwd=tmp_path)
    assert ignored.returncode == 0 and ignored.stdout.decode().strip() == "All checks passed!"
    excluded = check_stdin(SENTINEL_DROPS_FRAME, "--force-exclude", name="vendored/x.py", cwd=tmp_path)
    assert excluded.returncode == 0 and b"FT001" not in excluded.stdout
    not_forced = check_stdin(SENTINEL_DROPS_FRAME, name="vendored/x.py", cwd=tmp_path)
    assert not_forced.returncode == 1 and b"vendored/x.py:6:13: FT001" in not_forced.stdout
    # --fix on an excluded file gives the text back as it came
    passed = check_stdin(SENTINEL_DROPS_FRAME, "--force-exclude", "--fix", name="vendored/x.py", cwd=tmp_path)
    assert passed.returncode == 0 and passed.stdout == SENTINEL_DROPS_FRAME.encode()


def test_fix_writes_the_fixed_text_to_stdout_and_the_report_to_stderr(tmp_path):
    write_project(tmp_path, {"pkg/__init__.py": ""})
    # CRLF line endings and a UTF-8 BOM come back as they went in
    data = b"\xef\xbb\xbf" + SENTINEL_DROPS_FRAME.replace("\n", "\r\n").encode()
    proc = check_stdin(data, "--fix", name="pkg/sentinel.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout == b"\xef\xbb\xbf" + SENTINEL_FIXED.replace("\n", "\r\n").encode()
    assert "fixed 1 finding" in proc.stderr.decode()
    assert not (tmp_path / "pkg" / "sentinel.py").exists()


def test_fix_with_findings_left_exits_1_and_reports_them_on_stderr(tmp_path):
    write_project(tmp_path, {"pkg/__init__.py": "", "pkg/helpers.py": HELPER_FREES})
    proc = check_stdin(SENTINEL_CALLS_HELPER, "--fix", "--format", "json", name="pkg/sentinel.py", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == SENTINEL_CALLS_HELPER.encode()  # nothing to fix: the text unchanged
    assert report(proc, "stderr") == [("pkg/sentinel.py", 6, "FT007")]


def test_diff_on_stdin_names_the_file(tmp_path):
    write_project(tmp_path, {"pkg/__init__.py": ""})
    proc = check_stdin(SENTINEL_DROPS_FRAME, "--diff", name="pkg/sentinel.py", cwd=tmp_path)
    assert proc.returncode == 1
    out = proc.stdout.decode()
    assert out.startswith("--- a/pkg/sentinel.py\n+++ b/pkg/sentinel.py\n")
    (old,) = [line for line in SENTINEL_DROPS_FRAME.splitlines() if "drop_stale_output" in line]
    assert f"\n-{old}\n+{old.replace(', drop_stale_output=True', '')}\n" in out


def test_undecodable_stdin_is_ft000_with_the_name(tmp_path):
    write_project(tmp_path, {})
    proc = check_stdin(b"x = '\xff'\n", "--format", "json", name="bad.py", cwd=tmp_path)
    assert proc.returncode == 1
    assert report(proc) == [("bad.py", 1, "FT000")]


def test_stdin_with_other_paths_is_a_usage_error(tmp_path):
    write_project(tmp_path, {"a.py": "x = 1\n"})
    proc = check_stdin(b"", "a.py", cwd=tmp_path)
    assert proc.returncode == 2 and b"stdin" in proc.stderr and b"Traceback" not in proc.stderr
    proc = run_ftlint("check", "a.py", "--stdin-filename", "b.py", input=b"", cwd=tmp_path)
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr


def test_the_configuration_is_the_nearest_one_above_the_name(tmp_path):
    """Editors pipe from anywhere: a nested project's [tool.ftlint] applies to its files."""
    write_project(tmp_path, {"pkg/__init__.py": ""})
    (tmp_path / "sub").mkdir()
    write_project(tmp_path / "sub", {}, config='ignore = ["FT001"]\n')
    nested = check_stdin(SENTINEL_DROPS_FRAME, name="sub/x.py", cwd=tmp_path)
    assert nested.returncode == 0, nested.stdout.decode()
    top = check_stdin(SENTINEL_DROPS_FRAME, name="pkg/x.py", cwd=tmp_path)
    assert top.returncode == 1 and b"pkg/x.py:6:13: FT001" in top.stdout
    # --config overrides the search
    chosen = check_stdin(SENTINEL_DROPS_FRAME, "--config", "pyproject.toml", name="sub/x.py", cwd=tmp_path)
    assert chosen.returncode == 1 and b"sub/x.py:6:13: FT001" in chosen.stdout


def test_stdin_past_the_cap_is_a_clear_error(tmp_path):
    """An endless stdin (/dev/zero) stops at 64 MiB with exit 2 and a message, no traceback."""
    write_project(tmp_path, {})
    with open("/dev/zero", "rb") as zero:
        proc = run_ftlint("check", "--stdin-filename", "m.py", cwd=tmp_path, stdin=zero, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "stdin: more than 64 MiB" in proc.stderr and "Traceback" not in proc.stderr
