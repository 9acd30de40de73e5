"""Every setting that shapes the fault-path scope is honoured alike by the three entry
points: a file path (`ftlint check PATH`), stdin (`ftlint check -`) and the language
server. Each rule example that carries settings is run through all three."""

from __future__ import annotations

from pathlib import Path

import pytest

from ftlint.core.config import load_config
from ftlint.lint.registry import known_codes
from ftlint.lint.workspace import Workspace
from ftlint.testing import MAIN, examples, lint_example, write_example

# single-file examples with settings: stdin and the server lint one buffer
_SETTINGS = [e for e in examples() if e.case.config.strip() and not e.case.files and not e.case.lint]


def _positions(findings, code: str) -> list[tuple[int, int]]:
    return sorted((f.line, f.column) for f in findings if f.code == code)


@pytest.mark.parametrize("example", _SETTINGS, ids=[e.id for e in _SETTINGS])
def test_each_setting_reaches_file_stdin_and_server_alike(example, tmp_path: Path) -> None:
    from ftlint.lsp.server import FtlintLanguageServer

    code = example.rule.CODE
    files = write_example(example.case, tmp_path)
    by_path = _positions(lint_example(tmp_path, files), code)

    config = load_config(tmp_path)
    path = tmp_path / MAIN
    text = path.read_text()
    stdin = Workspace(config, set(known_codes()), cwd=tmp_path)  # as ftlint/stdin.py builds it
    stdin.set_text(path, text)
    by_stdin = _positions(stdin.lint(path, MAIN).findings, code)

    from pygls.workspace import Workspace as Documents

    server = FtlintLanguageServer()
    server.protocol._workspace = Documents(tmp_path.as_uri())  # what `initialize` sets up
    workspace = server.workspace_for(str(path))
    assert workspace is not None
    workspace.set_text(path, text)
    by_server = _positions(workspace.lint(path).findings, code)

    assert by_stdin == by_path, f"stdin differs from the file path for {example.id}"
    assert by_server == by_path, f"the server differs from the file path for {example.id}"
    assert bool(by_path) == (example.kind == "INVALID")


def test_the_vllm_api_example_is_among_them() -> None:
    assert any("vllm-api" in e.case.config for e in _SETTINGS)
