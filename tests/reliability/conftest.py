"""Shared helpers for the reliability tests: run the real CLI in-process and split its output."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ftlint.cli import main

FINDING_LINE = re.compile(r"^(?P<path>[^\s:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>FT\d{3}) (?P<message>.*)$")


class Run:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err

    @property
    def findings(self) -> list[tuple[str, int, int, str, str]]:
        found = []
        for line in self.out.splitlines():
            m = FINDING_LINE.match(line)
            if m:
                found.append((m["path"], int(m["line"]), int(m["col"]), m["code"], m["message"]))
        return found


@pytest.fixture
def ftlint(monkeypatch, capsys):
    """ftlint(cwd, *args) -> Run: `ftlint check --no-cache *args` in cwd, in this process."""

    def run(cwd: Path, *args: str, command: str = "check") -> Run:
        monkeypatch.chdir(cwd)
        capsys.readouterr()
        extra = ["--no-cache"] if command == "check" else []
        code = main([command, *extra, *args])
        out, err = capsys.readouterr()
        assert "Traceback" not in err, err
        assert "Traceback" not in out, out
        return Run(code, out, err)

    return run
