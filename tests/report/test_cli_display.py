"""CLI display flags: --statistics (ruff's meaning), colour on a terminal (NO_COLOR,
FORCE_COLOR), --show-settings, --scan-stats."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import tomllib
from pathlib import Path

import pytest

from ftlint.lint.registry import known_codes, opt_in_codes
from tests.helpers import EXAMPLE, FTLINT, ftlint_env, run_ftlint

ANSI = "\x1b["
#: --show-settings' selection for the project below (config ignores FT003; opt-in rules
#: such as FT100 are off by default), from the registry.
SELECTED_BUT_FT003 = "# Selected rules: " + ", ".join(
    c for c in known_codes() if c != "FT003" and c not in opt_in_codes()
)


def run_on_tty(*args: str, cwd: Path, env: dict) -> str:
    """stdout of ftlint when it writes to a terminal (a pseudo-terminal here)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [*FTLINT, *args], cwd=cwd, stdout=slave, stderr=subprocess.DEVNULL, env=ftlint_env({**env, "TERM": "xterm"})
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(master)
    return b"".join(chunks).decode("utf-8")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.ftlint]\nignore = ["FT003"]\n', encoding="utf-8")
    (tmp_path / "handler.py").write_bytes(EXAMPLE.read_bytes())
    return tmp_path


def test_statistics_counts_per_code(project: Path):
    proc = run_ftlint("check", "--no-cache", "--statistics", "handler.py", cwd=project)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines() == [
        "2\tFT001\t[*] stale-output-discard",
        "2\tFT002\t[ ] inline-eviction",
        "2\tFT007\t[ ] missing-dirty-eviction",
        "1\tFT004\t[ ] broad-eviction",
        "1\tFT006\t[ ] eviction-after-free",
        "Found 8 errors.",
        "[*] 2 fixable with `ftlint check --fix`.",
    ]
    data = json.loads(
        run_ftlint("check", "--no-cache", "--statistics", "--format", "json", "handler.py", cwd=project).stdout
    )
    assert data[0] == {"code": "FT001", "name": "stale-output-discard", "count": 2, "fixable": True, "fixable_count": 2}
    assert [(d["code"], d["count"], d["fixable"]) for d in data[1:]] == [
        ("FT002", 2, False),
        ("FT007", 2, False),
        ("FT004", 1, False),
        ("FT006", 1, False),
    ]


def test_statistics_clean_and_unsupported_format(project: Path):
    (project / "clean.py").write_text("x = 1\n", encoding="utf-8")
    proc = run_ftlint("check", "--no-cache", "--statistics", "clean.py", cwd=project)
    assert (proc.returncode, proc.stdout) == (0, "All checks passed!\n")
    proc = run_ftlint("check", "--statistics", "--format", "sarif", "handler.py", cwd=project)
    assert proc.returncode == 2 and "--statistics prints --format text or json, not sarif" in proc.stderr


def test_scan_stats_go_to_stderr(project: Path):
    proc = run_ftlint("check", "--no-cache", "--scan-stats", "--format", "json", "handler.py", cwd=project)
    assert "ftlint: 1 files linted, 1 parsed" in proc.stderr
    assert len(json.loads(proc.stdout)) == 8  # the report itself is untouched on stdout


def test_no_colour_when_piped(project: Path):
    assert ANSI not in run_ftlint("check", "--no-cache", "handler.py", cwd=project).stdout


def test_force_color_colours_a_pipe_and_no_color_wins(project: Path):
    forced = run_ftlint("check", "--no-cache", "handler.py", cwd=project, env={"FORCE_COLOR": "1"}).stdout
    assert (
        "\x1b[1mhandler.py\x1b[0m\x1b[36m:\x1b[0m25\x1b[36m:\x1b[0m30\x1b[36m:\x1b[0m \x1b[1m\x1b[31mFT002\x1b[0m"
        in forced
    )
    both = run_ftlint(
        "check", "--no-cache", "handler.py", cwd=project, env={"FORCE_COLOR": "1", "NO_COLOR": "1"}
    ).stdout
    assert ANSI not in both
    # a report written to a file is never coloured
    run_ftlint("check", "--no-cache", "-o", "report.txt", "handler.py", cwd=project, env={"FORCE_COLOR": "1"})
    assert ANSI not in (project / "report.txt").read_text(encoding="utf-8")


def test_colour_on_a_terminal_unless_no_color(project: Path):
    tty = run_on_tty("check", "--no-cache", "handler.py", cwd=project, env={})
    assert "\x1b[1m\x1b[31mFT001\x1b[0m \x1b[36m[*]\x1b[0m" in tty
    plain = run_on_tty("check", "--no-cache", "handler.py", cwd=project, env={"NO_COLOR": "1"})
    assert ANSI not in plain and "FT001 [*]" in plain


def test_show_settings_prints_every_setting_and_exits_0(project: Path):
    proc = run_ftlint("check", "--show-settings", "--extend-select", "FT003", cwd=project)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"# Settings file: {project / 'pyproject.toml'}"
    assert f"# Project root: {project}" in lines
    assert SELECTED_BUT_FT003 in lines  # config ignore wins
    settings = tomllib.loads("\n".join(line for line in lines if not line.startswith("#")))
    from ftlint.core.config import CONFIG_KEYS, DEFAULT_EXCLUDES

    assert set(settings) == set(CONFIG_KEYS)
    assert settings["ignore"] == ["FT003"] and settings["exclude"] == list(DEFAULT_EXCLUDES)
    assert settings["respect-gitignore"] is True and settings["per-file-ignores"] == {}
    # the printed settings are a configuration: read back, they give the same settings (all
    # but the unset docs-url: `docs-url = ""` is refused in a file, it means "no links")
    assert 'docs-url = ""' in lines
    body = "\n".join(line for line in lines if not line.startswith(("#", "docs-url =")))
    (project / "pyproject.toml").write_text("[tool.ftlint]\n" + body + "\n", encoding="utf-8")
    again = run_ftlint("check", "--show-settings", "--extend-select", "FT003", cwd=project)
    assert (again.returncode, again.stderr) == (0, "")
    assert [line for line in again.stdout.splitlines() if not line.startswith("#")] == lines[
        lines.index(SELECTED_BUT_FT003) + 1 :
    ]


def test_show_settings_without_a_config_file(tmp_path: Path):
    proc = run_ftlint("check", "--show-settings", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[0] == "# Settings file: none (built-in defaults)"
