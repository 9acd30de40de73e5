"""The language server: open buffers -> workspace.Workspace (one per configuration, the
project index kept warm between edits) -> diagnostics and code actions.

Each open file is linted with its unsaved text; the files it does not have open are read
from disk. After a change, the changed file is linted and published first; then every
other open file whose findings may depend on it (its fault path reaches a function there,
or imports from it, or the other way round) is linted again and published too.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, BinaryIO

from lsprotocol import types
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from ftlint import __version__
from ftlint.core.finding import Edit, Finding, Severity
from ftlint.lint.workspace import Workspace
from ftlint.lsp import positions
from ftlint.lsp.noqa import noqa_edit
from ftlint.lsp.transport import MessageLoop

if TYPE_CHECKING:
    from ftlint.core.config import Config

log = logging.getLogger("ftlint.lsp")

SOURCE = "ftlint"
CONFIG_FILES = ("pyproject.toml", "ftlint.toml")
FIX_ALL_KIND = f"{types.CodeActionKind.SourceFixAll.value}.ftlint"
_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


@dataclass
class Linted:
    """The last lint of an open document: what its diagnostics and actions came from."""

    version: int | None
    text: str
    lines: list[str]
    findings: list[Finding] = field(default_factory=list)
    reached: set[str] = field(default_factory=set)  # files its findings depend on


class FtlintLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("ftlint", __version__)
        self.workspaces: dict[tuple, Workspace] = {}  # (config file, root) -> workspace
        self.configs: dict[str, Config | str] = {}  # directory -> Config or the error message
        self.linted: dict[str, Linted] = {}  # uri -> last lint
        self._pending: dict[str, None] = {}  # uris to lint, in order
        self._changed: dict[str, None] = {}  # paths changed since the last flush
        self._scheduled = False
        self._round: Generator[None, None, None] | None = None  # the lint round under way
        self._io: MessageLoop | None = None
        self._config_errors_shown: set[str] = set()

    # -- transport --------------------------------------------------------------------
    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve over stdio with ftlint's message loop (transport.py): robust framing,
        cancellation of waiting requests, and linting only when no message waits."""
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        self._io = MessageLoop(self.protocol, stdin or sys.stdin.buffer, self.lint_step)
        try:
            asyncio.run(self._io.run())
        except BrokenPipeError:
            log.error("the connection to the client is lost: stopping")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    # -- configuration ----------------------------------------------------------------
    def workspace_for(self, path: str) -> Workspace | None:
        """The workspace of the configuration that applies to `path` (the nearest
        `ftlint.toml` or `[tool.ftlint]` pyproject above it, as `ftlint check` run from its
        directory: `load_config`)."""
        from ftlint.core.config import ConfigError, load_config, select_codes
        from ftlint.lint.registry import known_codes

        directory = os.path.dirname(path)
        config = self.configs.get(directory)
        if config is None:
            try:
                config = load_config(directory)
                config.validate_codes(known_codes())
            except ConfigError as err:
                config = str(err)
            self.configs[directory] = config
        if isinstance(config, str):
            if config not in self._config_errors_shown:
                self._config_errors_shown.add(config)
                self.window_show_message(
                    types.ShowMessageParams(type=types.MessageType.Error, message=f"ftlint: {config}")
                )
            return None
        key = (os.fspath(config.path) if config.path else None, os.fspath(config.root))
        workspace = self.workspaces.get(key)
        if workspace is None:
            selected = select_codes(config, [], known_codes())
            workspace = Workspace(config, selected, cwd=config.root)
            for other in self.workspace.text_documents.values():  # open buffers of its files
                other_path = _path_of(other.uri)
                if other_path is not None and _is_python(other_path, other.language_id):
                    workspace.set_text(other_path, other.source)
            self.workspaces[key] = workspace
        return workspace

    def reset_configs(self) -> None:
        """A configuration file changed: start every workspace again."""
        self.workspaces.clear()
        self.configs.clear()
        self._config_errors_shown.clear()
        for uri in list(self.linted):
            self.queue(uri, None)

    # -- texts ------------------------------------------------------------------------
    def text_changed(self, uri: str) -> None:
        path = _path_of(uri)
        if path is None:
            return
        document = self.workspace.get_text_document(uri)
        if not _is_python(path, document.language_id):
            return
        changed = [workspace.set_text(path, document.source) for workspace in self.workspaces.values()]
        self.queue(uri, path if any(changed) else None)

    def text_closed(self, uri: str) -> None:
        path = _path_of(uri)
        self.linted.pop(uri, None)
        self._pending.pop(uri, None)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        if path is None:
            return
        for workspace in self.workspaces.values():
            workspace.drop_text(path)
        self._changed[path] = None
        self._schedule()

    def files_changed(self, paths: list[str]) -> None:
        """Files changed on disk (the client's file watcher)."""
        open_paths = {_path_of(uri) for uri in self.linted}
        for path in paths:
            if os.path.basename(path) in CONFIG_FILES:
                self.reset_configs()
                return
            if path in open_paths:
                continue  # the buffer is what counts
            for workspace in self.workspaces.values():
                workspace.file_changed(path)
            self._changed[path] = None
        self._schedule()

    def queue(self, uri: str, path: str | None) -> None:
        self._pending[uri] = None
        if path is not None:
            self._changed[path] = None
        self._schedule()

    def _schedule(self) -> None:
        if self._io is not None:
            self._io.schedule()  # linted when no message waits (lint_step)
        elif not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    # -- linting ----------------------------------------------------------------------
    def lint_step(self) -> bool:
        """Lint one document of the current round (starting one when something changed);
        returns whether work is left. The message loop calls it only when no message
        waits, so an edit that arrives meanwhile is applied before the next document."""
        if self._round is None:
            if not self._pending and not self._changed:
                return False
            self._round = self._lint_round()
        try:
            next(self._round)
            return True
        except StopIteration:
            self._round = None
            return bool(self._pending or self._changed)

    def flush(self) -> None:
        """Lint what changed (published first), then the open files that depend on it."""
        self._scheduled = False
        for _ in self._lint_round():
            pass

    def _lint_round(self) -> Generator[None, None, None]:
        pending, self._pending = list(self._pending), {}
        changed, self._changed = list(self._changed), {}
        before = {uri: linted.reached for uri, linted in self.linted.items()}
        done = set()
        for uri in pending:
            if uri not in self._pending:  # else a newer version came: the next round lints it
                self.lint_and_publish(uri)
                yield
            done.add(uri)
        if not changed:
            return
        changed_set = set(changed)
        by_path = {_path_of(uri): uri for uri in self.linted}
        # what each changed file reaches (a handler edited may now reach an open helper)
        reverse: set[str] = set()
        for path in changed:
            changed_uri = by_path.get(path)
            reverse |= before.get(changed_uri, set()) if changed_uri else set()
            reverse |= self.linted[changed_uri].reached if changed_uri in self.linted else self._reached_path(path)
        for uri in list(self.linted):
            if uri in done:
                continue
            open_path = _path_of(uri)
            reached = before.get(uri, set()) | self._reached_path(open_path)
            if uri in self._pending:
                continue  # edited meanwhile: linted (once) in the next round
            if (changed_set & reached) - {open_path} or open_path in reverse:
                self.lint_and_publish(uri)
                yield

    def _reached_path(self, path: str | None) -> set[str]:
        workspace = self.workspace_for(path) if path else None
        return workspace.reached_files(path) if workspace is not None and path else set()

    def lint_and_publish(self, uri: str) -> None:
        try:
            self._lint_and_publish(uri)
        except Exception as err:
            log.exception("linting %s failed", uri)
            message = f"ftlint: internal error while linting {uri}: {err.__class__.__name__}: {err}"
            self.window_log_message(types.LogMessageParams(type=types.MessageType.Error, message=message))

    def _lint_and_publish(self, uri: str) -> None:
        path = _path_of(uri)
        document = self.workspace.text_documents.get(uri)
        if path is None or document is None or not _is_python(path, document.language_id):
            return
        workspace = self.workspace_for(path)
        if workspace is None:
            return
        workspace.set_text(path, document.source)
        result = workspace.lint(path)
        for error in result.internal_errors:
            self.window_log_message(types.LogMessageParams(type=types.MessageType.Error, message=f"ftlint: {error}"))
        text = document.source
        linted = Linted(document.version, text, positions.split_lines(text), result.findings)
        linted.reached = workspace.reached_files(path)
        self.linted[uri] = linted
        encoding = self._encoding()
        docs_url = getattr(workspace.config, "docs_url", "") or ""
        diagnostics = [to_diagnostic(f, linted.lines, encoding, docs_url) for f in result.findings]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=document.version, diagnostics=diagnostics)
        )

    def _encoding(self) -> str:
        encoding = self.workspace.position_encoding
        return getattr(encoding, "value", encoding) or positions.UTF16

    # -- code actions -----------------------------------------------------------------
    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        if uri in self._pending:  # an edit not linted yet: the actions must match the text
            self._pending.pop(uri)
            self.lint_and_publish(uri)
        linted = self.linted.get(uri)
        if linted is None:
            return []
        encoding = self._encoding()
        wanted = params.context.only
        actions: list[types.CodeAction] = []
        selected = _overlapping(linted, params.range, encoding)
        if _wants(wanted, types.CodeActionKind.QuickFix):
            for finding in selected:
                diagnostic = to_diagnostic(finding, linted.lines, encoding)
                if finding.fix:
                    safe = _is_safe(finding)
                    title = finding.fix_title or f"Fix {finding.code}"
                    actions.append(
                        types.CodeAction(
                            title=f"{title} ({finding.code})" if safe else f"{title} ({finding.code}, unsafe fix)",
                            kind=types.CodeActionKind.QuickFix,
                            diagnostics=[diagnostic],
                            is_preferred=safe,
                            edit=_workspace_edit(uri, finding.fix, linted.lines, encoding),
                        )
                    )
            for finding in selected:
                if finding.code == "FT000":
                    continue
                edit = noqa_edit(linted.text, finding.line, finding.code)
                if edit is not None:
                    actions.append(
                        types.CodeAction(
                            title=f"Suppress {finding.code} on this line (# noqa: {finding.code})",
                            kind=types.CodeActionKind.QuickFix,
                            diagnostics=[to_diagnostic(finding, linted.lines, encoding)],
                            edit=_workspace_edit(uri, (edit,), linted.lines, encoding),
                        )
                    )
        if wanted is not None and _wants(wanted, FIX_ALL_KIND):
            fix_all = _fix_all(uri, linted, encoding)
            if fix_all is not None:
                actions.append(fix_all)
        return actions


def to_diagnostic(
    finding: Finding, lines: list[str], encoding: str = positions.UTF16, docs_url: str = ""
) -> types.Diagnostic:
    start = positions.to_client(lines, finding.line, finding.column, encoding)
    end = positions.to_client(lines, finding.end_line, finding.end_column, encoding)
    description = None
    if docs_url:  # only a URL the user configured (`docs-url`): never an invented one
        description = types.CodeDescription(
            href=docs_url.replace("{code}", finding.code).replace("{name}", finding.name)
        )
    return types.Diagnostic(
        range=types.Range(types.Position(*start), types.Position(*end)),
        message=finding.message,
        severity=_SEVERITY.get(finding.severity, types.DiagnosticSeverity.Error),
        code=finding.code,
        code_description=description,
        source=SOURCE,
    )


def _is_safe(finding: Finding) -> bool:
    """ruff's applicability: a fix is safe unless the finding marks it "unsafe"."""
    return getattr(finding, "fix_applicability", "safe") != "unsafe"


def _wants(only: Sequence | None, kind) -> bool:
    if not only:
        return kind != FIX_ALL_KIND
    value = getattr(kind, "value", kind)
    return any(value == getattr(k, "value", k) or value.startswith(f"{getattr(k, 'value', k)}.") for k in only)


def _overlapping(linted: Linted, selection: types.Range, encoding: str) -> list[Finding]:
    start = (selection.start.line, selection.start.character)
    end = (selection.end.line, selection.end.character)
    found = []
    for finding in linted.findings:
        f_start = positions.to_client(linted.lines, finding.line, finding.column, encoding)
        f_end = positions.to_client(linted.lines, finding.end_line, finding.end_column, encoding)
        if f_start <= end and start <= f_end:
            found.append(finding)
    return found


def _text_edit(edit: Edit, lines: list[str], encoding: str) -> types.TextEdit:
    start = positions.to_client(lines, edit.line, edit.column, encoding)
    end = positions.to_client(lines, edit.end_line, edit.end_column, encoding)
    return types.TextEdit(range=types.Range(types.Position(*start), types.Position(*end)), new_text=edit.text)


def _workspace_edit(uri: str, edits, lines: list[str], encoding: str) -> types.WorkspaceEdit:
    return types.WorkspaceEdit(changes={uri: [_text_edit(e, lines, encoding) for e in edits]})


def _fix_all(uri: str, linted: Linted, encoding: str) -> types.CodeAction | None:
    """source.fixAll.ftlint: every safe fix of the file at once (one round)."""
    from ftlint.syntax import textedits

    groups = [f.fix for f in linted.findings if f.fix and _is_safe(f)]
    if not groups:
        return None
    new_text, applied = textedits.apply_edits(linted.text, groups)
    if not applied or new_text == linted.text:
        return None
    end = positions.to_client(linted.lines, len(linted.lines) + 1, 1, encoding)
    whole = types.Range(types.Position(0, 0), types.Position(*end))
    return types.CodeAction(
        title="ftlint: apply every safe fix",
        kind=FIX_ALL_KIND,
        edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(range=whole, new_text=new_text)]}),
    )


def _is_python(path: str, language_id: str | None) -> bool:
    """Documents ftlint lints: Python by the client's language id, or by the file name
    (a generic client may send every document it opens)."""
    return language_id == "python" or path.endswith((".py", ".pyi"))


def _path_of(uri: str) -> str | None:
    if not uri.startswith("file:"):
        return None
    path = to_fs_path(uri)
    return os.path.abspath(path) if path else None


def create_server() -> FtlintLanguageServer:
    server = FtlintLanguageServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: FtlintLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.text_changed(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: FtlintLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.text_changed(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls: FtlintLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        path = _path_of(params.text_document.uri)
        if path is not None and os.path.basename(path) in CONFIG_FILES:
            ls.reset_configs()  # a configuration saved from the editor
        else:
            ls.text_changed(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: FtlintLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.text_closed(params.text_document.uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: FtlintLanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
        paths = [p for p in (_path_of(change.uri) for change in params.changes) if p is not None]
        ls.files_changed(paths)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND]),
    )
    def code_action(ls: FtlintLanguageServer, params: types.CodeActionParams):
        return ls.code_actions(params)

    @server.feature(types.INITIALIZED)
    def initialized(ls: FtlintLanguageServer, params: types.InitializedParams) -> None:
        """Ask the client to watch Python and configuration files, when it can (so edits
        made outside the editor, like a `git checkout`, reach the open files' findings)."""
        watched = ls.client_capabilities.workspace and ls.client_capabilities.workspace.did_change_watched_files
        if watched and watched.dynamic_registration:
            options = types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[
                    types.FileSystemWatcher(glob_pattern="**/*.py"),
                    types.FileSystemWatcher(glob_pattern="**/*.pyi"),
                    types.FileSystemWatcher(glob_pattern="**/pyproject.toml"),
                    types.FileSystemWatcher(glob_pattern="**/ftlint.toml"),
                ]
            )
            ls.client_register_capability(
                types.RegistrationParams(
                    registrations=[
                        types.Registration(
                            id="ftlint-watched-files",
                            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                            register_options=options,
                        )
                    ]
                )
            )

    return server


__all__ = ["FtlintLanguageServer", "create_server", "to_diagnostic"]
