"""A standalone ``ftlint.toml``: found by ``ftlint check`` as by the language server (one
discovery function, ``ftlint.core.config.find_config_file``), ``ftlint.toml`` winning over a
``[tool.ftlint]`` pyproject in the same directory (ruff's ``ruff.toml`` over ``pyproject.toml``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ftlint.core.config import ConfigError, find_config_file, load_config
from tests.helpers import ROOT, SENTINEL_DROPS_FRAME, run_ftlint, write_file

STANDALONE = 'ignore = ["FT002"]\nextend-exclude = ["skipped"]\n'


def test_ftlint_toml_is_found_and_holds_keys_at_top_level(tmp_path: Path):
    path = write_file(tmp_path, "ftlint.toml", STANDALONE)
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    cfg = load_config(tmp_path / "pkg" / "sub")
    assert (cfg.path, cfg.root, cfg.table) == (path, tmp_path, "")
    assert cfg.ignore == ("FT002",) and cfg.extend_exclude == ("skipped",)
    assert find_config_file(tmp_path / "pkg") == path


def test_ftlint_toml_wins_over_pyproject_in_the_same_directory(tmp_path: Path):
    write_file(tmp_path, "pyproject.toml", '[tool.ftlint]\nignore = ["FT001"]\n')
    standalone = write_file(tmp_path, "ftlint.toml", "")  # even empty: it is the configuration
    cfg = load_config(tmp_path)
    assert cfg.path == standalone and cfg.ignore == ()


def test_the_nearest_directory_wins_whichever_file_it_holds(tmp_path: Path):
    write_file(tmp_path, "ftlint.toml", 'ignore = ["FT001"]\n')
    inner = write_file(tmp_path, "pkg/pyproject.toml", '[tool.ftlint]\nignore = ["FT003"]\n')
    write_file(tmp_path, "pkg/other/pyproject.toml", '[project]\nname = "x"\n')  # no table: skipped
    assert load_config(tmp_path / "pkg" / "other").path == inner
    assert load_config(tmp_path).ignore == ("FT001",)


def test_errors_in_ftlint_toml_name_the_file_and_the_top_level_key(tmp_path: Path):
    path = write_file(tmp_path, "ftlint.toml", 'select = "FT"\n')
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert str(info.value) == f"{path}: select: expected a list of strings, got str"


def test_cli_reads_ftlint_toml_and_show_settings_names_it(tmp_path: Path):
    write_file(tmp_path, "sentinel.py", SENTINEL_DROPS_FRAME)
    write_file(tmp_path, "pyproject.toml", '[tool.ftlint]\nselect = ["FT"]\n')
    assert run_ftlint("check", "sentinel.py", cwd=tmp_path).returncode == 1
    write_file(tmp_path, "ftlint.toml", 'ignore = ["FT001"]\n')
    run = run_ftlint("check", "sentinel.py", cwd=tmp_path)
    assert (run.returncode, run.stdout, run.stderr) == (0, "All checks passed!\n", "")
    shown = run_ftlint("check", "--show-settings", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[:2] == [f"# Settings file: {tmp_path / 'ftlint.toml'}", "# Table: (top level)"]


def test_language_server_uses_the_same_file(tmp_path: Path):
    from pygls.workspace import Workspace

    from ftlint.lsp.server import FtlintLanguageServer

    standalone = write_file(tmp_path, "ftlint.toml", STANDALONE)
    write_file(tmp_path, "pyproject.toml", '[tool.ftlint]\nignore = ["FT001"]\n')
    source = write_file(tmp_path, "pkg/mod.py", "x = 1\n")
    server = FtlintLanguageServer()
    server.protocol._workspace = Workspace(tmp_path.as_uri())  # what `initialize` sets up
    workspace = server.workspace_for(str(source))
    assert workspace is not None
    assert workspace.config == load_config(source.parent) and workspace.config.path == standalone


def test_readme_ftlint_toml_example_loads(tmp_path: Path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = readme.split("Some of them as an `ftlint.toml`:\n\n```toml\n", 1)[1].split("```", 1)[0]
    write_file(tmp_path, "ftlint.toml", example)
    cfg = load_config(tmp_path)
    assert (cfg.select, cfg.ignore, cfg.per_file_ignores) == (("FT",), ("FT003",), (("tests/**", ("FT",)),))
