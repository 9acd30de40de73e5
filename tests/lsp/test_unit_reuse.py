"""Issue 24: the language server keeps each fault-path function's findings (their fixes
included) and, after an edit, lints again only the functions whose findings may change
(lint/unit_cache.py). Over a sequence of edits (a helper the handlers call, an import,
a function added and removed, lines added above the handlers, a syntax error and its
repair) the findings equal those of a fresh lint of the same text, fixes and positions
included; and the work of an edit inside one handler does not grow with the number of
handlers the file holds (units linted are counted, not timed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from ftlint.core.config import load_config, select_codes
from ftlint.lint.registry import known_codes, opt_in_codes
from ftlint.lint.workspace import Workspace
from ftlint.lsp.positions import split_lines
from ftlint.lsp.server import to_diagnostic
from tests.helpers import change_file, open_file, published_after, write_file

HEAD = """\
from vllm.v1.request import RequestStatus


def abort_all(scheduler, requests):
    scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)


"""
#: one in three handlers calls the helper above (FT007 is reported in it, naming them)
HANDLER = """\
class Sentinel{i}:
    def on_fault(self, exc):
        for r in list(self.scheduler.running):
            r.drop_stale_output = True
            helper_{i}(r)
{tail}

"""
CALLS = "        abort_all(self.engine.scheduler, list(self.engine.scheduler.running))\n"


def _text(handlers: int) -> str:
    return HEAD + "".join(HANDLER.format(i=i, tail=CALLS if i % 3 == 0 else "") for i in range(handlers))


def _workspace(root: Path) -> Workspace:
    config = load_config(str(root))
    return Workspace(config, select_codes(config, [], known_codes(config), opt_in=opt_in_codes(config)), cwd=root)


def _fresh(root: Path, path: Path, text: str):
    workspace = _workspace(root)
    workspace.set_text(path, text)
    return workspace.lint(path).findings


def _in_handler(text: str, i: int, old: str, new: str) -> str:
    start = text.index(f"class Sentinel{i}:")
    end = text.index(old, start) + len(old)
    return text[:start] + text[start:end].replace(old, new) + text[end:]


def _edits(text: str) -> list[tuple[str, str]]:
    """(what, text after it), each edit made to the text before it."""
    steps = []

    def step(what: str, new: str) -> None:
        nonlocal text
        assert new != text, what
        text = new
        steps.append((what, text))

    step(
        "a comment in one handler",
        _in_handler(text, 4, "r.drop_stale_output = True", "r.drop_stale_output = True  # e"),
    )
    step(
        "the helper stops freeing",
        text.replace("    scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)\n", "    return None\n"),
    )
    step(
        "the helper frees again",
        text.replace("def abort_all(scheduler, requests):\n    return None\n", HEAD.split("\n\n\n")[1] + "\n"),
    )
    step(
        "an import edited",
        text.replace(
            "from vllm.v1.request import RequestStatus\n", "import os\nfrom vllm.v1.request import RequestStatus\n"
        ),
    )
    step("a helper a handler calls is added", text + "def helper_2(r):\n    r.drop_stale_output = True\n")
    step("that helper removed", text[: text.index("def helper_2(r):")])
    step(
        "lines added above the handlers",
        text.replace("\n\ndef abort_all", "\n\nLIMIT = 3\n# a comment\n\n\ndef abort_all", 1),
    )
    step(
        "a handler's lines grow",
        _in_handler(text, 1, "            helper_1(r)\n", "            helper_1(r)\n            pass\n\n"),
    )
    step("a syntax error", _in_handler(text, 3, "    def on_fault(self, exc):\n", "    def on_fault(self, exc:\n"))
    step(
        "the syntax error repaired",
        _in_handler(text, 3, "    def on_fault(self, exc:\n", "    def on_fault(self, exc):\n"),
    )
    step("a handler removed", text.replace(HANDLER.format(i=5, tail=""), ""))
    step("a handler added", text + HANDLER.format(i=99, tail=CALLS))
    return steps


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return tmp_path


def test_findings_after_each_edit_equal_a_fresh_lint(root: Path):
    path = root / "sentinels.py"
    text = _text(12)
    workspace = _workspace(root)
    workspace.set_text(path, text)
    first = workspace.lint(path).findings
    assert first == _fresh(root, path, text)
    assert {f.code for f in first} == {"FT001", "FT007"} and any(f.fix for f in first)
    cache = workspace._linter.unit_cache
    assert cache is not None
    for what, edited_text in _edits(text):
        text = edited_text
        linted = cache.linted
        workspace.set_text(path, text)
        findings = workspace.lint(path).findings
        assert findings == _fresh(root, path, text), what
        if what == "a comment in one handler":
            assert cache.linted - linted == 1  # that handler alone: the others' findings kept


def test_findings_move_with_the_lines_above_them(root: Path):
    path = root / "sentinels.py"
    text = _text(6)
    workspace = _workspace(root)
    workspace.set_text(path, text)
    before = workspace.lint(path).findings
    cache = workspace._linter.unit_cache
    linted = cache.linted
    moved = text.replace("\n\ndef abort_all", "\n\n\n\n\ndef abort_all", 1)  # three blank lines: no key changes
    workspace.set_text(path, moved)
    after = workspace.lint(path).findings
    assert cache.linted == linted  # every function's findings reused
    assert after == _fresh(root, path, moved)
    assert [(f.line - 3, f.end_line - 3) for f in after] == [(f.line, f.end_line) for f in before]
    assert [[(e.line - 3, e.text) for e in f.fix] for f in after] == [[(e.line, e.text) for e in f.fix] for f in before]


@pytest.mark.parametrize("handlers", [10, 100])
def test_an_edit_in_one_handler_lints_that_handler_alone(root: Path, handlers: int):
    """The work of an edit does not grow with the unchanged handlers of the file."""
    path = root / "sentinels.py"
    text = _text(handlers)
    workspace = _workspace(root)
    workspace.set_text(path, text)
    workspace.lint(path)
    cache = workspace._linter.unit_cache
    units = cache.linted  # the handlers and the helper, linted once
    assert units == handlers + 1
    edited = [i for i in range(handlers // 2, handlers) if i % 3][:3]  # handlers not calling the helper
    for n, i in enumerate(edited):
        text = _in_handler(text, i, "r.drop_stale_output = True", f"r.drop_stale_output = True  # {n}")
        workspace.set_text(path, text)
        workspace.lint(path)
    assert cache.linted - units == 3  # one handler per edit, whatever the file holds
    assert cache.reused == 3 * handlers


@pytest.mark.asyncio
async def test_server_diagnostics_and_fixes_after_each_edit_equal_a_fresh_lint(client: LanguageClient, project: Path):
    text = _text(9)
    path = write_file(project, "pkg/sentinels.py", text)
    uri = open_file(client, path)
    await published_after(client, uri, 0)
    for version, (what, edited_text) in enumerate(_edits(text), start=2):
        text = edited_text
        change_file(client, uri, text, version)
        diagnostics = await published_after(client, uri, version - 1)
        fresh = _fresh(project, path, text)
        lines = split_lines(text)
        assert diagnostics == [to_diagnostic(f, lines) for f in fresh], what
        fixed = [f for f in fresh if f.fix]
        if not fixed:
            continue
        last = fixed[-1]  # the last fix of the file: its lines moved with most edits
        diagnostic = to_diagnostic(last, lines)
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=diagnostic.range,
                context=types.CodeActionContext(diagnostics=[diagnostic], only=[types.CodeActionKind.QuickFix]),
            )
        )
        edits = [a.edit.changes[uri] for a in actions or [] if a.title.startswith(last.fix_title)]
        assert edits, what
        assert [(e.range.start.line + 1, e.new_text) for e in edits[-1]] == [(e.line, e.text) for e in last.fix], what
