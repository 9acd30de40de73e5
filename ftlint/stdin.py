"""`ftlint check - --stdin-filename PATH`: lint the text piped in as if it were the file at
PATH (what editors and formatters pipe). PATH decides what the CLI decides from a path:
excludes (with --force-exclude), per-file-ignores, `fault-paths`, and where its imports
resolve; the helpers it calls are read from disk. The configuration is the nearest
`[tool.ftlint]` pyproject above PATH (--config overrides it), as the language server
finds it for an open file: editors pipe from any directory. With --fix the fixed text goes to stdout and the report to stderr
(ruff's convention), so an editor can replace its buffer with stdout.
"""

from __future__ import annotations

import argparse
import io
import sys
import tokenize
from contextlib import redirect_stdout
from pathlib import Path
from typing import TYPE_CHECKING

from ftlint.core.source import ParseFailure, decode, display_path
from ftlint.frontend import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Collection

    from ftlint.core.config import Config
    from ftlint.core.finding import Finding
    from ftlint.lint.workspace import FileResult, Workspace
    from ftlint.syntax.hunks import Change

#: the name reported for stdin read without --stdin-filename (ruff's too)
PLACEHOLDER = "-"


#: the most stdin read (bytes); past it the run stops with a clear error, exit 2, instead of
#: reading an endless stream (`< /dev/zero`) into memory
STDIN_LIMIT = 64 * 1024 * 1024


def read_stdin(limit: int = STDIN_LIMIT) -> bytes:
    stream = sys.stdin
    if stream is None:
        return b""
    data = stream.buffer.read(limit + 1) if hasattr(stream, "buffer") else stream.read(limit + 1).encode("utf-8")
    if len(data) > limit:
        from ftlint.frontend import UsageError

        raise UsageError(f"stdin: more than {limit // (1024 * 1024)} MiB; lint a file this large by its path")
    return data


def run_stdin_check(
    args: argparse.Namespace,
    config: Config,
    selected: Collection[str],
    *,
    emit: Callable[[argparse.Namespace, list[Finding], Config], None],
    stdin_filename: Path | None,
) -> int:
    """The `check` command on stdin; returns the exit code (as run_check's)."""
    data = read_stdin()
    cwd = Path.cwd()
    if stdin_filename is not None:
        path = Path(cwd, stdin_filename)
        shown = display_path(path, cwd)
    else:
        path, shown = Path(cwd, PLACEHOLDER), PLACEHOLDER
    fixing = args.fix or args.diff

    if stdin_filename is not None and (args.force_exclude or config.force_exclude) and config.is_excluded(path):
        if args.fix:
            sys.stdout.buffer.write(data)  # an excluded file passes through unchanged
        return EXIT_CLEAN

    text = decode(data)
    errors: list[str] = []
    fixed_text = None
    applied = 0
    changes: list[Change] | None = None
    if isinstance(text, ParseFailure):
        from ftlint.core.source import failure_finding

        findings = [failure_finding(shown, text)] if "FT000" in selected else []
    else:
        from ftlint.lint.workspace import Workspace

        workspace = Workspace(config, selected, cwd=cwd)
        workspace.set_text(path, text)
        result = workspace.lint(path, shown)
        findings, errors = result.findings, result.internal_errors
        if fixing:
            fixed_text, applied, findings, errors, changes = _fix(workspace, path, shown, text, result, args)

    if args.diff and not args.fix:
        # fixed_text is set only when text decoded (is a str)
        if fixed_text is not None and isinstance(text, str) and fixed_text != text:
            from ftlint.syntax.textedits import unified_diff

            sys.stdout.write(unified_diff(shown, text, fixed_text, changes))
        for error in errors:
            print(f"ftlint: {error}", file=sys.stderr)
        if errors:
            return EXIT_ERROR
        return EXIT_FINDINGS if applied else EXIT_CLEAN

    if args.fix:
        out = data if fixed_text is None or fixed_text == text else _encode_like(fixed_text, data)
        sys.stdout.buffer.write(out)
        sys.stdout.flush()
        with redirect_stdout(sys.stderr):
            emit(args, findings, config)
        if applied:
            print(f"ftlint: fixed {applied} finding(s)", file=sys.stderr)
    else:
        emit(args, findings, config)
    for error in errors:
        print(f"ftlint: {error}", file=sys.stderr)
    if errors:
        return EXIT_ERROR
    if findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _fix(
    workspace: Workspace, path: Path, shown: str, text: str, result: FileResult, args: argparse.Namespace
) -> tuple[str, int, list[Finding], list[str], list[Change]]:
    """Apply the fixes round by round (as fix_runner.fix_paths does to files) on the text;
    returns (fixed text, fixes applied, findings left, internal errors, where the text changed)."""
    from ftlint.lint.fix_runner import MAX_ROUNDS
    from ftlint.syntax import textedits

    unsafe_ok = bool(getattr(args, "unsafe_fixes", False))
    current, applied_total = text, 0
    changes: list[Change] = []
    for _ in range(MAX_ROUNDS):
        groups = [f.fix for f in result.findings if f.fix and (unsafe_ok or _is_safe(f))]
        if not groups:
            break
        combined = textedits.combine(current, groups)
        if not combined.applied or combined.text == current:
            break
        current, applied_total = combined.text, applied_total + len(combined.applied)
        changes = textedits.compose(changes, combined.changes)
        workspace.set_text(path, current)
        result = workspace.lint(path, shown)
    findings = result.findings
    if args.diff and not args.fix:
        findings = [f for f in findings if not f.fix]
    return current, applied_total, findings, result.internal_errors, changes


def _is_safe(finding: Finding) -> bool:
    """Whether --fix applies this finding's fix: all fixes are safe unless the finding says
    otherwise (`fix_applicability`, ruff's applicability)."""
    return getattr(finding, "fix_applicability", "safe") != "unsafe"


def _encode_like(text: str, original: bytes) -> bytes:
    """`text` in the encoding the original bytes were in (its BOM and coding cookie)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(original).readline)
    except SyntaxError:
        encoding = "utf-8"
    if encoding == "utf-8" and original.startswith(b"\xef\xbb\xbf"):
        encoding = "utf-8-sig"
    try:
        return text.encode(encoding)
    except (LookupError, UnicodeEncodeError):
        return text.encode("utf-8")
