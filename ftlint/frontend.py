"""What the commands share (``ftlint check`` in ``ftlint.cli`` and ``ftlint.stdin``,
``ftlint review`` in ``ftlint.review.command``): exit codes, :class:`UsageError`, loading
the settings and writing the report. It sits below all of them and imports none (its
place in README's table: the CLI imports review, review imports this, never the CLI)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ftlint import __version__

if TYPE_CHECKING:  # pragma: no cover
    from ftlint.core.config import Config
    from ftlint.core.finding import Finding, RuleDoc

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    pass


def load_settings(args: argparse.Namespace, start: Path | None = None) -> tuple[Config, frozenset[str]]:
    """(config, selected codes) from pyproject.toml and the command line; errors exit 2.
    The pyproject is searched from `start` (default: the current directory) upwards."""
    from ftlint.core.config import ConfigError, load_config, select_codes
    from ftlint.lint.registry import known_codes, opt_in_codes

    cwd = Path.cwd()
    try:
        if args.config is not None and not args.config.is_file():
            raise UsageError(f"--config {args.config}: no such file")
        config = load_config(start if start is not None and args.config is None else cwd, args.config)
        known = known_codes(config)  # with the project's local rules (LocalRuleError: a ConfigError)
        config.validate_codes(known)
        if args.select:
            selected = select_codes(
                args.select,
                [*config.ignore, *args.ignore],
                known,
                extend_select=args.extend_select,
                opt_in=opt_in_codes(config),
            )
        else:
            selected = select_codes(
                config, args.ignore, known, extend_select=args.extend_select, opt_in=opt_in_codes(config)
            )
    except ConfigError as err:
        raise UsageError(str(err)) from None
    return config, selected


def emit(
    args: argparse.Namespace,
    findings: Sequence[Finding],
    config: Config,
    *,
    diff_lines: Mapping[str, frozenset[int]] | None = None,
    extra_docs: Mapping[str, RuleDoc] | None = None,
) -> None:
    from ftlint.lint.registry import all_docs
    from ftlint.report import ReportContext, render

    docs = linked_docs(all_docs(extra_docs, config), config.docs_url)
    color = args.output_file is None and use_color(sys.stdout)
    ctx = ReportContext(
        docs=docs,
        tool_version=__version__,
        root=config.root,
        cwd=Path.cwd(),
        diff_lines=diff_lines,
        color=color,
        unsafe_fixes=bool(getattr(args, "unsafe_fixes", False)),
        information_uri=tool_home(config) if args.format in ("sarif", "rdjson") else None,
    )
    if getattr(args, "statistics", False):
        from ftlint.report.statistics import render_statistics

        text = render_statistics(args.format, findings, ctx)
    else:
        text = render(args.format, findings, ctx)  # the whole report, before any file is touched
    if args.output_file is not None:
        write_report(args.output_file, text)
    else:
        write_stdout(text)


#: Project-URL labels naming ftlint's home, best first (PEP 753 normalised: lower case, no punctuation).
HOME_LABELS = ("homepage", "documentation", "source", "repository")


def tool_home(config: Config) -> str | None:
    """ftlint's home page for SARIF ``informationUri`` and rdjson source url: the config's
    ``information-uri``, else the installed distribution's Project-URL (``HOME_LABELS``), else
    None: no output names an address nobody published."""
    if config.information_uri:
        return config.information_uri
    from importlib import metadata

    try:
        entries = metadata.metadata("ftlint").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    urls: dict[str, str] = {}
    for entry in entries:
        label, _, url = entry.partition(",")
        url = url.strip()
        scheme, sep, rest = url.partition("://")
        if sep and scheme.isascii() and scheme.isalpha() and rest and not any(c.isspace() for c in url):
            urls.setdefault("".join(c for c in label.lower() if c.isalnum()), url)
    return next((urls[label] for label in HOME_LABELS if label in urls), None)


def linked_docs(docs: Mapping[str, RuleDoc], template: str) -> Mapping[str, RuleDoc]:
    """``docs`` with each rule's URL made from the ``docs-url`` template (``{code}``,
    ``{name}``); without a template the docs carry no URL and reports say `ftlint rule CODE`."""
    if not template:
        return docs
    from dataclasses import replace

    class Linked(Mapping[str, "RuleDoc"]):  # lazy, as all_docs is: a text report never loads a doc
        def __getitem__(self, code: str) -> RuleDoc:
            doc = docs[code]
            return replace(doc, url=template.replace("{code}", doc.code).replace("{name}", doc.name))

        def __iter__(self) -> Iterator[str]:
            return iter(docs)

        def __len__(self) -> int:
            return len(docs)

    return Linked()


def use_color(stream: TextIO) -> bool:
    """Colour for a terminal: never with ``NO_COLOR`` set (no-color.org), always with
    ``FORCE_COLOR`` set (even when piped), else only on a TTY whose TERM is not ``dumb``."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):
        return False


def write_stdout(text: str) -> None:
    """Write to stdout; a character its encoding cannot hold is written as an escape."""
    try:
        sys.stdout.write(text)
    except UnicodeEncodeError:
        sys.stdout.flush()
        encoding = sys.stdout.encoding or "utf-8"
        sys.stdout.buffer.write(text.encode(encoding, "backslashreplace"))


def write_report(path: Path, text: str) -> None:
    """Write the report to ``path``. A regular file (or a new one) is replaced atomically: a
    temporary file in the same directory, renamed over it, so a reader (or a failed run) never
    sees a partial or empty report. A symlink's target gets the report (the link stays); a FIFO
    or a device is written to, never replaced."""
    import stat

    data = text.encode("utf-8", "backslashreplace")
    target = os.path.realpath(path)  # through symlinks: the link stays, its target gets the report
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as err:
        raise UsageError(f"--output-file {path}: {err.strerror or err}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise UsageError(f"--output-file {path}: is a directory")
    if st is not None and not stat.S_ISREG(st.st_mode):
        _write_through(path, target, data)
        return
    directory = os.path.dirname(target)
    if not os.path.isdir(directory):
        raise UsageError(f"--output-file {path}: directory {directory} does not exist: No such file or directory")
    _replace_atomically(path, target, data)


def _write_through(path: Path, target: str, data: bytes) -> None:
    """A FIFO, a device: open it for writing (no truncation of anything else) and write."""
    try:
        fd = os.open(target, os.O_WRONLY)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
    except OSError as err:
        raise UsageError(f"--output-file {path}: {err.strerror or err}") from None


def _replace_atomically(path: Path, target: str, data: bytes) -> None:
    import tempfile

    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".ftlint-report-", dir=os.path.dirname(target))
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        try:
            mode = os.stat(target).st_mode & 0o7777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, target)
        tmp = None
    except OSError as err:
        raise UsageError(f"--output-file {path}: {err.strerror or err}") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
