"""One lint run: discover files, find the fault-path code, run the selected rules over
each fault-path file in one batched LibCST visit, then suppress, fix and sort.

Files that cannot define or be reached from a fault handler are never parsed (see
prefilter.py); `exhaustive=True` parses every file instead and must give the same
findings.
"""

from __future__ import annotations

import fnmatch
import os
import re
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Sequence

from ftlint.config import Config
from ftlint.discovery import Discovered, discover, iter_python_files
from ftlint.finding import Finding, Severity
from ftlint.prefilter import Prefilter
from ftlint.source import PARSE_ERROR_CODE, PARSE_ERROR_NAME, ParseFailure, display_path, read_bytes


@dataclass
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    internal_errors: list[str] = field(default_factory=list)
    skipped: list = field(default_factory=list)  # discovery.Skipped
    files_linted: int = 0  # Python files discovered for linting
    files_parsed: int = 0  # files parsed with LibCST (lint set and helpers)
    fixed: dict[str, tuple[str, str]] = field(default_factory=dict)  # display path -> (before, after)
    fixes_applied: int = 0


def fault_path_matcher(config: Config):
    """Predicate on absolute paths for `fault-paths` globs (relative to the project root)."""
    if not config.fault_paths:
        return lambda path: False
    regexes = [re.compile(_glob_regex(g)) for g in config.fault_paths]
    root = os.path.abspath(config.root)

    def matches(path: Path) -> bool:
        rel = os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")
        if rel.startswith("../"):
            return False
        return any(r.fullmatch(rel) for r in regexes)

    return matches


def _glob_regex(glob: str) -> str:
    """'**' spans directories, '*' does not (gitignore-style); a trailing '/**' matches everything below."""
    out, i = [], 0
    glob = glob.lstrip("/")
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append(r"(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(r".*")
            i += 2
        elif glob[i] == "*":
            out.append(r"[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append(r"[^/]")
            i += 1
        else:
            out.append(fnmatch.translate(glob[i])[4:-3] if glob[i] == "[" else re.escape(glob[i]))
            i += 1
    return "".join(out)


def _failure_finding(path: str, failure: ParseFailure, text_lines: Optional[list[str]] = None) -> Finding:
    line_text = ""
    if text_lines and 0 < failure.line <= len(text_lines):
        line_text = text_lines[failure.line - 1]
    return Finding(
        path=path,
        line=failure.line,
        column=failure.column,
        end_line=failure.line,
        end_column=failure.column,
        code=PARSE_ERROR_CODE,
        name=PARSE_ERROR_NAME,
        message=failure.message,
        severity=Severity.ERROR,
        line_text=line_text,
        end_line_text=line_text,
    )


def lint_paths(
    paths: Sequence[Path],
    config: Config,
    selected: Iterable[str],
    *,
    cwd: Optional[Path] = None,
    exhaustive: bool = False,
    force_exclude: bool = False,
) -> LintResult:
    """Lint files and directories as `ftlint check` does (no fixes applied)."""
    cwd = Path(os.path.abspath(cwd or Path.cwd()))
    discovered = discover(list(paths) or [cwd], config, force_exclude=force_exclude or config.force_exclude, cwd=cwd)
    return lint_discovered(discovered, config, set(selected), cwd=cwd, exhaustive=exhaustive, explicit=paths)


def lint_discovered(
    discovered: Discovered,
    config: Config,
    selected: set[str],
    *,
    cwd: Path,
    exhaustive: bool = False,
    explicit: Sequence[Path] = (),
) -> LintResult:
    from ftlint.analysis import FileLinter  # LibCST is imported only when something needs parsing

    result = LintResult(skipped=list(discovered.skipped))
    for error in discovered.errors:
        result.findings.append(
            _failure_finding(display_path(error.path, cwd), ParseFailure(f"cannot read: {error.message}"))
        )
    lint_files = [Path(os.path.abspath(f if os.path.isabs(f) else cwd / f)) for f in discovered.files]
    result.files_linted = len(lint_files)
    explicit_files = {Path(os.path.abspath(cwd / p)) for p in explicit if (cwd / p).is_file()}

    prefilter = Prefilter(config.handler_patterns())
    in_fault_path_file = fault_path_matcher(config)
    scan = list(lint_files)
    root = Path(os.path.abspath(config.root))
    if config.path is not None or (root / ".git").exists():
        if any(_is_under(f, root) for f in lint_files):
            known = set(lint_files)
            scan.extend(Path(os.path.abspath(p)) for p in iter_python_files(root, config) if Path(os.path.abspath(p)) not in known)

    candidates = []
    for file in scan:
        if exhaustive or file in explicit_files or in_fault_path_file(file):
            candidates.append(file)
            continue
        data = read_bytes(file)
        if isinstance(data, ParseFailure) or prefilter.matches(data):
            candidates.append(file)  # unreadable lint files get their FT000 below

    linter = FileLinter(config, selected, cwd=cwd, in_fault_path_file=in_fault_path_file)
    linter.load(candidates)
    lint_set = set(lint_files)
    for file in lint_files:
        display = display_path(file, cwd)
        try:
            findings, errors = linter.lint_file(file, display, must_parse=file in candidates)
        except Exception as err:  # noqa: BLE001 - one file's failure must not stop the run
            result.internal_errors.append(f"{display}: internal error: {err.__class__.__name__}: {err}")
            if os.environ.get("FTLINT_DEBUG"):
                traceback.print_exc()
            continue
        result.findings.extend(findings)
        result.internal_errors.extend(errors)
    result.files_parsed = linter.files_parsed
    del lint_set
    result.findings.sort(key=lambda f: f.sort_key)
    return result


def _is_under(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False
