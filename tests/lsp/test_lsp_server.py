"""`ftlint server` end to end: pytest-lsp as the client, the server a subprocess over stdio."""

from __future__ import annotations

import textwrap

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.helpers import (
    EVICT_TAILS,
    HELPER_FREES,
    apply_text_edits,
    change_file,
    open_file,
    published_after,
    run_python,
    write_file,
)
from tests.helpers import SENTINEL_CALLS_HELPER as HANDLER_CALLS_HELPER
from tests.helpers import SENTINEL_DROPS_FRAME as HANDLER_DROPS_FRAME

HELPER_EVICTS_FIRST = """
from vllm.v1.request import RequestStatus


def abort_all(scheduler, requests):
    kv = scheduler.kv_cache_manager
    for request in requests:
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        for group in kv.coordinator.single_type_managers:
            tail = group.req_to_blocks[request.request_id][confirmed // group.block_size :]
            kv.evict_blocks({block.block_id for block in tail if not block.is_null})
    scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
"""


def _dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _line_with(text: str, needle: str) -> tuple[int, str]:
    """(0-based number, text) of the one line holding `needle`."""
    (found,) = [(n, line) for n, line in enumerate(text.splitlines()) if needle in line]
    return found


@pytest.mark.asyncio
async def test_open_publishes_diagnostics_and_an_edit_clears_them(client: LanguageClient, project):
    path = write_file(project, "pkg/sentinel.py", HANDLER_DROPS_FRAME)
    uri = open_file(client, path)
    diagnostics = await published_after(client, uri, 0)
    assert [(d.code, d.source, d.severity) for d in diagnostics] == [
        ("FT001", "ftlint", types.DiagnosticSeverity.Error)
    ]
    (diagnostic,) = diagnostics
    # the preempting call, from its first column to the end of its closing parenthesis
    number, line = _line_with(_dedent(HANDLER_DROPS_FRAME), "drop_stale_output")
    assert diagnostic.range.start == types.Position(line=number, character=line.index("self.engine"))
    assert diagnostic.range.end == types.Position(line=number, character=len(line))
    assert diagnostic.code_description is None  # no docs-url configured: no link at all

    # an incremental change, as VS Code sends it: delete the argument by its range
    start = line.index(", drop_stale_output=True")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(number, start), types.Position(number, start + 24)),
                    text="",
                )
            ],
        )
    )
    assert await published_after(client, uri, 1) == []


@pytest.mark.asyncio
async def test_fix_code_action_applies_to_the_right_text(client: LanguageClient, project):
    text = _dedent(HANDLER_DROPS_FRAME)
    uri = open_file(client, write_file(project, "pkg/sentinel.py", text))
    (diagnostic,) = await published_after(client, uri, 0)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    fixes = [a for a in actions if a.is_preferred]
    assert len(fixes) == 1 and fixes[0].kind == types.CodeActionKind.QuickFix
    assert "FT001" in fixes[0].title
    fixed = apply_text_edits(text, fixes[0].edit.changes[uri])
    assert fixed == text.replace(", drop_stale_output=True", "")

    change_file(client, uri, fixed, version=2)
    assert await published_after(client, uri, 1) == []


@pytest.mark.asyncio
async def test_noqa_code_action_suppresses_the_finding(client: LanguageClient, project):
    text = _dedent(HANDLER_CALLS_HELPER)
    write_file(project, "pkg/helpers.py", HELPER_FREES)
    uri = open_file(client, write_file(project, "pkg/sentinel.py", text))
    (diagnostic,) = await published_after(client, uri, 0)
    assert diagnostic.code == "FT007" and diagnostic.range.start.line == 5
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    (noqa,) = [a for a in actions if "noqa" in a.title]
    suppressed = apply_text_edits(text, noqa.edit.changes[uri])
    lines = text.splitlines()
    lines[5] += "  # noqa: FT007"
    assert suppressed == "\n".join(lines) + "\n"

    change_file(client, uri, suppressed, version=2)
    assert await published_after(client, uri, 1) == []


@pytest.mark.asyncio
async def test_an_edit_of_an_open_helper_republishes_the_handler_file(client: LanguageClient, project):
    helper = write_file(project, "pkg/helpers.py", HELPER_FREES)
    handler_uri = open_file(client, write_file(project, "pkg/sentinel.py", HANDLER_CALLS_HELPER))
    assert [d.code for d in await published_after(client, handler_uri, 0)] == ["FT007"]
    helper_uri = open_file(client, helper)
    await published_after(client, helper_uri, 0)
    seen = client.diagnostics.count(handler_uri)

    # the unsaved buffer of the helper counts, not the file on disk
    change_file(client, helper_uri, _dedent(HELPER_EVICTS_FIRST), version=2)
    assert await published_after(client, handler_uri, seen) == []
    assert helper.read_text() == _dedent(HELPER_FREES)

    change_file(client, helper_uri, _dedent(HELPER_FREES), version=3)
    assert [d.code for d in await published_after(client, handler_uri, seen + 1)] == ["FT007"]


@pytest.mark.asyncio
async def test_a_helper_changed_on_disk_republishes_the_handler_file(client: LanguageClient, project):
    helper = write_file(project, "pkg/helpers.py", HELPER_EVICTS_FIRST)
    handler_uri = open_file(client, write_file(project, "pkg/sentinel.py", HANDLER_CALLS_HELPER))
    assert await published_after(client, handler_uri, 0) == []

    write_file(project, "pkg/helpers.py", HELPER_FREES)
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=helper.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    assert [d.code for d in await published_after(client, handler_uri, 1)] == ["FT007"]


@pytest.mark.asyncio
async def test_columns_are_utf16_code_units_on_non_ascii_lines(client: LanguageClient, project):
    text = _dedent(HANDLER_DROPS_FRAME).replace(
        "self.engine.scheduler._preempt_request(request, 0.0, drop_stale_output=True)",
        'note = "é😀"; self.engine.scheduler._preempt_request(request, "ü😀", drop_stale_output=True)',
    )
    uri = open_file(client, write_file(project, "pkg/sentinel.py", text))
    (diagnostic,) = await published_after(client, uri, 0)
    number, line = _line_with(text, "drop_stale_output")
    prefix = line[: line.index("self.engine")]
    # "😀" is one code point but two UTF-16 code units (LSP's default position encoding)
    assert diagnostic.range.start == types.Position(line=number, character=len(prefix) + 1)
    assert diagnostic.range.end == types.Position(line=number, character=len(line) + 2)

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    (fix,) = [a for a in actions if a.is_preferred]
    assert apply_text_edits(text, fix.edit.changes[uri]) == text.replace(", drop_stale_output=True", "")


def test_server_without_pygls_says_how_to_install_it(tmp_path):
    code = "import sys; sys.modules['pygls'] = None; from ftlint.cli import main; sys.exit(main(['server']))"
    proc = run_python(code, cwd=tmp_path)
    assert proc.returncode == 2
    assert "pip install 'ftlint[lsp]'" in proc.stderr
    assert "Traceback" not in proc.stderr


HELPER_DROPS_FRAME = """
def resume_all(scheduler, requests):
    for request in requests:
        scheduler._preempt_request(request, 0.0, drop_stale_output=True)
        request.num_in_flight_tokens = 0
        request.num_stale_output_tokens = 0
"""

HANDLER_RESUMES = (
    """
from pkg.resume import resume_all


class EngineCoreSentinel:
    def on_fault(self, exc):
        running = list(self.engine.scheduler.running)
        self._evict_unconfirmed_tails(running)
        resume_all(self.engine.scheduler, running)

"""
    + EVICT_TAILS
)


@pytest.mark.asyncio
async def test_a_helper_opened_alone_is_linted_as_fault_path_code(client: LanguageClient, project):
    """Only the helper is open; the handler that reaches it is found on disk."""
    write_file(project, "pkg/sentinel.py", HANDLER_RESUMES)
    helper_uri = open_file(client, write_file(project, "pkg/resume.py", HELPER_DROPS_FRAME))
    assert [(d.code, d.range.start.line) for d in await published_after(client, helper_uri, 0)] == [("FT001", 2)]
    # a file no handler reaches is not fault-path code: nothing to report
    other_uri = open_file(client, write_file(project, "pkg/other.py", HELPER_DROPS_FRAME))
    assert await published_after(client, other_uri, 0) == []


@pytest.mark.asyncio
async def test_save_and_close(client: LanguageClient, project):
    path = write_file(project, "pkg/sentinel.py", HANDLER_DROPS_FRAME)
    uri = open_file(client, path)
    assert [d.code for d in await published_after(client, uri, 0)] == ["FT001"]
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert [d.code for d in await published_after(client, uri, 1)] == ["FT001"]
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert await published_after(client, uri, 2) == []  # a closed file keeps no diagnostics


@pytest.mark.asyncio
async def test_fix_all_action_and_file_watchers(client: LanguageClient, project):
    text = _dedent(HANDLER_DROPS_FRAME)
    uri = open_file(client, write_file(project, "pkg/sentinel.py", text))
    (_diagnostic,) = await published_after(client, uri, 0)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(0, 0), types.Position(0, 0)),
            context=types.CodeActionContext(diagnostics=[], only=["source.fixAll.ftlint"]),
        )
    )
    (fix_all,) = actions
    assert apply_text_edits(text, fix_all.edit.changes[uri]) == text.replace(", drop_stale_output=True", "")
    # VS Code's capabilities allow dynamic registration: the server asked it to watch files
    watchers = [w["globPattern"] for r in client.registrations for w in r.register_options["watchers"]]
    assert "**/*.py" in watchers and "**/pyproject.toml" in watchers
