"""The language server: open buffers -> workspace.Workspace (one per configuration, the
project index kept warm between edits) -> diagnostics and code actions.

Each open file is linted with its unsaved text; the files it does not have open are read
from disk. After a change, the changed file is linted and published first; then every
other open file whose findings may depend on it (its fault path reaches a function there,
or imports from it, or the other way round) is linted again and published too.

Diagnostics are pushed (`textDocument/publishDiagnostics`) to a client that cannot pull
them, and pulled (`textDocument/diagnostic`, LSP 3.17) by one that can: the client's
`textDocument.diagnostic` capability decides, never both. A pulled report carries a
`resultId` (the document's version and a digest of its diagnostics); a pull that names
the current one as `previousResultId` is answered `unchanged`. When an open file's
findings change because another file changed (a helper edited or saved, a configuration
changed), a pulling client is asked to pull again (`workspace/diagnostic/refresh`).

`untitled:` buffers are linted as in-memory text standing at the workspace root (the
configuration and imports of the root, as `ftlint check -` lints stdin); documents of
any other scheme but `file:` are skipped, and the client is told once per scheme.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import sys
import threading
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, BinaryIO
from urllib.parse import quote

from lsprotocol import types
from pygls.exceptions import JsonRpcException
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
UNTITLED = "untitled:"
#: the pull options: a file's findings depend on other files (the helpers its handlers
#: call, the handlers that reach it), so an edit elsewhere may change them
DIAGNOSTIC_OPTIONS = types.DiagnosticOptions(
    identifier=SOURCE, inter_file_dependencies=True, workspace_diagnostics=False
)
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
    diagnostics: list[types.Diagnostic] = field(default_factory=list)
    result_id: str = ""  # the pull report's id: the version and a digest of the diagnostics


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
        self._reported: dict[str, str] = {}  # uri -> the resultId a pulling client holds
        self._client_edited: set[str] = set()  # uris edited by the client, not pulled since
        self._reached_before: dict[str, set[str]] = {}  # uri -> reached before a lint out of round
        self._needs_refresh = False
        self._round_changed: set[str] = set()  # the paths changed that the round under way handles
        self._schemes_skipped: set[str] = set()

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

    # -- capabilities -----------------------------------------------------------------
    @property
    def pull_mode(self) -> bool:
        """Whether the client pulls diagnostics (then none are pushed)."""
        text_document = self.client_capabilities.text_document
        return bool(text_document and text_document.diagnostic is not None)

    def _refresh_supported(self) -> bool:
        workspace = self.client_capabilities.workspace
        return bool(workspace and workspace.diagnostics and workspace.diagnostics.refresh_support)

    # -- documents ----------------------------------------------------------------------
    def path_for(self, uri: str) -> str | None:
        """The path a document is linted as: its file, or for an `untitled:` buffer a name
        of its own at the workspace root (so the root's configuration applies and its
        imports resolve there, as for stdin); None for any other scheme (told once)."""
        if uri.startswith(UNTITLED):
            root = self.workspace.root_path or os.getcwd()
            return os.path.join(os.path.abspath(root), quote(uri, safe=""))
        path = _path_of(uri)
        if path is None:
            scheme = uri.partition(":")[0] if ":" in uri else uri
            if scheme not in self._schemes_skipped:
                self._schemes_skipped.add(scheme)
                message = f"ftlint: documents of the `{scheme}:` scheme are not linted (only file: and untitled:)"
                log.info("%s", message)
                self.window_log_message(types.LogMessageParams(type=types.MessageType.Info, message=message))
        return path

    # -- configuration ----------------------------------------------------------------
    def workspace_for(self, path: str) -> Workspace | None:
        """The workspace of the configuration that applies to `path` (the nearest
        `ftlint.toml` or `[tool.ftlint]` pyproject above it, as `ftlint check` run from its
        directory: `load_config`)."""
        from ftlint.core.config import ConfigError, load_config, select_codes
        from ftlint.lint.registry import known_codes, opt_in_codes

        directory = os.path.dirname(path)
        config = self.configs.get(directory)
        if config is None:
            try:
                config = load_config(directory)
                config.validate_codes(known_codes(config))  # with its local rules
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
            selected = select_codes(config, [], known_codes(config), opt_in=opt_in_codes(config))
            workspace = Workspace(config, selected, cwd=config.root)
            for other in self.workspace.text_documents.values():  # open buffers of its files
                other_path = self.path_for(other.uri)
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
        path = self.path_for(uri)
        if path is None:
            return
        document = self.workspace.get_text_document(uri)
        if not _is_python(path, document.language_id):
            return
        self._client_edited.add(uri)
        changed = [workspace.set_text(path, document.source) for workspace in self.workspaces.values()]
        self.queue(uri, path if any(changed) else None)

    def text_closed(self, uri: str) -> None:
        path = self.path_for(uri)
        self.linted.pop(uri, None)
        self._pending.pop(uri, None)
        self._reported.pop(uri, None)
        self._client_edited.discard(uri)
        self._reached_before.pop(uri, None)
        if not self.pull_mode:  # a pulling client drops a closed document's diagnostics itself
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        if path is None:
            return
        for workspace in self.workspaces.values():
            workspace.drop_text(path)
        self._changed[path] = None
        self._schedule()

    def files_changed(self, paths: list[str]) -> None:
        """Files changed on disk (the client's file watcher)."""
        open_paths = {self.path_for(uri) for uri in self.linted}
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
            self._refresh_if_needed()
            return bool(self._pending or self._changed)

    def flush(self) -> None:
        """Lint what changed (published first), then the open files that depend on it."""
        self._scheduled = False
        for _ in self._lint_round():
            pass
        self._refresh_if_needed()

    def _refresh_if_needed(self) -> None:
        """A pulled report is out of date through no edit of the client's: ask it to pull."""
        if self._needs_refresh:
            self._needs_refresh = False
            if self._refresh_supported():
                self.workspace_diagnostic_refresh(None)

    def _lint_round(self) -> Generator[None, None, None]:
        pending, self._pending = list(self._pending), {}
        changed, self._changed = list(self._changed), {}
        self._round_changed = set(changed)
        try:
            yield from self._round_of(pending, changed)
        finally:
            self._round_changed = set()

    def _round_of(self, pending: list[str], changed: list[str]) -> Generator[None, None, None]:
        earlier, self._reached_before = self._reached_before, {}
        before = {uri: linted.reached | earlier.get(uri, set()) for uri, linted in self.linted.items()}
        done = set()
        for uri in pending:
            if uri not in self._pending:  # else a newer version came: the next round lints it
                self.lint_and_publish(uri)
                yield
            done.add(uri)
        if not changed:
            return
        changed_set = set(changed)
        by_path = {self.path_for(uri): uri for uri in self.linted}
        # what each changed file reaches (a handler edited may now reach an open helper)
        reverse: set[str] = set()
        for path in changed:
            changed_uri = by_path.get(path)
            reverse |= before.get(changed_uri, set()) if changed_uri else set()
            reverse |= self.linted[changed_uri].reached if changed_uri in self.linted else self._reached_path(path)
        for uri in list(self.linted):
            if uri in done:
                continue
            open_path = self.path_for(uri)
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
        """Lint the open document; push its diagnostics, or keep them for the client's pull."""
        path = self.path_for(uri)
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
        encoding = self._encoding()
        docs_url = getattr(workspace.config, "docs_url", "") or ""
        linted.diagnostics = [to_diagnostic(f, linted.lines, encoding, docs_url) for f in result.findings]
        linted.result_id = _result_id(document.version, linted.diagnostics)
        old = self.linted.get(uri)
        if old is not None and path in self._changed:  # linted before its round: keep what it reached
            self._reached_before.setdefault(uri, set()).update(old.reached)
        self.linted[uri] = linted
        if self.pull_mode:
            reported = self._reported.get(uri)
            if reported is not None and reported != linted.result_id and uri not in self._client_edited:
                self._needs_refresh = True  # changed by another file: the client does not know
            return
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=document.version, diagnostics=linted.diagnostics)
        )

    def current(self, uri: str) -> Linted | None:
        """The document's lint for its current text and every file it depends on (linted
        now unless the last lint is known to be current); None if it is not linted."""
        document = self.workspace.text_documents.get(uri)
        if document is None:
            return None
        linted = self.linted.get(uri)
        if (
            linted is None
            or linted.version != document.version
            or uri in self._pending
            or self._may_change(uri, linted)
        ):
            self._pending.pop(uri, None)
            self.lint_and_publish(uri)
            linted = self.linted.get(uri)
        return linted

    def _may_change(self, uri: str, linted: Linted) -> bool:
        """Whether a file changed since the document was linted (its lint round not done)
        may change its findings: the round's test, with what is known now. A miss costs no
        correctness: the round lints it and asks a pulling client to pull again."""
        changed = set(self._changed) | self._round_changed
        if not changed:
            return False
        open_path = self.path_for(uri)
        if (changed & (linted.reached | self._reached_before.get(uri, set()))) - {open_path}:
            return True
        by_path = {self.path_for(other): other for other in self.linted}
        for path in changed - {open_path}:
            other = by_path.get(path)
            if other is not None:
                reached = self.linted[other].reached | self._reached_before.get(other, set())
            else:
                reached = self._reached_path(path)
            if open_path in reached:
                return True
        return False

    # -- pull diagnostics ----------------------------------------------------------------
    def pull_diagnostics(self, params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
        """`textDocument/diagnostic`: the document's full report, or `unchanged` when the
        client holds the current one. A request overtaken by an edit of its document
        (the edit waits behind it) is answered ServerCancelled, retrigger: the client asks
        again for the new text."""
        uri = params.text_document.uri
        if self._io is not None and self._io.change_waiting(uri):
            raise JsonRpcException(
                message=f"ftlint: {uri} changed after this request: ask again",
                code=types.LSPErrorCodes.ServerCancelled.value,
                data={"retriggerRequest": True},
            )
        linted = self.current(uri)
        self._client_edited.discard(uri)
        if linted is None:  # not open, not Python, or a scheme not linted: nothing to report
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        self._reported[uri] = linted.result_id
        if params.previous_result_id == linted.result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=linted.result_id)
        return types.RelatedFullDocumentDiagnosticReport(items=linted.diagnostics, result_id=linted.result_id)

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
                if finding.code in ("FT000", "FT100"):  # a parse error; an unused noqa is fixed, not noqa'd
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


def _result_id(version: int | None, diagnostics: list[types.Diagnostic]) -> str:
    digest = hashlib.sha1(repr(diagnostics).encode("utf-8", "surrogatepass"), usedforsecurity=False)
    return f"{version}-{digest.hexdigest()[:16]}"


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

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, DIAGNOSTIC_OPTIONS)
    def diagnostic(ls: FtlintLanguageServer, params: types.DocumentDiagnosticParams):
        return ls.pull_diagnostics(params)

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
