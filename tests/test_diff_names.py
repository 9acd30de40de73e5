"""File names in `--diff` headers and fix messages are escaped as every text output escapes
them (ftlint.report.escape_path): ESC, BEL or a newline in a name cannot send terminal escapes
or fake a line, and a latin-1 name prints as readable `\\xNN` text (issue 23)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.helpers import SENTINEL_DROPS_FRAME, check_stdin, run_ftlint, write_file

#: (name on disk, as bytes; as the diff headers and messages show it)
HOSTILE = [
    (b"a\x1b[31mred\x07.py", "a\\x1b[31mred\\x07.py"),
    (b"x\nsentinel.py:1:1: FT999 fake.py", "x\\nsentinel.py:1:1: FT999 fake.py"),
    (b"caf\xe9.py", "caf\\xe9.py"),
]


def project(tmp_path: Path) -> bytes:
    write_file(tmp_path, "pyproject.toml", "[tool.ftlint]\n")
    return write_file(tmp_path, "sentinel.py", SENTINEL_DROPS_FRAME).read_bytes()


def test_diff_headers_escape_hostile_names(tmp_path: Path):
    text = project(tmp_path)
    os.remove(tmp_path / "sentinel.py")
    for raw, _ in HOSTILE:
        (tmp_path / os.fsdecode(raw)).write_bytes(text)
    run = run_ftlint("check", "--diff", ".", cwd=tmp_path, binary=True)
    assert run.returncode == 1, run.stderr
    out = run.stdout.decode("utf-8")  # strict: no raw latin-1 byte
    assert "\x1b" not in out and "\x07" not in out
    headers = [line for line in out.splitlines() if line.startswith(("--- ", "+++ "))]
    assert headers == [
        f"{sign} {side}/{shown}" for _, shown in sorted(HOSTILE) for sign, side in (("---", "a"), ("+++", "b"))
    ]
    assert not any(line.startswith("sentinel.py") for line in out.splitlines())
    assert out.count("-            self.engine.scheduler._preempt_request(request, 0.0, drop_stale_output=True)") == 3
    for raw, _ in HOSTILE:  # --diff changes nothing
        assert (tmp_path / os.fsdecode(raw)).read_bytes() == text


def test_stdin_diff_header_escapes_the_stdin_filename(tmp_path: Path):
    text = project(tmp_path)
    run = check_stdin(text, "--diff", name="a\x1b]0;title\x07.py", cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    assert run.stdout.decode().splitlines()[:2] == ["--- a/a\\x1b]0;title\\x07.py", "+++ b/a\\x1b]0;title\\x07.py"]


def test_fix_messages_escape_the_name(tmp_path: Path):
    text = project(tmp_path)
    name = b"x\x1b[2J\nlinked.py"
    target = tmp_path / os.fsdecode(name)
    target.write_bytes(text)
    os.link(target, tmp_path / "other.py")  # a second hard link: the fix is refused, naming the file
    run = run_ftlint("check", "--fix", "--no-cache", os.fsdecode(name), cwd=tmp_path)
    assert run.returncode != 0
    assert "ftlint: x\\x1b[2J\\nlinked.py: not written: it has 2 hard links" in run.stderr
    assert "\x1b" not in run.stderr and target.read_bytes() == text
