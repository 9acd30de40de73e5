"""Command line: `ftlint check | rule | review | verify`. Exit codes as ruff's:
0 clean, 1 findings, 2 usage, configuration or internal error."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from ftlint import __version__
from ftlint.frontend import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    UsageError,
    emit,
    linked_docs,
    load_settings,
    use_color,
    write_report,
    write_stdout,
)

__all__ = [
    "EXIT_CLEAN",
    "EXIT_ERROR",
    "EXIT_FINDINGS",
    "UsageError",
    "emit",
    "linked_docs",
    "load_settings",
    "main",
    "run",
    "use_color",
    "write_report",
    "write_stdout",
]

STATISTICS_FORMATS = ("text", "json")


def _terminal_columns() -> int:
    """shutil.get_terminal_size().columns without importing shutil (and bz2, lzma):
    argparse asks for it on every add_argument, ~4 ms of a pre-commit run."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        # sys.__stdout__ may be None: the AttributeError is caught below
        return os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


class _HelpFormatter(argparse.HelpFormatter):
    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width=None) -> None:
        if width is None:
            width = _terminal_columns() - 2  # what HelpFormatter computes by itself
        super().__init__(prog, indent_increment, max_help_position, width)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:  # exit 2 with one line, like ruff
        self.print_usage(sys.stderr)
        raise UsageError(message)


def build_parser(with_review_options: bool = True) -> argparse.ArgumentParser:
    """`with_review_options=False` skips importing the review module (git, diff parsing)
    for the other commands: every import counts on a cached run."""
    parser = _Parser(prog="ftlint", description="Checks for vLLM fault-tolerance invariants.")
    parser.add_argument("--version", action="version", version=f"ftlint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    check = sub.add_parser("check", help="lint files or directories (default: the current directory)")
    check.add_argument("paths", nargs="*", metavar="PATH")  # strings: pre-commit passes thousands
    add_output_options(check)
    add_selection_options(check)
    check.add_argument("--fix", action="store_true", help="apply safe fixes (FT001, FT008) in place")
    check.add_argument(
        "--fix-only", action="store_true", help="apply the fixes and report nothing that is left (ruff's; exit 0)"
    )
    check.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; change nothing")
    check.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="also apply (with --fix, --diff) and offer fixes that may change what the code does",
    )
    check.add_argument("--show-fixes", action="store_true", help="with --fix/--diff: list the findings fixed, per file")
    check.add_argument(
        "--add-noqa",
        action="store_true",
        help="add `# noqa: FTxxx` to every reported line (a baseline); change nothing else",
    )
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument(
        "--exit-non-zero-on-fix",
        action="store_true",
        help="with --fix: exit 1 when anything was fixed, even if no finding is left",
    )
    check.add_argument(
        "--quiet", "-q", action="store_true", help="print the findings and errors, no summary messages (ruff's -q)"
    )
    check.add_argument(
        "--silent", "-s", action="store_true", help="print nothing but errors; the exit code says it (ruff's -s)"
    )
    check.add_argument(
        "--exhaustive", action="store_true", help="parse every file instead of prefiltering (slow; same findings)"
    )
    check.add_argument(
        "--exhaustive-max-mb",
        type=float,
        default=None,
        metavar="MB",
        help="with --exhaustive, files larger than this are FT000 instead of parsed whole with LibCST "
        "(default: exhaustive-max-mb in the config, 2)",
    )
    check.add_argument(
        "--exclude", type=_codes, metavar="PATTERNS", help="comma-separated globs: replace `exclude` of the config"
    )
    check.add_argument(
        "--extend-exclude", type=_codes, default=[], metavar="PATTERNS", help="comma-separated globs to exclude too"
    )
    check.add_argument("--show-files", action="store_true", help="print the files that would be linted and exit")
    check.add_argument("--force-exclude", action="store_true", help="apply excludes to paths passed explicitly")
    check.add_argument("--no-cache", action="store_true", help="do not read or write the result cache")
    check.add_argument(
        "--cache-dir", type=Path, help="result cache location (default: .ftlint_cache in the project root)"
    )
    check.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="say what the analysis could not follow (unresolved calls, recursion, vLLM's source not found); "
        "reads no cached result",
    )
    check.add_argument(
        "--statistics",
        action="store_true",
        help="print the number of findings per rule code (with its name and whether it is fixable) "
        "instead of the findings; --format text or json",
    )
    check.add_argument(
        "--scan-stats", action="store_true", help="print how many files were linted and parsed, to stderr"
    )
    check.add_argument(
        "--show-settings",
        action="store_true",
        help="print the resolved configuration (the file it came from and every setting) and exit",
    )
    check.add_argument(
        "--stdin-filename",
        type=Path,
        metavar="PATH",
        help="with `-` (or no PATH): lint stdin as if it were the file PATH; --fix writes the fixed text to stdout",
    )

    clean = sub.add_parser("clean", help="remove the result cache ftlint wrote (ruff clean)")
    clean.add_argument("--config", type=Path, help="ftlint.toml, or pyproject.toml with [tool.ftlint], to read")
    clean.add_argument("--cache-dir", type=Path, help="the cache to remove (default: cache-dir in the config)")

    rule = sub.add_parser("rule", help="print a rule's documentation (ruff rule CODE)")
    rule.add_argument("code", nargs="?", help="e.g. FT004")
    rule.add_argument("--all", action="store_true", help="list every rule")
    rule.add_argument(
        "--format",
        choices=("text", "markdown", "json", "table"),
        default="text",
        help="table: the README's markdown rule table (with --all)",
    )
    rule.add_argument("--config", type=Path, help="pyproject.toml whose local `rules` are shown too")
    rule.add_argument("--new", nargs=2, metavar=("CODE", "NAME"), help="write a new rule file (see --dir, --fix)")
    rule.add_argument("--fix", action="store_true", help="with --new: the rule offers a fix")
    rule.add_argument("--dir", type=Path, help="with --new: where (default: ./rules if it exists, else .)")

    review = sub.add_parser("review", help="lint the lines a change touched (PR bot output)")
    if with_review_options:
        from ftlint.review.command import add_arguments

        add_arguments(review)
        add_output_options(review, default="markdown")
        add_selection_options(review)

    server = sub.add_parser(
        "server", help="run the language server on stdin/stdout (needs `pip install 'ftlint[lsp]'`)"
    )
    server.add_argument(
        "--stdio", action="store_true", help="talk LSP over stdin/stdout (the default and only transport)"
    )

    verify = sub.add_parser("verify", help="run the runtime verifier's demo on vLLM's real scheduler (CPU)")
    verify.add_argument("--demo", action="store_true", required=True, help="run the demo")
    verify.add_argument("--kv", action="store_true", help="KV-content mode: FTR01 against a model's logits")
    verify.add_argument("--device", choices=("cpu", "cuda"), help="with --kv: where the KV pages live")
    verify.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    return parser


def add_output_options(parser: argparse.ArgumentParser, default: str = "text") -> None:
    from ftlint.report import format_names  # the one registry of formats

    parser.add_argument("--format", "--output-format", dest="format", choices=format_names(), default=default)
    parser.add_argument("--output-file", "-o", type=Path, help="write the report here instead of stdout")
    parser.add_argument("--config", type=Path, help="ftlint.toml, or pyproject.toml with [tool.ftlint], to read")


def add_selection_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--select", type=_codes, help="comma-separated codes or prefixes to enable")
    parser.add_argument("--extend-select", type=_codes, default=[], help="codes or prefixes to add")
    parser.add_argument("--ignore", type=_codes, default=[], help="codes or prefixes to disable")


def _codes(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit code (tests and embedders call this)."""
    return _dispatch(argv)[0]


#: Python frames a run may nest. LibCST's visitors recurse three frames per `elif` (and FT004
#: one walk per helper of a chain), so the default 1,000 ends a 400-elif handler in
#: RecursionError. Python-to-Python calls do not grow the C stack; frames entered from C do
#: (a few hundred bytes each), so the limit is kept to a fraction of the C stack.
RECURSION_LIMIT = 10_000


def _allow_deep_recursion() -> None:
    try:
        import resource

        stack = resource.getrlimit(resource.RLIMIT_STACK)[0]
    except (ImportError, OSError, ValueError):
        stack = -1
    limit = RECURSION_LIMIT if stack < 0 else min(RECURSION_LIMIT, stack // 800)
    if limit > sys.getrecursionlimit():
        sys.setrecursionlimit(limit)


def _dispatch(argv: Sequence[str] | None) -> tuple[int, str | None]:
    """(exit code, the command that ran or None)."""
    _allow_deep_recursion()
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        command = next((a for a in argv if not a.startswith("-")), None)
        args = build_parser(with_review_options=command in (None, "review")).parse_args(argv)
        if args.command is None:
            build_parser().print_help()
            return EXIT_ERROR, None
        return COMMANDS[args.command](args), args.command
    except UsageError as err:
        print(f"ftlint: error: {err}", file=sys.stderr)
        return EXIT_ERROR, None
    except KeyboardInterrupt:
        return 130, None
    except BrokenPipeError:
        return EXIT_CLEAN, None
    except Exception as err:  # noqa: BLE001 - anything unforeseen is exit 2, never "findings" (1)
        from ftlint.core.config import ConfigError  # a local rule failing to import while linting

        if isinstance(err, ConfigError):
            print(f"ftlint: error: {err}", file=sys.stderr)
        else:
            _report_internal_error(err)
        return EXIT_ERROR, None


def _report_internal_error(err: BaseException) -> None:
    """One line on stderr (the traceback too with FTLINT_DEBUG=1)."""
    if os.environ.get("FTLINT_DEBUG"):
        import traceback

        traceback.print_exception(err, file=sys.stderr)
    message = " ".join(str(err).split())
    detail = f"{err.__class__.__name__}: {message}" if message else err.__class__.__name__
    try:
        print(f"ftlint: internal error: {detail}", file=sys.stderr)
    except (OSError, ValueError):
        pass


#: Commands after which the process leaves without tearing the interpreter down: they
#: close what they write, their cache writes are atomic renames, and they wait for their
#: child processes. `verify` runs vLLM, whose exit handlers must run.
_QUICK_EXIT_COMMANDS = frozenset({"check", "rule", "review"})


def run() -> None:
    """The `ftlint` command (console script, `python -m ftlint`). After `check`, `rule` and
    `review` it flushes its output and leaves with os._exit: freeing every module and
    object at exit costs ~40 ms of a pre-commit run, more than ftlint's own imports
    (mypy leaves the same way)."""
    code, command = _dispatch(None)
    if command not in _QUICK_EXIT_COMMANDS:
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can be said
            pass
    os._exit(code)


def run_check(args) -> int:
    if args.fix_only:
        args.fix = True
    reads_stdin, start = _stdin_route(args)
    config, selected = load_settings(args, start)
    config = _with_cli_excludes(args, config)
    if args.show_settings:
        from ftlint.settings_view import render_settings

        write_stdout(render_settings(config, selected))
        return EXIT_CLEAN
    if args.statistics and args.format not in STATISTICS_FORMATS:
        raise UsageError(f"--statistics prints --format text or json, not {args.format}")
    if reads_stdin:
        from ftlint.stdin import run_stdin_check

        return run_stdin_check(args, config, selected, emit=emit, stdin_filename=args.stdin_filename)
    if args.show_files:
        return _show_files(args, config)
    config = _with_exhaustive_max_mb(args, config)
    if args.add_noqa:
        if args.fix or args.diff:
            raise UsageError("--add-noqa cannot be combined with --fix or --diff")
        return run_add_noqa(args, config, selected)
    from ftlint.report.progress import shown_for

    with shown_for(args):  # progress on stderr, a terminal only
        result, outcome = _lint_or_fix(args, config, selected)
    _print_notes(args, result)
    if (not args.diff or args.fix) and not (args.silent or args.fix_only):
        emit(args, result.findings, config)
    _print_fix_notes(args, result, outcome)
    return _check_exit_code(args, result, outcome)


def _stdin_route(args) -> tuple[bool, Path | None]:
    """(whether stdin is linted, where the configuration search starts)."""
    reads_stdin = any(os.fspath(p) == "-" for p in args.paths) or (args.stdin_filename is not None and not args.paths)
    start = None
    if reads_stdin or args.stdin_filename is not None:
        if not reads_stdin or len(args.paths) > 1:
            raise UsageError("`-` (stdin) and --stdin-filename take no other PATH: pass `-` alone")
        if args.add_noqa:
            raise UsageError("--add-noqa edits files: it cannot read stdin")
        if args.stdin_filename is not None:  # the configuration that applies to PATH: the nearest [tool.ftlint]
            start = Path.cwd().joinpath(args.stdin_filename).parent
    return reads_stdin, start


def _with_cli_excludes(args, config):
    """--exclude replaces the config's `exclude`; --extend-exclude adds to `extend-exclude` (ruff's)."""
    if args.exclude is None and not args.extend_exclude:
        return config
    import dataclasses

    exclude = config.exclude if args.exclude is None else tuple(args.exclude)
    return dataclasses.replace(config, exclude=exclude, extend_exclude=(*config.extend_exclude, *args.extend_exclude))


def _show_files(args, config) -> int:
    """--show-files: the files a run would lint, absolute and sorted (ruff's), one a line."""
    from ftlint.index.discovery import discover

    found = discover(args.paths, config, force_exclude=args.force_exclude)
    write_stdout("".join(f"{escape_name(path)}\n" for path in sorted(found.absolute)))
    for error in found.errors:
        print(f"ftlint: {error}", file=sys.stderr)
    return EXIT_ERROR if found.errors else EXIT_CLEAN


def _with_exhaustive_max_mb(args, config):
    if args.exhaustive_max_mb is None:
        return config
    if not args.exhaustive_max_mb > 0:
        raise UsageError("--exhaustive-max-mb: expected a positive number")
    import dataclasses

    return dataclasses.replace(config, exhaustive_max_mb=args.exhaustive_max_mb)


def _lint_or_fix(args, config, selected):
    """(the lint result, the fix outcome or None)."""
    if args.fix or args.diff:
        from ftlint.lint.fix_runner import FixOutcome, fix_paths  # imports LibCST: only when fixing

        outcome = FixOutcome()
        result, diff_text = fix_paths(
            args.paths,
            config,
            selected,
            write=args.fix,
            unsafe=args.unsafe_fixes,
            exhaustive=args.exhaustive,
            force_exclude=args.force_exclude,
            outcome=outcome,
            want_diff=args.diff,
        )
        if args.diff and diff_text:
            sys.stdout.write(diff_text)
        return result, outcome
    from ftlint.lint.engine import lint_paths

    cache_dir = None
    if not args.no_cache and not args.verbose:  # FTLINT_NO_CACHE=1 disables it too (checked by the engine)
        cache_dir = Path(os.path.abspath(args.cache_dir)) if args.cache_dir is not None else config.cache_path
    result = lint_paths(
        args.paths,
        config,
        selected,
        exhaustive=args.exhaustive,
        force_exclude=args.force_exclude,
        cache_dir=cache_dir,
    )
    return result, None


def _print_notes(args, result) -> None:
    if args.scan_stats:
        print(
            f"ftlint: {result.files_linted} files linted, {result.files_parsed} parsed",
            file=sys.stderr,
        )
    for skipped in result.skipped:
        print(f"ftlint: skipped {escape_name(str(skipped.path))}: {skipped.reason}", file=sys.stderr)
    if args.verbose:
        for note in result.notes:
            print(f"ftlint: note: {note}", file=sys.stderr)


def _print_fix_notes(args, result, outcome) -> None:
    if args.fix and result.fixes_applied and not (args.quiet or args.silent):
        print(f"ftlint: fixed {result.fixes_applied} finding(s)", file=sys.stderr)
    if outcome is not None:
        if args.show_fixes:
            print(fixed_summary(outcome.fixed_findings, written=args.fix), file=sys.stderr, end="")
        for problem in outcome.problems:
            print(f"ftlint: {problem}", file=sys.stderr)
    for error in result.internal_errors:
        print(f"ftlint: {error}", file=sys.stderr)


def _check_exit_code(args, result, outcome) -> int:
    if result.internal_errors or (outcome is not None and outcome.failed):
        return EXIT_ERROR
    if args.diff and not args.fix:
        return EXIT_FINDINGS if result.fixed else EXIT_CLEAN
    if args.fix and args.exit_non_zero_on_fix and result.fixes_applied:
        return EXIT_FINDINGS
    if result.findings and not (args.exit_zero or args.fix_only):
        return EXIT_FINDINGS
    return EXIT_CLEAN


def run_add_noqa(args, config, selected) -> int:
    from ftlint.lint.add_noqa import add_noqa_paths

    outcome = add_noqa_paths(args.paths, config, selected, exhaustive=args.exhaustive, force_exclude=args.force_exclude)
    for problem in outcome.problems:
        print(f"ftlint: {problem}", file=sys.stderr)
    n = outcome.added
    print(
        f"Added {n} noqa directive{'' if n == 1 else 's'}"
        + (f" in {outcome.files} file{'' if outcome.files == 1 else 's'}." if n else "."),
        file=sys.stderr,
    )
    return EXIT_ERROR if outcome.failed else EXIT_CLEAN


def fixed_summary(findings, *, written: bool) -> str:
    """--show-fixes: ruff's enumeration of the findings fixed, per file and code."""
    if not findings:
        return "No errors fixed.\n" if written else "No errors would be fixed.\n"
    from collections import Counter

    by_file: dict = {}
    for finding in findings:
        by_file.setdefault(finding.path, Counter())[(finding.code, finding.name)] += 1
    n = len(findings)
    lines = [f"{'Fixed' if written else 'Would fix'} {n} error{'' if n == 1 else 's'}:"]
    for path in sorted(by_file):
        lines.append(f"- {escape_name(str(path))}:")
        for (code, name), count in sorted(by_file[path].items()):
            lines.append(f"    {count} x {code} ({name})")
    return "\n".join(lines) + "\n"


def run_rule(args) -> int:
    import json

    from ftlint.lint.registry import rules_for

    if args.new:
        return _new_rule(args)
    config, docs = _rule_docs(args)
    if args.all:
        if args.format == "json":
            print(json.dumps([{"code": d.code, "name": d.name, "summary": d.summary} for d in docs.values()], indent=2))
        elif args.format == "table":
            sys.stdout.write(rule_table(docs.values(), rules_for(config)))
        elif args.format == "markdown":
            sys.stdout.write(rule_pages(docs.values()))
        else:
            for rule_doc in docs.values():
                print(f"{rule_doc.code:7} {rule_doc.name:28} {rule_doc.summary}")
        return EXIT_CLEAN
    if not args.code:
        raise UsageError("rule: give a rule code (e.g. FT004) or --all")
    doc = docs.get(args.code.upper())
    if doc is None and args.code.upper().startswith("PR"):
        from ftlint.review.pr_checks import pr_docs

        doc = pr_docs().get(args.code.upper())
    if doc is None:
        raise UsageError(f"rule: unknown rule code {args.code!r} (see `ftlint rule --all`)")
    if args.format == "json":
        from dataclasses import asdict

        data = asdict(doc)
        data["severity"] = doc.severity.value
        print(json.dumps(data, indent=2))
    else:
        sys.stdout.write(doc.markdown())
    return EXIT_CLEAN


def _new_rule(args) -> int:
    """`ftlint rule --new CODE NAME`: write the file, say where and what comes next."""
    from ftlint.lint.scaffold import ScaffoldError, next_step, write_rule

    try:
        path = write_rule(*args.new, fix=args.fix, directory=args.dir)
    except ScaffoldError as err:
        raise UsageError(f"rule --new: {err}") from None
    print(f"wrote {path}")
    print(next_step(path))
    return EXIT_CLEAN


def _rule_docs(args):
    """(config, code -> RuleDoc) for `ftlint rule`: the built-in rules and the local rules of
    the configuration found from the current directory (or --config)."""
    from ftlint.core.config import ConfigError, load_config
    from ftlint.lint.registry import all_docs

    if args.config is not None and not args.config.is_file():
        raise UsageError(f"--config {args.config}: no such file")
    try:
        config = load_config(Path.cwd(), args.config)
        docs = all_docs(config=config)
        if args.all or args.code:  # a local rule that cannot be used is an error here too
            docs = {code: docs[code] for code in docs}
    except ConfigError as err:
        raise UsageError(str(err)) from None
    return config, docs


def rule_table(docs, rules=None) -> str:
    """The README's rule table (generated with the rest of the docs by `python -m ftlint.docs`)."""
    from ftlint.docs import rule_table as table

    return table(docs, rules)


def rule_pages(docs) -> str:
    """docs/rules.md (generated with the rest of the docs by `python -m ftlint.docs`)."""
    from ftlint.docs import rule_pages as pages

    return pages(docs)


def run_review(args) -> int:
    from ftlint.review.command import run

    return run(args)


def run_server(args) -> int:
    try:
        from ftlint.lsp import server  # noqa: F401 - imports pygls: fails here when the extra is missing
    except ImportError as err:
        missing = (err.name or "").split(".")[0]
        if missing not in ("pygls", "lsprotocol", "cattrs", "attrs"):
            raise  # a bug of ours, not a missing extra
        print(
            f"ftlint: the language server needs pygls ({missing} is not installed): pip install 'ftlint[lsp]'",
            file=sys.stderr,
        )
        return EXIT_ERROR
    from ftlint.lsp import serve

    return serve()


def run_verify(args) -> int:
    try:
        from ftlint.runtime.demo import main as demo_main
    except ImportError as err:  # pragma: no cover
        print(f"ftlint: the runtime verifier is not available: {err}", file=sys.stderr)
        return EXIT_ERROR
    kv = ["--kv"] * args.kv + (["--device", args.device] if args.device else [])
    return demo_main(kv + list(args.rest))


def run_clean(args) -> int:
    """Remove the result cache: only a directory ftlint tagged as its own (CACHEDIR.TAG)."""
    import shutil

    from ftlint.core.config import ConfigError, load_config

    if args.cache_dir is not None:
        top = Path(os.path.abspath(args.cache_dir))
    else:
        try:
            top = load_config(Path.cwd(), args.config).cache_path
        except ConfigError as err:
            raise UsageError(str(err)) from None
    if not os.path.lexists(top):
        print(f"ftlint: no cache at {escape_name(str(top))}", file=sys.stderr)
        return EXIT_CLEAN
    try:
        with open(os.path.join(top, "CACHEDIR.TAG"), encoding="utf-8") as fh:
            tag = fh.read(4096)
        ours = tag.startswith("Signature: 8a477f597d28d172789f06886806bc55\n") and "created by ftlint" in tag
    except (OSError, UnicodeDecodeError):
        ours = False
    if os.path.islink(top) or not ours:
        raise UsageError(
            f"{escape_name(str(top))}: not a cache ftlint wrote (no CACHEDIR.TAG of ftlint's); not removed"
        )
    try:
        shutil.rmtree(top)
    except OSError as err:
        raise UsageError(f"{escape_name(str(top))}: {err.strerror or err}") from None
    print(f"ftlint: removed {escape_name(str(top))}", file=sys.stderr)
    return EXIT_CLEAN


def escape_name(name: str) -> str:
    """A file name for a message, escaped as the reporters escape it (imported when a name is
    shown: the report package stays out of a run's start-up)."""
    from ftlint.report import escape_path

    return escape_path(name)


COMMANDS = {
    "clean": run_clean,
    "check": run_check,
    "rule": run_rule,
    "review": run_review,
    "verify": run_verify,
    "server": run_server,
}


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
