"""``ftlint review --base REV [PATH ...]``: lint what a change touched, for a PR bot.

1. ``git diff REV`` (working tree against REV; untracked, not ignored files count as new)
   gives the changed files and their added/modified lines.
2. The changed Python files are linted as ``ftlint check`` would (config excludes apply);
   cross-file facts (handlers and helpers in unchanged files) come from the whole project,
   but findings in unchanged files are never reported.
3. ``--filter`` keeps findings on added lines (``added``, default; a finding counts when
   any line of its span was added or modified), on lines the diff hunks show
   (``diff-context``), anywhere in a changed file (``file``) or all of them (``none``;
   the same as ``file`` here, since only changed files are linted) — reviewdog's modes.
4. With ``--title`` / ``--body-file``, the pull-request checks PR001–PR004 run too; PR005
   (findings the filter dropped on unchanged lines of a function the change edits, in the
   summary) runs with ``added`` and ``diff-context`` whether or not they are given.
5. The report goes out in any ``--format``; ``github-review`` comments inline only on
   lines inside the diff.

Exit codes: 0 no findings, 1 findings, 2 usage or git error.  No network, no token.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ftlint.frontend import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, UsageError, emit, load_settings
from ftlint.index.discovery import is_python_path
from ftlint.review.diff import Diff, FileDiff, GitError, read_diff
from ftlint.review.pr_checks import PR_CODES, SCOPE_CODES, PullRequest, check_pull_request, left_behind, pr_docs

if TYPE_CHECKING:
    from ftlint.lint.engine import LintResult

FILTER_MODES = ("added", "diff-context", "file", "none")
_FILTER_ALIASES = {"diff_context": "diff-context", "nofilter": "none", "no-filter": "none"}
_PR_SELECTOR = re.compile(r"^PR\d{0,3}$", re.I)


def _filter_mode(value: str) -> str:
    mode = _FILTER_ALIASES.get(value, value)
    if mode not in FILTER_MODES:
        raise argparse.ArgumentTypeError(f"invalid choice: {value!r} (choose from {', '.join(FILTER_MODES)})")
    return mode


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ftlint review`` (the CLI adds --format, --output-file, --config and
    --select/--extend-select/--ignore itself)."""
    parser.add_argument(
        "paths", nargs="*", type=Path, metavar="PATH", help="only review changed files under these paths"
    )
    parser.add_argument(
        "--base",
        required=True,
        metavar="REV",
        help="revision to diff the working tree against (git diff REV), e.g. origin/main or a commit",
    )
    parser.add_argument(
        "--merge-base",
        action="store_true",
        help="diff against the merge base of REV and HEAD (what GitHub shows for a pull request)",
    )
    parser.add_argument(
        "--filter",
        "--filter-mode",
        dest="filter",
        type=_filter_mode,
        default="added",
        metavar="MODE",
        help="which findings to keep: added (default), diff-context, file, none",
    )
    parser.add_argument("--title", metavar="TEXT", help="the pull request's title (enables PR002, PR004)")
    parser.add_argument(
        "--body-file",
        type=Path,
        metavar="FILE",
        help="file holding the pull request's description, '-' for stdin (enables PR001)",
    )
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the result cache")
    parser.add_argument(
        "--scan-stats",
        action="store_true",
        help="print how many files were linted, parsed and scanned (the project scan), to stderr",
    )


# --------------------------------------------------------------------------------------------


def _split_selectors(values) -> tuple[list[str], list[str]]:
    """(FT selectors, PR selectors) from a --select/--extend-select/--ignore list."""
    ft: list[str] = []
    pr: list[str] = []
    for value in values or []:
        (pr if _PR_SELECTOR.match(value) else ft).append(value)
    return ft, [p.upper() for p in pr]


def _pr_selection(args, pr_select: list[str], pr_extend: list[str], pr_ignore: list[str], select_all: bool):
    for key, entries in (("--select", pr_select), ("--extend-select", pr_extend), ("--ignore", pr_ignore)):
        for entry in entries:
            if not any(code.startswith(entry) for code in PR_CODES):
                raise UsageError(f"{key}: unknown rule code or prefix {entry!r}")
    # PR rules are on whenever --title/--body-file are given
    enabled = {c for c in PR_CODES if any(c.startswith(e) for e in pr_select)} if pr_select else set(PR_CODES)
    enabled |= {c for c in PR_CODES if any(c.startswith(e) for e in pr_extend)}
    if select_all:
        enabled = set(PR_CODES)
    enabled -= {c for c in PR_CODES if any(c.startswith(e) for e in pr_ignore)}
    return enabled


def _read_body(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        data = sys.stdin.buffer.read() if str(path) == "-" else path.read_bytes()
    except OSError as err:
        raise UsageError(f"--body-file {path}: {err.strerror or err}") from None
    return data.decode("utf-8", "replace").lstrip("\ufeff")


def _under(path: Path, parents: list[Path]) -> bool:
    for parent in parents:
        if path == parent:
            return True
        try:
            path.relative_to(parent)
            return True
        except ValueError:
            continue
    return False


def _selected_files(diff: Diff, paths: list[str], cwd: Path) -> list[FileDiff]:
    limits = []
    for p in paths:
        absolute = Path(os.path.abspath(cwd / p))
        if not absolute.exists() and not any(
            _under(Path(os.path.abspath(diff.root / f.display)), [absolute]) for f in diff.files
        ):
            raise UsageError(f"{p}: no such file or directory")
        limits.append(absolute)
    if not limits:
        return list(diff.files)
    return [f for f in diff.files if _under(Path(os.path.abspath(diff.root / f.display)), limits)]


def _keep(mode: str, fd: FileDiff | None, line: int, end_line: int) -> bool:
    if fd is None:
        return False  # an unchanged file: never reported
    if mode in ("file", "none"):
        return True
    lines = fd.lines_for(mode)
    return any(n in lines for n in range(line, max(line, end_line) + 1))


def run(args) -> int:
    cwd = Path(os.path.abspath(Path.cwd()))
    body = _read_body(args.body_file)
    pr = PullRequest(title=args.title, body=body, body_given=args.body_file is not None)

    ft_select, pr_select = _split_selectors(args.select)
    ft_extend, pr_extend = _split_selectors(args.extend_select)
    ft_ignore, pr_ignore = _split_selectors(args.ignore)
    select_all = any(s.upper() == "ALL" for s in (args.select or []))
    pr_enabled = _pr_selection(args, pr_select, pr_extend, pr_ignore, select_all)
    ft_args = argparse.Namespace(**vars(args))
    ft_args.select, ft_args.extend_select, ft_args.ignore = ft_select, ft_extend, ft_ignore
    config, selected = load_settings(ft_args)
    if args.select and not ft_select:
        selected = frozenset()  # --select named PR rules only

    try:
        diff = read_diff(args.base, cwd, use_merge_base=args.merge_base)
    except GitError as err:
        print(f"ftlint: error: {err}", file=sys.stderr)
        return EXIT_ERROR
    files = _selected_files(diff, list(args.paths), cwd)
    by_repo_path = {f.path: f for f in files if f.path}

    lint_files = [
        Path(os.path.abspath(diff.root / f.path)) for f in files if f.path and not f.binary and is_python_path(f.path)
    ]
    lint_files = [p for p in lint_files if p.is_file()]
    pr_checks = args.title is not None or args.body_file is not None
    # the PR checks ask the lint's own scope: one project scan (and the result cache) for both
    keep_scope = pr_checks and bool(pr_enabled & set(SCOPE_CODES))
    findings = []
    internal_errors: list[str] = []
    scope = None
    result: LintResult | None = None
    if lint_files and (selected or keep_scope):
        from ftlint.lint.engine import lint_paths

        result = lint_paths(
            lint_files,
            config,
            selected,
            cwd=cwd,
            force_exclude=True,
            cache_dir=None if args.no_cache else config.cache_path,  # FTLINT_NO_CACHE=1: the engine
            keep_scope=keep_scope,
        )
        scope = result.scope
        internal_errors = list(result.internal_errors)
        dropped = []
        for finding in result.findings:
            absolute = Path(os.path.abspath(cwd / finding.path))
            rel = os.path.relpath(absolute, diff.root).replace(os.sep, "/")
            fd = by_repo_path.get(rel)
            if _keep(args.filter, fd, finding.line, finding.end_line):
                findings.append(finding)
            elif fd is not None:
                dropped.append((finding, fd))
        if dropped and "PR005" in pr_enabled:
            from ftlint.review.unchanged import left_in_edited_functions

            left = left_in_edited_functions(dropped, diff, result.texts)
            findings += left_behind(left)

    if args.scan_stats:  # nothing to lint: nothing scanned
        linted, parsed, scanned = (
            (result.files_linted, result.files_parsed, result.files_scanned) if result else (0, 0, 0)
        )
        cached = " (cached result)" if result is not None and result.cache_hit else ""
        print(f"ftlint: {linted} files linted, {parsed} parsed, {scanned} scanned{cached}", file=sys.stderr)

    if pr_checks:
        try:
            findings += check_pull_request(pr, diff, files, config, scope, enabled=pr_enabled)
        except GitError as err:
            print(f"ftlint: error: {err}", file=sys.stderr)
            return EXIT_ERROR

    emit(args, findings, config, diff_lines=_diff_lines(diff, files, config.root, args.filter), extra_docs=pr_docs())
    for error in internal_errors:
        print(f"ftlint: {error}", file=sys.stderr)
    if internal_errors:
        return EXIT_ERROR
    if findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _diff_lines(diff: Diff, files: list[FileDiff], root: Path, mode: str) -> dict[str, frozenset[int]]:
    """ReportContext.diff_lines: path relative to the report root -> RIGHT-side lines a
    review comment may go on (added lines; with diff-context also the hunks' context)."""
    lines: dict[str, frozenset[int]] = {}
    root = Path(os.path.abspath(root))
    for fd in files:
        if not fd.path:
            continue
        rel = os.path.relpath(os.path.abspath(diff.root / fd.path), root).replace(os.sep, "/")
        if rel.startswith("../"):
            continue
        lines[rel] = fd.lines_for("diff-context" if mode == "diff-context" else "added")
    return lines
