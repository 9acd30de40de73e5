"""Lint text that is not on disk (yet) as if it were at a path, with the project index
kept between lints: the language server's unsaved buffers and `ftlint check -`.

A `Workspace` is the engine's per-file lint path (analysis.FileLinter, the same project
scan and scope as `ftlint check PATH`) held open: the project's modules stay loaded
(helpers outlined, their fault-path functions parsed once), and a changed text only
drops that file's module, so the next lint re-outlines that one file and LibCST parses
only its fault-path functions. The scope (handlers and what they reach) is rebuilt after
every change from the warm modules: it is a few dictionary look-ups per function, and a
step guard's screen (analysis/reach.py) is asked again only when a file it read changed
(lint/scope_memo.py's LiveScopeMemo).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ftlint.core.config import Config
from ftlint.core.finding import Finding
from ftlint.core.source import display_path
from ftlint.index.prefilter import Prefilter

if TYPE_CHECKING:
    from ftlint.index.project import ImportRef, ModuleInfo
    from ftlint.lint.lint_runner import FileLinter


@dataclass
class FileResult:
    findings: list[Finding] = field(default_factory=list)
    internal_errors: list[str] = field(default_factory=list)


class Workspace:
    """One project (one configuration) and the texts that stand in for its files."""

    def __init__(self, config: Config, selected: Iterable[str], *, cwd: Path | None = None) -> None:
        self.config = config
        self.selected = set(selected)
        self.cwd = Path(os.path.abspath(cwd or Path.cwd()))
        self.overlays: dict[str, str] = {}  # absolute path -> text read instead of the file
        self.lint_set: set[str] = set()  # files linted so far (parsed as the CLI parses the files given)
        self._prefilter = Prefilter(config.handler_patterns(), config.fault_steps)
        self._project_files: dict[str, bool] | None = None  # scanned file -> is a root (may define a handler)
        self._walked_root: str | None = None
        self._linter: FileLinter | None = None
        self._scope_stale = True
        self._load_errors: list[str] = []
        self._imports_of: dict[
            Path, tuple[frozenset[tuple[str, ImportRef]], set[str]]
        ] = {}  # module path -> (its imports, the files they name)
        self._previous: dict[str, ModuleInfo] = {}  # file -> its ModuleInfo before the change not linted yet
        #: changes seen per file, and in all: a file's findings kept per function (lint_runner's
        #: unit cache) are reused only while no other file changed (the count of the others')
        self._changes: dict[str, int] = {}
        self._all_changes = 0
        self._layout_changes = 0  # files that appeared or went (or may have)

    # -- texts ----------------------------------------------------------------------
    def set_text(self, path: Path | str, text: str) -> bool:
        """`text` stands for the file at `path` from now on (an open editor buffer).
        Returns whether that changed what the file holds for the next lint (a buffer
        opened with the text already read from disk changes nothing)."""
        key = _abs(path, self.cwd)
        before = self.overlays.get(key)
        if before == text:
            return False
        self.overlays[key] = text
        if before is None:
            self._files_came_or_went()  # a buffer may stand for a new file
        if before is None and self._linter is not None and self._linter.project.text_at(Path(key)) == text:
            self._linter.project.overlays[Path(key)] = text
            return False
        self._changed(key)
        return True

    def drop_text(self, path: Path | str) -> None:
        """The file's own contents count again (the buffer was closed)."""
        key = _abs(path, self.cwd)
        if self.overlays.pop(key, None) is not None:
            self._files_came_or_went()
            self._changed(key)
        self.lint_set.discard(key)

    def file_changed(self, path: Path | str) -> None:
        """The file changed on disk (created, edited or deleted)."""
        key = _abs(path, self.cwd)
        self._files_came_or_went()  # created or deleted, maybe
        if key not in self.overlays:
            self._changed(key)

    def _files_came_or_went(self) -> None:
        self._layout_changes += 1
        if self._linter is not None:
            self._linter.project.files_created_or_deleted()

    def _changed(self, key: str) -> None:
        self._changes[key] = self._changes.get(key, 0) + 1
        self._all_changes += 1
        if self._linter is not None:
            previous = self._linter.project.loaded_module(Path(key))
            if previous is not None and key in self.lint_set:
                self._previous.setdefault(key, previous)  # its parsed functions may be carried over
            self._linter.project.forget(Path(key))
            if key in self.overlays:
                self._linter.project.overlays[Path(key)] = self.overlays[key]
            else:
                self._linter.project.overlays.pop(Path(key), None)
        if self._project_files is not None and (key in self._project_files or self._in_walk(key)):
            if os.path.exists(key) or key in self.overlays:
                self._project_files[key] = self._is_root(key)
            else:
                self._project_files.pop(key, None)
        self._scope_stale = True

    # -- linting --------------------------------------------------------------------
    def lint(self, path: Path | str, display: str | None = None) -> FileResult:
        """Findings of the file at `path` (its overlay text if it has one), as `ftlint check
        PATH` reports them, named `display` (default: relative to the working directory)."""
        key = _abs(path, self.cwd)
        linter = self._ensure_linter()
        if key not in self.lint_set:
            self.lint_set.add(key)
            if not linter.segmented:  # the files linted are parsed whole: drop an outline of it
                linter.project.forget(Path(key))
            self._scope_stale = True
        errors: list[str] = []
        if self._scope_stale:
            self._rebuild_scope(key)
        errors.extend(e for e in self._load_errors if e.startswith(key))
        shown = display if display is not None else display_path(Path(key), self.cwd)
        try:
            others = self._all_changes - self._changes.get(key, 0)  # changes of the other files
            findings, lint_errors = linter.lint_file(Path(key), shown, must_parse=True, reuse=str(others))
        except Exception as err:  # noqa: BLE001 - reported, as the CLI does, not raised into the editor
            return FileResult([], [*errors, f"{shown}: internal error: {err.__class__.__name__}: {err}"])
        findings.sort(key=lambda f: f.sort_key)
        return FileResult(findings, [*errors, *lint_errors])

    def reached_files(self, path: Path | str) -> set[str]:
        """Files whose contents the findings of `path` depend on: where the functions its
        fault-path code reaches live, and where its (and their) imports point."""
        from ftlint.syntax import ir

        linter = self._linter
        if linter is None:
            return set()
        key = _abs(path, self.cwd)
        if self._scope_stale:
            self._rebuild_scope(key)
        project, fault_paths = linter.project, linter.fault_paths
        info = project.loaded_module(Path(key))
        if info is None:
            return set()
        seen = set()
        frontier = [fn for fn in info.functions if fault_paths.holds_fault_path(fn)]
        while frontier:
            fn = frontier.pop()
            if fn in seen:
                continue
            seen.add(fn)
            for effect in ir.iter_effects(fn.ir):
                if effect.kind == "call":
                    target = fault_paths.target(fn, effect)
                    if target is not None:
                        frontier.append(target[0])
        modules = {info, *(fn.module for fn in seen)}
        files = {os.fspath(m.path) for m in modules}
        for module in modules:
            files |= self._imported_files(module)
        return files

    def _imported_files(self, module: ModuleInfo) -> set[str]:
        """The files `module`'s imports name (kept while its imports stay the same: a stat
        per import and root is the dearest part of reached_files). Files created since
        are seen when the imports change or the workspace starts again."""
        refs = frozenset(module.imports.items())
        known = self._imports_of.get(module.path)
        if known is not None and known[0] == refs:
            return known[1]
        project = cast("FileLinter", self._linter).project  # called once the linter exists
        files: set[str] = set()
        for ref in module.imports.values():
            for dotted in (ref.module, ".".join(filter(None, [ref.module, ref.name]))):
                found = project.find_module_file(dotted, module.path, ref.level) if dotted or ref.level else None
                if found is not None:
                    files.add(os.path.abspath(found))
        self._imports_of[module.path] = (refs, files)
        return files

    # -- internals ------------------------------------------------------------------
    def _ensure_linter(self) -> FileLinter:
        if self._linter is None:
            from ftlint.lint.lint_runner import FileLinter  # imports LibCST
            from ftlint.lint.scope_memo import LiveScopeMemo

            # the scope is rebuilt after every change: what did not change is not screened again
            memo = LiveScopeMemo(lambda file: self._changes.get(file, 0), lambda: self._layout_changes)
            self._linter = FileLinter(
                self.config,
                self.selected,
                cwd=self.cwd,
                in_fault_path_file=self.config.is_fault_path,
                lint_set=self.lint_set,  # the live set: files join it as they are linted
                memo=memo,
            )
            self._linter.project.overlays.update({Path(k): v for k, v in self.overlays.items()})
            self._linter.project.chunked = {}  # an edit of a big file re-outlines only its chunks edited
            self._linter.project.found_files = {}  # imports resolved once while no file appears or goes
        return self._linter

    def _rebuild_scope(self, key: str) -> None:
        """Handlers and scope from the roots: every project file that may define a handler
        (the byte prefilter, or `fault-paths`), and the files linted."""
        linter = cast("FileLinter", self._linter)  # called once the linter exists
        files = self._scan(key)
        roots = [Path(f) for f, is_root in files.items() if is_root]
        roots.extend(Path(f) for f in sorted(self.lint_set) if not files.get(f))
        if self._previous:
            from ftlint.index.project import carry_over

            project = linter.project
            for file, old in self._previous.items():
                new = project.module_at(Path(file)) if file in self.lint_set else None
                if new is not None:
                    carry_over(old, new)
            self._previous.clear()
        linter.reset_scope()
        self._load_errors = linter.load(roots)
        self._scope_stale = False

    def _scan(self, key: str) -> dict[str, bool]:
        """The project's Python files (walked once, as `ftlint check PATH` walks them when
        the project has a root: a `[tool.ftlint]` pyproject or a git top-level) and whether
        each may define a handler; kept up to date by _changed."""
        from ftlint.index.discovery import project_root_to_walk, walk_project

        if self._project_files is None:
            self._project_files = {}
            root = project_root_to_walk([key], self.config, [key])  # key: absolute
            self._walked_root = root
            for file in walk_project(root, set(), self.config, None):
                self._project_files[file] = self._is_root(file)
        return self._project_files

    def _in_walk(self, key: str) -> bool:
        root = self._walked_root
        if root is None or not key.endswith((".py", ".pyi")):
            return False
        return key.startswith(root.rstrip(os.sep) + os.sep) and not self.config.is_excluded(key)

    def _is_root(self, file: str) -> bool:
        if self.config.fault_paths and self.config.is_fault_path(Path(file)):
            return True
        text = self.overlays.get(file)
        if text is not None:
            return self._prefilter.matches(text.encode("utf-8", "surrogatepass"))
        try:
            with open(file, "rb") as fh:
                return self._prefilter.matches(fh.read())
        except OSError:
            return True  # unreadable: loading it reports why


def _abs(path: Path | str, cwd: Path) -> str:
    return os.path.abspath(os.path.join(cwd, os.fspath(path)))
