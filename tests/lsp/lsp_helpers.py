"""Helpers for the `ftlint server` tests: write files, drive the documents, wait for
publishes, apply the edits an action returns (imported by name, as review_helpers is)."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

PUBLISH_TIMEOUT = 60.0  # seconds: the first lint imports LibCST on a busy machine


class Published(dict):
    """client.diagnostics that also keeps every publish, in order (uri, diagnostics)."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[str, list]] = []

    def __setitem__(self, uri, diagnostics) -> None:
        super().__setitem__(uri, diagnostics)
        self.log.append((uri, list(diagnostics)))

    def count(self, uri: str) -> int:
        return sum(1 for u, _ in self.log if u == uri)


def write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def open_file(client: LanguageClient, path: Path, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(
                uri=uri, language_id="python", version=version, text=path.read_text(encoding="utf-8")
            )
        )
    )
    return uri


def change_file(client: LanguageClient, uri: str, text: str, version: int) -> None:
    """A whole-text change, as a client that syncs the full document sends it."""
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def published_after(client: LanguageClient, uri: str, seen: int) -> list[types.Diagnostic]:
    """The diagnostics of the first publish for `uri` after the `seen` ones before it."""

    async def wait() -> list[types.Diagnostic]:
        while client.diagnostics.count(uri) <= seen:
            await asyncio.sleep(0.01)
        return [d for u, d in client.diagnostics.log if u == uri][seen]

    return await asyncio.wait_for(wait(), PUBLISH_TIMEOUT)


def apply_text_edits(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP edits (UTF-16 positions) to `text`, as an editor does."""
    lines = text.splitlines(keepends=True)

    def offset(position: types.Position) -> int:
        before = sum(len(line) for line in lines[: position.line])
        if position.line >= len(lines):
            return len(text)
        line, units, index = lines[position.line], 0, 0
        while units < position.character and index < len(line):
            units += 2 if ord(line[index]) > 0xFFFF else 1
            index += 1
        return before + index

    spans = sorted(((offset(e.range.start), offset(e.range.end), e.new_text) for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text
