"""Command line: `ftlint check | rule | review | verify`. Exit codes as ruff's:
0 clean, 1 findings, 2 usage, configuration or internal error."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Optional, Sequence

from ftlint import __version__

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
FORMAT_NAMES = ("text", "json", "jsonl", "github", "rdjson", "rdjsonl", "sarif", "markdown", "github-review")


class UsageError(Exception):
    pass


def _terminal_columns() -> int:
    """shutil.get_terminal_size().columns without importing shutil (and bz2, lzma):
    argparse asks for it on every add_argument, ~4 ms of a pre-commit run."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns
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

    def error(self, message: str) -> None:  # exit 2 with one line, like ruff
        self.print_usage(sys.stderr)
        raise UsageError(message)


def build_parser(with_review_options: bool = True) -> argparse.ArgumentParser:
    """`with_review_options=False` skips importing the review module (git, diff parsing)
    for the other commands: every import counts on a cached run."""
    parser = _Parser(prog="ftlint", description="Checks for vLLM fault-tolerance invariants.")
    parser.add_argument("--version", action="version", version=f"ftlint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    check = sub.add_parser("check", help="lint files or directories (default: the current directory)")
    check.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    add_output_options(check)
    add_selection_options(check)
    check.add_argument("--fix", action="store_true", help="apply safe fixes (FT001, FT008) in place")
    check.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; change nothing")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument(
        "--exhaustive", action="store_true", help="parse every file instead of prefiltering (slow; same findings)"
    )
    check.add_argument(
        "--exhaustive-max-mb", type=float, default=None, metavar="MB",
        help="with --exhaustive, files larger than this are FT000 instead of parsed whole with LibCST "
        "(default: exhaustive-max-mb in the config, 2)",
    )
    check.add_argument("--force-exclude", action="store_true", help="apply excludes to paths passed explicitly")
    check.add_argument("--no-cache", action="store_true", help="do not read or write the result cache")
    check.add_argument("--cache-dir", type=Path, help="result cache location (default: .ftlint_cache in the project root)")
    check.add_argument("--statistics", action="store_true", help="print files walked/parsed to stderr")

    rule = sub.add_parser("rule", help="print a rule's documentation (ruff rule CODE)")
    rule.add_argument("code", nargs="?", help="e.g. FT004")
    rule.add_argument("--all", action="store_true", help="list every rule")
    rule.add_argument("--format", choices=("text", "markdown", "json", "table"), default="text",
                      help="table: the README's markdown rule table (with --all)")

    review = sub.add_parser("review", help="lint the lines a change touched (PR bot output)")
    if with_review_options:
        from ftlint.review.command import add_arguments

        add_arguments(review)
        add_output_options(review, default="markdown")
        add_selection_options(review)

    verify = sub.add_parser("verify", help="run the runtime verifier's demo on vLLM's real scheduler (CPU)")
    verify.add_argument("--demo", action="store_true", required=True, help="run the demo")
    verify.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    return parser


def add_output_options(parser: argparse.ArgumentParser, default: str = "text") -> None:
    parser.add_argument("--format", "--output-format", dest="format", choices=FORMAT_NAMES, default=default)
    parser.add_argument("--output-file", "-o", type=Path, help="write the report here instead of stdout")
    parser.add_argument("--config", type=Path, help="pyproject.toml to read [tool.ftlint] from")


def add_selection_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--select", type=_codes, help="comma-separated codes or prefixes to enable")
    parser.add_argument("--extend-select", type=_codes, default=[], help="codes or prefixes to add")
    parser.add_argument("--ignore", type=_codes, default=[], help="codes or prefixes to disable")


def _codes(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run one command; returns its exit code (tests and embedders call this)."""
    return _dispatch(argv)[0]


def _dispatch(argv: Optional[Sequence[str]]) -> tuple[int, Optional[str]]:
    """(exit code, the command that ran or None)."""
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


def load_settings(args):
    """(config, selected codes) from pyproject.toml and the command line; errors exit 2."""
    from ftlint.config import ConfigError, load_config, select_codes
    from ftlint.registry import known_codes

    cwd = Path.cwd()
    try:
        if args.config is not None and not args.config.is_file():
            raise UsageError(f"--config {args.config}: no such file")
        config = load_config(cwd, args.config)
        known = known_codes()
        config.validate_codes(known)
        if args.select:
            selected = select_codes(args.select, [*config.ignore, *args.ignore], known, extend_select=args.extend_select)
        else:
            selected = select_codes(config, args.ignore, known, extend_select=args.extend_select)
    except ConfigError as err:
        raise UsageError(str(err)) from None
    return config, selected


def run_check(args) -> int:
    from ftlint.engine import lint_paths

    config, selected = load_settings(args)
    if args.exhaustive_max_mb is not None:
        if not args.exhaustive_max_mb > 0:
            print("ftlint: error: --exhaustive-max-mb: expected a positive number", file=sys.stderr)
            return 2
        import dataclasses

        config = dataclasses.replace(config, exhaustive_max_mb=args.exhaustive_max_mb)
    if args.fix or args.diff:
        from ftlint.fixing import fix_paths  # imports LibCST: only when fixing

        result, diff_text = fix_paths(args.paths, config, selected, write=args.fix, exhaustive=args.exhaustive,
                                      force_exclude=args.force_exclude)
        if args.diff and diff_text:
            sys.stdout.write(diff_text)
    else:
        cache_dir = None
        if not args.no_cache:  # FTLINT_NO_CACHE=1 disables it too (checked by the engine)
            cache_dir = Path(os.path.abspath(args.cache_dir)) if args.cache_dir is not None else config.cache_path
        result = lint_paths(args.paths, config, selected, exhaustive=args.exhaustive, force_exclude=args.force_exclude,
                            cache_dir=cache_dir)
    if args.statistics:
        print(
            f"ftlint: {result.files_linted} files linted, {result.files_parsed} parsed",
            file=sys.stderr,
        )
    for skipped in result.skipped:
        print(f"ftlint: skipped {skipped.path}: {skipped.reason}", file=sys.stderr)
    if not args.diff or args.fix:
        emit(args, result.findings, config)
    if args.fix and result.fixes_applied:
        print(f"ftlint: fixed {result.fixes_applied} finding(s)", file=sys.stderr)
    for error in result.internal_errors:
        print(f"ftlint: {error}", file=sys.stderr)
    if result.internal_errors:
        return EXIT_ERROR
    if args.diff and not args.fix:
        return EXIT_FINDINGS if result.fixed else EXIT_CLEAN
    if result.findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def emit(args, findings, config, *, diff_lines=None, extra_docs=None) -> None:
    from ftlint.registry import all_docs
    from ftlint.report import ReportContext, render

    docs = all_docs(extra_docs)
    ctx = ReportContext(docs=docs, tool_version=__version__, root=config.root, cwd=Path.cwd(), diff_lines=diff_lines)
    text = render(args.format, findings, ctx)
    if args.output_file is not None:
        try:
            args.output_file.write_text(text, encoding="utf-8")
        except OSError as err:
            raise UsageError(f"--output-file {args.output_file}: {err.strerror or err}") from None
    else:
        sys.stdout.write(text)


def run_rule(args) -> int:
    import json

    from ftlint.registry import all_docs

    docs = all_docs()
    if args.all:
        if args.format == "json":
            print(json.dumps([{"code": d.code, "name": d.name, "summary": d.summary} for d in docs.values()], indent=2))
        elif args.format == "table":
            sys.stdout.write(rule_table(docs.values()))
        elif args.format == "markdown":
            sys.stdout.write(rule_pages(docs.values()))
        else:
            for doc in docs.values():
                print(f"{doc.code:7} {doc.name:28} {doc.summary}")
        return EXIT_CLEAN
    if not args.code:
        raise UsageError("rule: give a rule code (e.g. FT004) or --all")
    doc = docs.get(args.code.upper())
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


def rule_table(docs) -> str:
    """The README's rule table; tests/test_cli.py checks the README against it."""
    rows = ["| Code | Name | Fix | What it reports |", "|---|---|---|---|"]
    from ftlint.registry import all_rules

    rules = all_rules()
    for doc in docs:
        fixable = "yes" if doc.code in rules and rules[doc.code].FIXABLE else ""
        summary = doc.summary.replace("|", "\\|")
        rows.append(f"| {doc.code} | {doc.name} | {fixable} | {summary} |")
    return "\n".join(rows) + "\n"


def rule_pages(docs) -> str:
    """docs/rules.md: every rule's page, with an anchor per code (the rule URL points here)."""
    header = "# ftlint rules\n\nGenerated by `ftlint rule --all --format markdown`; do not edit by hand.\n"
    pages = [f'<a id="{doc.code.lower()}"></a>\n\n{doc.markdown()}' for doc in docs]
    return header + "\n" + "\n".join(pages)


def run_review(args) -> int:
    from ftlint.review.command import run

    return run(args)


def run_verify(args) -> int:
    try:
        from ftlint.runtime.demo import main as demo_main
    except ImportError as err:  # pragma: no cover
        print(f"ftlint: the runtime verifier is not available: {err}", file=sys.stderr)
        return EXIT_ERROR
    return demo_main(list(args.rest))


COMMANDS = {"check": run_check, "rule": run_rule, "review": run_review, "verify": run_verify}


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
