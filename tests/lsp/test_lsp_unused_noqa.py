"""FT100 (issue 23) in `ftlint server`: reported when the project's configuration selects
it, fixed by the generic fix action, and never offered a `# noqa: FT100` of its own."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.helpers import apply_text_edits, open_file, published_after, write_file

TEXT = "class EngineCore:\n    def on_fault(self, exc):\n        self._recover()  # noqa: FT005, E501\n"


@pytest.mark.asyncio
async def test_unused_noqa_is_published_and_fixed(client: LanguageClient, project):
    (project / "pyproject.toml").write_text('[tool.ftlint]\nextend-select = ["FT100"]\n')
    uri = open_file(client, write_file(project, "pkg/sentinel.py", TEXT))
    (diagnostic,) = await published_after(client, uri, 0)
    assert diagnostic.code == "FT100" and diagnostic.range.start.line == 2
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    assert not [a for a in actions if "Suppress" in a.title]
    (fix,) = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
    assert apply_text_edits(TEXT, fix.edit.changes[uri]) == TEXT.replace("# noqa: FT005, E501", "# noqa: E501")
