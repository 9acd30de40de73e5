"""`ftlint server` runs a project's local rules (`rules` in `[tool.ftlint]`, issue 25)."""

from __future__ import annotations

import pytest
from pytest_lsp import LanguageClient

from tests.helpers import open_file, published_after, write_file
from tests.test_local_rules import DOC_FILES, HANDLER, SLEEP_RULE


@pytest.mark.asyncio
async def test_the_server_reports_a_local_rule(client: LanguageClient, project):
    (project / "pyproject.toml").write_text(DOC_FILES["pyproject.toml"])
    write_file(project, "myproject/lint_rules.py", SLEEP_RULE)
    uri = open_file(client, write_file(project, "pkg/sentinel.py", HANDLER))
    diagnostics = await published_after(client, uri, 0)
    assert [(d.code, d.message, d.range.start.line) for d in diagnostics] == [("FT101", "Fault path sleeps", 5)]
