"""The real client (pytest-lsp) talking to `python -m ftlint server` over stdio, and a
small project on disk for it: a handler file and a helper file in a package."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities, make_test_lsp_client

from tests.helpers import Published


def _client() -> LanguageClient:
    client = make_test_lsp_client()
    client.diagnostics = Published()
    client.registrations = []

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(ls: LanguageClient, params: types.RegistrationParams) -> None:
        """What VS Code does with the server's file watchers: accept (and here, record) them."""
        ls.registrations.extend(params.registrations)

    return client


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "ftlint", "server"],
        client_factory=_client,
        server_env={**os.environ, "FTLINT_NO_CACHE": "1"},
    )
)
async def client(lsp_client: LanguageClient, project: Path):
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=project.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name="project")],
        )
    )
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git checkout (so the whole project is scanned for handlers, as `ftlint check` does)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    return tmp_path
