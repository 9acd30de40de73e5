"""Small helpers shared by the static-linter tests: write a project, run the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_project(root: Path, files: dict[str, str], config: str = "") -> Path:
    (root / "pyproject.toml").write_text("[tool.ftlint]\n" + textwrap.dedent(config))
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def run_ftlint(*args: str, cwd: Path, env: dict | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """The real command line, as a user runs it (python -m ftlint)."""
    full_env = {**os.environ, "FTLINT_NO_CACHE": "1", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "ftlint", *args], cwd=cwd, env=full_env, capture_output=True, text=True, timeout=timeout
    )


def findings_json(*args: str, cwd: Path) -> tuple[int, list[dict]]:
    proc = run_ftlint("check", "--format", "json", *args, cwd=cwd)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout or "[]")


def codes_at(findings: list[dict]) -> list[tuple[str, int, str]]:
    return sorted((f["path"], f["line"], f["code"]) for f in findings)


def outlines_made_here(monkeypatch) -> list[str]:
    """The texts this process outlines from now on (outline.outline_ops calls); those a
    forked child outlines are not seen, which is what tests of the forked scan check."""
    import ftlint.outline as outline

    parent = os.getpid()
    made: list[str] = []
    real = outline.outline_ops

    def recording(text):
        if os.getpid() == parent:
            made.append(text)
        return real(text)

    monkeypatch.setattr(outline, "outline_ops", recording)
    return made
