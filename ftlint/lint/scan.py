"""The project scan: which files of a run may hold a fault handler (the candidates,
parsed with LibCST) and which need no parse at all. Four strategies, one interface
(`scan`), used by the engine only:

* serial: walk the project, prefilter each file's bytes (or, warm, its stat-table entry);
* forked: the same walk in a forked child (parallel_scan.py) while this process imports
  LibCST and loads the files it was given (pre-commit's call: one file, a whole project
  to scan for the handlers that may reach it);
* shared: without a cache, past SHARE_MIN_FILES files, a forked child prefilters the
  files from the front and this process from the back (parallel_scan.share), importing
  LibCST meanwhile (and loading the files given) once a file it will lint may define a
  handler; each side screens the step guards of the files it confirms (GuardScreen),
  which the linter then asks instead of screening them after the scan; the forked
  strategy is then for runs with a cache and small projects;
* exhaustive (`--exhaustive`): parse every file, in a process pool past a threshold,
  and keep those that define a handler or fail to parse (the prefilter's proof).

The stat table, listings and outline store (cache.py, listing.py, outline.py) are the
scan's memory across runs; nothing here imports LibCST except the exhaustive screen.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ftlint.core.cache import Cache, FileFacts
from ftlint.core.config import Config
from ftlint.index.discovery import walk_project
from ftlint.lint import parallel_scan

if TYPE_CHECKING:  # pragma: no cover
    from ftlint.analysis.memo import ScopeMemo
    from ftlint.index.listing import DirListings
    from ftlint.index.project import Project
    from ftlint.lint.lint_runner import FileLinter

#: Up to this many files given, the parent prefilters them before the project scan
#: starts, and loads the ones that may hold a handler while the scan runs; more (pre-commit
#: passing a batch of `--all-files`) are left to the scan, which reads them anyway.
EARLY_LOAD_LIMIT = 64
#: From this many files read without a cache, a forked child reads a share of them
SHARE_MIN_FILES = 256


@dataclass
class ScanFiles:
    """What a run scans: the files linted (absolute paths, and as a set), those of them
    named on the command line (`given`: the absolute paths named there, directories too),
    and the project root whose other Python files are scanned too
    (discovery.project_root_to_walk; None: the lint set is all there is)."""

    config: Config
    lint_files: list[str]
    given: InitVar[set[str]]
    walk_root: str | None
    lint_set: set[str] = field(init=False)
    explicit_files: set[str] = field(init=False)
    #: the project's Python files as the walk of `walk_root` found them (lint files
    #: included), once all_files ran; None before, or without a root to walk
    walked: list[str] | None = field(init=False, default=None)

    def __post_init__(self, given: set[str]) -> None:
        self.lint_set = set(self.lint_files)
        self.explicit_files = given & self.lint_set

    def is_forced(self, file: str) -> bool:
        # files passed explicitly follow the walk's rule (issue 15): parsed only when they may
        # define a handler (prefilter), match `fault-paths`, or a handler reaches them
        return bool(self.config.fault_paths and self.config.is_fault_path(Path(file)))

    def all_files(self, listings: DirListings | None) -> list[str]:
        """The lint set, then the project's other Python files (`walked` keeps the walk)."""
        if self.walk_root is None:
            return list(self.lint_files)
        self.walked = walk_project(self.walk_root, set(), self.config, listings)
        return self.lint_files + [file for file in self.walked if file not in self.lint_set]


@dataclass(frozen=True)
class LinterSpec:
    """How a run's linter (lint_runner.FileLinter) is made, from the run's settings: the
    forked scan makes it while its child scans, else the engine does once the result
    cache missed. Making one imports LibCST."""

    config: Config
    selected: set[str]
    cwd: Path
    lint_set: set[str]  # the files findings are reported for
    cache: Cache | None
    exhaustive: bool

    def make(self, too_large: Iterable[str] = (), memo: ScopeMemo | None = None) -> FileLinter:
        """A new linter (`too_large`: --exhaustive's files past its size limit, outlined;
        `memo`: the scope's answers the scan made, for a run without a cache)."""
        from ftlint.index.outline import OutlineStore
        from ftlint.index.project import FileProbe
        from ftlint.lint.lint_runner import FileLinter  # LibCST is imported only when something needs parsing
        from ftlint.lint.scope_memo import CachedScopeMemo

        return FileLinter(
            self.config,
            self.selected,
            cwd=self.cwd,
            in_fault_path_file=self.config.is_fault_path,
            lint_set=self.lint_set,
            outline_lint_set=not self.exhaustive,
            outline_store=OutlineStore(self.cache),
            outline_always=set(too_large),
            # with a cache, the file-existence tests import resolution makes are dependencies
            probe=FileProbe(record=self.cache is not None),
            memo=CachedScopeMemo(self.cache, (str(self.config.root), str(self.cwd)))
            if self.cache is not None
            else memo,
        )


@dataclass
class Scanned:
    """What the scan found. `linter`, `early_errors`: a forked scan's linter, which loaded
    the files given while the child scanned (None: the engine makes one). `too_large`,
    `screen`: --exhaustive's files past its size limit (file -> size) and the screen's
    verdicts (None when the linter parses every file itself)."""

    count: int  # files scanned
    candidates: list[str]
    linter: FileLinter | None = None
    early_errors: list[str] = field(default_factory=list)
    too_large: dict[str, int] = field(default_factory=dict)
    screen: dict[str, str] | None = None
    walked: list[str] | None = None  # ScanFiles.walked (the serial and forked scans)
    #: the reach answers the scan made while it read (the shared scan's GuardScreen)
    memo: ScopeMemo | None = None


def scan(
    files: ScanFiles,
    facts: FileFacts,
    listings: DirListings | None,
    *,
    exhaustive: bool,
    linters: LinterSpec,
) -> Scanned:
    """The candidates of a run, by the strategy that fits it (see the module's doc).
    The shared and forked strategies make the run's linter from `linters` while the
    child scans."""
    if exhaustive:
        return _exhaustive(files, facts)
    scanned = files.all_files(listings) if facts.cache is None else None  # every file is read: shared
    if scanned is not None:
        shared = _shared(scanned, files, facts, linters)
        if shared is not None:
            return shared
    if files.walk_root is not None and files.explicit_files and _parse_likely(files.explicit_files, facts):
        forked = _forked(files, facts, listings, linters)
        if forked is not None:
            return forked
    if scanned is None:
        scanned = files.all_files(listings)
    candidates = [file for file in scanned if facts.candidate(file, files.is_forced(file))]
    return Scanned(len(scanned), candidates, walked=files.walked)


def scan_serial(files: ScanFiles, facts: FileFacts, listings: DirListings | None) -> tuple[list[str], list[str]]:
    """(every file scanned, the candidates: forced, unreadable or passing the prefilter)."""
    scanned = files.all_files(listings)
    return scanned, [file for file in scanned if facts.candidate(file, files.is_forced(file))]


def _shared(scanned: list[str], files: ScanFiles, facts: FileFacts, linters: LinterSpec) -> Scanned | None:
    """A run that reads every file (no cache) shares them with a forked child
    (parallel_scan.share): the child prefilters from the front, this process from the
    back. Once a file of the lint set may define a handler (the bytes test the engine
    asks before it takes the linter's way, engine._without_fault_path), or from the
    start with `fault-paths` or files named that may define one (then loaded too), this
    process makes the run's linter, importing LibCST while the child reads. What the
    child's step scan learnt (outlines, guards) comes back with its verdicts. None: the
    files are too few, or no child could be started."""
    if facts.cache is not None or len(scanned) < SHARE_MIN_FILES:
        return None
    from ftlint.index import outline, step_scan
    from ftlint.lint.scope_memo import ScannedScopeMemo

    lint_set, prefilter = files.lint_set, facts.prefilter
    # files named that may define a handler (pre-commit's call): loaded while the child reads
    given = [] if len(files.explicit_files) > EARLY_LOAD_LIMIT else _given_candidates(files, facts)
    early_errors: list[str] = []
    guards = GuardScreen(files.config, linters.cwd, prefilter.steps.steps if prefilter.steps is not None else ())
    memo = ScannedScopeMemo(guards.verdicts)

    def verdict(i: int) -> int:
        file = scanned[i]
        if not facts.candidate(file, files.is_forced(file)):
            return 0
        guards.read(file)
        if file in lint_set and prefilter.file_defines_handler(file):
            return parallel_scan.WANTS_FIRST
        return 1

    def make_linter() -> FileLinter:
        linter = linters.make(memo=memo)
        import ftlint.analysis.interpreter  # noqa: F401 - a handler's walk needs it: imported while the child reads

        if given:
            early_errors.extend(linter.load([Path(file) for file in given]))
        return linter

    shared = parallel_scan.share(
        len(scanned),
        verdict,
        first=make_linter,
        first_now=bool(files.config.fault_paths or given),
        extra=lambda: (outline.scanned_outlines(), step_scan.found_items(), guards.verdicts),
    )
    if shared is None:
        return None
    if type(shared.extra) is tuple:  # what the child's step scan read: not read again here
        outlines, found, verdicts = shared.extra
        outline.keep_outlines(outlines)
        for (steps, data), kept in found:
            step_scan.keep_found(steps, data, kept)
        guards.verdicts.update(verdicts)
    candidates = [file for file, judged in zip(scanned, shared.verdicts, strict=True) if judged]
    return Scanned(len(scanned), candidates, shared.first, early_errors, walked=files.walked, memo=memo)


class GuardScreen:
    """The shared scan's reach answers (analysis/reach.py screened_guards): whether each step
    guard of a file the scan confirmed may reach request state, made by the side that read
    the file while the other reads on, instead of by the linter after the scan (a cold run's
    longest step after it: 9 guards, ~0.1 s on vLLM's tree). `verdicts`: (path, qualname) ->
    (the module's text, verdict), what lint/scope_memo.py's ScannedScopeMemo answers from."""

    def __init__(self, config: Config, cwd: Path, steps: tuple[str, ...]) -> None:
        self.config, self.cwd, self.steps = config, cwd, steps
        self.verdicts: dict[tuple[str, str], tuple[str, bool]] = {}
        self._project: Project | None = None

    def read(self, file: str) -> None:
        """Screen the guards of `file` (a candidate of the scan) when it holds any. A
        screen that fails leaves the file's guards to the linter, as without the scan's
        answers: never the scan's failure."""
        try:
            self._read(file)
        except Exception:  # noqa: BLE001 - the linter screens them again, and reports what it meets
            return

    def _read(self, file: str) -> None:
        from ftlint.core.cache import read_bytes
        from ftlint.index import outline, step_scan

        data = read_bytes(file) if self.steps else None
        if data is None:
            return
        found = step_scan.known(data, self.steps)[1]
        if not found:
            return
        project = self._project if self._project is not None else self._new_project()
        kept = outline.scanned_outline(data)
        if kept is not None and kept[1] is False:  # the step scan's outline: left for the linter
            try:
                project.outline_store.remember(data.decode("utf-8"), kept[0])
            except UnicodeDecodeError:
                pass
        from ftlint.analysis.reach import screened_guards

        path = Path(os.path.abspath(file))
        verdicts = screened_guards(project, path, found)
        text = project.text_at(path)
        if verdicts is None or text is None:
            return
        for qualname, verdict in verdicts.items():
            self.verdicts[os.fspath(path), qualname] = (text, verdict)

    def _new_project(self) -> Project:
        from ftlint.index.outline import OutlineStore
        from ftlint.index.project import FileProbe, Project

        project = self._project = Project(
            self.config.root,
            self.cwd,
            outline_only=lambda path: True,
            outline_store=OutlineStore(None),
            probe=FileProbe(),
        )
        project.ast_only = True
        return project


def _given_candidates(files: ScanFiles, facts: FileFacts) -> list[str]:
    """The files named on the command line that may hold a handler, in order."""
    return [file for file in sorted(files.explicit_files) if facts.candidate(file, files.is_forced(file))]


def _forked(files: ScanFiles, facts: FileFacts, listings: DirListings | None, linters: LinterSpec) -> Scanned | None:
    """pre-commit's call: the walk of the project (I/O) runs in a child while this process
    imports LibCST. With a cache the walk is mostly stats and the child has time to
    outline the files given too (this process does it if the child is not done first);
    without one the child reads every file and is the longer side, so the files given
    are outlined here. None when no child could be started, or when none of the files
    given may define a handler (or more than EARLY_LOAD_LIMIT are given): then LibCST is
    imported only if the scope reaches them, and the scan is serial."""
    if len(files.explicit_files) > EARLY_LOAD_LIMIT:
        # pre-commit's --all-files batches: the scan tells which to parse; most batches hold
        # no fault path and answer without LibCST (engine._without_fault_path): no fork
        return None
    given = _given_candidates(files, facts)
    if not given:  # none of the files given may define a handler: as for the batches
        return None
    cache = facts.cache
    for_child = given if cache is not None else []
    join = parallel_scan.start(lambda: scan_and_save(files, facts, listings, for_child, cache))
    if join is None:
        return None
    linter = linters.make()
    early_errors: list[str] = []
    if given and not join.ready():
        # rather than wait: the files given are candidates whatever the scan finds,
        # so load them (outline, parse their handlers, follow their helpers) now
        early_errors = linter.load([Path(file) for file in given])
    found = join()
    if found is None:  # the child failed (it never reports why): do it here
        scanned, candidates = scan_serial(files, facts, listings)
        return Scanned(len(scanned), candidates, linter, early_errors, walked=files.walked)
    count, candidates, new_facts, outlines, walked = found
    facts.merge(new_facts)
    for text, ops in outlines:
        linter.project.outline_store.remember(text, ops)
    return Scanned(count, candidates, linter, early_errors, walked=walked)


def scan_and_save(
    files: ScanFiles, facts: FileFacts, listings: DirListings | None, given: list[str], cache: Cache | None
) -> tuple[int, list[str], Any, list[tuple[str, Any]], list[str] | None]:
    """scan_serial for a forked child, which also does what needs no LibCST while the
    parent imports it: writes what it learnt to the cache (the stat-table shards and
    listings it changed) and outlines the files given (outline.py, Python's own parser).
    Sends back how many files it scanned, the candidates, the new stat entries (marked
    as saved), [text, outline] of the files given and the project's walk."""
    from ftlint.core.source import ParseFailure, read_text
    from ftlint.index.outline import OutlineStore, outline_ops

    scanned, candidates = scan_serial(files, facts, listings)
    facts.save()
    if listings is not None:
        listings.save()
    store = OutlineStore(cache)
    outlines = []
    for file in given:
        text = read_text(Path(file))
        if not isinstance(text, ParseFailure):
            ops = store.load(text)
            if ops is None:
                ops = outline_ops(text)
                store.save(text, ops)
            outlines.append((text, ops))
    return len(scanned), candidates, facts.delta(), outlines, files.walked


def _parse_likely(files: set[str], facts: FileFacts) -> bool:
    """Whether these files will be parsed: no cache, or one changed since the stat table."""
    return facts.cache is None or any(facts.changed(file) for file in files)


def _exhaustive(files: ScanFiles, facts: FileFacts) -> Scanned:
    """--exhaustive: every file is a candidate unless the screen parsed it and found no
    handler (and no parse failure in the lint set)."""
    scanned = files.lint_files + walk_project(files.walk_root, files.lint_set, files.config, None)
    # files past exhaustive-max-mb are not parsed whole (LibCST takes minutes and GBs on
    # a 9 MB file): FT000 in the lint set, and handled as a normal run would
    too_large = _too_large(scanned, files.config.exhaustive_max_mb)
    screen = _screen([f for f in scanned if f not in too_large], files.config)  # None: parse all here
    candidates = []
    for file in scanned:
        if file in too_large:
            if facts.candidate(file, files.is_forced(file)):
                candidates.append(file)
            continue
        status = screen.get(file) if screen is not None else None
        if (
            files.is_forced(file)
            or status is None
            or status == "handler"
            or (status == "fail" and file in files.lint_set)
        ):
            candidates.append(file)
    return Scanned(len(scanned), candidates, too_large=too_large, screen=screen)


def _too_large(files: list[str], max_mb: float) -> dict[str, int]:
    """file -> size, for the files bigger than `max_mb` megabytes (10**6 bytes)."""
    limit = max_mb * 1_000_000
    sizes = {}
    for file in files:
        try:
            size = os.stat(file).st_size
        except OSError:
            continue
        if size > limit:
            sizes[file] = size
    return sizes


def _screen(scanned: list[str], config: Config) -> dict[str, str] | None:
    """--exhaustive: parse every file (a process pool past a threshold) and tell which define
    a handler or fail to parse. None below the threshold: the caller parses them all itself."""
    from ftlint.lint.lint_runner import PARALLEL_THRESHOLD, screen_files

    if len(scanned) < PARALLEL_THRESHOLD:
        return None
    return screen_files(scanned, config.handler_patterns(), config.fault_steps)
