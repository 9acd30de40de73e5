"""Fixtures for the reliability tests: the real CLI in this process (tests/helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import CheckRun, run_in_process


@pytest.fixture
def ftlint(monkeypatch, capsys):
    """ftlint(cwd, *args) -> CheckRun: `ftlint check --no-cache *args` in cwd, in this process."""

    def run(cwd: Path, *args: str, command: str = "check") -> CheckRun:
        return run_in_process(monkeypatch, capsys, cwd, *args, command=command)

    return run
