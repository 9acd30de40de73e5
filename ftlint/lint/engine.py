"""One lint run: discover files, scan the project for the candidates (files that may
define a handler), lint them (LibCST, one batched visit per fault-path file), then
suppress and sort.

Files that cannot define or be reached from a fault handler are never parsed (see
prefilter.py); `exhaustive=True` parses every file instead and must give the same
findings. The speed machinery sits behind two interfaces only this module uses:
scan.py (the three scan strategies, the stat table and listings) and result_store.py
(the run entries of the result cache).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ftlint.core.cache import Cache
from ftlint.core.config import Config
from ftlint.core.finding import Finding
from ftlint.core.source import PARSE_ERROR_CODE, ParseFailure, display_path, failure_finding
from ftlint.index.discovery import Discovered, Skipped, discover, project_root_to_walk, walks_whole_project
from ftlint.index.prefilter import class_names_defined, files_matching, subclass_pattern
from ftlint.lint.result_store import CachedRun, LintOutcome, ResultStore, open_cache
from ftlint.lint.scan import ScanFiles, Scanned, scan

if TYPE_CHECKING:  # pragma: no cover
    from ftlint.index.listing import DirListings
    from ftlint.lint.lint_runner import FileLinter
    from ftlint.lint.parallel_scan import Forked


@dataclass
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    internal_errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the analysis could not follow (--verbose)
    skipped: list[Skipped] = field(default_factory=list)
    files_linted: int = 0  # Python files discovered for linting
    files_parsed: int = 0  # files parsed with LibCST (lint set and helpers)
    fixed: dict[str, tuple[str, str]] = field(default_factory=dict)  # display path -> (before, after)
    fixes_applied: int = 0
    files_scanned: int = 0  # files the prefilter (or the stat table) looked at
    cache_hit: bool = False  # the findings came from the result cache (nothing parsed)
    texts: dict[str, str | None] = field(default_factory=dict)  # absolute path -> the text linted
    #: with `keep_scope=True`: the lint_runner.FileLinter of the run, its project index and
    #: fault paths closed over the same candidates (loaded also on a cache hit); else None
    scope: FileLinter | None = None


def lint_paths(
    paths: Sequence[Path | str],
    config: Config,
    selected: Iterable[str],
    *,
    cwd: Path | None = None,
    exhaustive: bool = False,
    force_exclude: bool = False,
    cache_dir: Path | None = None,
    keep_scope: bool = False,
) -> LintResult:
    """Lint files and directories as `ftlint check` does (no fixes applied). With
    `cache_dir`, results are read from and written to the result cache there. With
    `keep_scope`, the result's `scope` holds the run's FileLinter (`ftlint review` asks it
    which lines are fault-path code: one project scan for both)."""
    from ftlint.index.listing import DirListings

    cwd = Path(os.path.abspath(cwd or Path.cwd()))
    cache = open_cache(cache_dir, exhaustive)
    listings = DirListings.for_walk(cache, config)
    discovered = discover(
        list(paths) or [cwd], config, force_exclude=force_exclude or config.force_exclude, cwd=cwd, listings=listings
    )
    result = _lint(discovered, config, set(selected), cwd, exhaustive, paths, cache, listings, keep_scope)
    if listings is not None:
        listings.save()
    return result


def lint_discovered(
    discovered: Discovered,
    config: Config,
    selected: set[str],
    *,
    cwd: Path,
    exhaustive: bool = False,
    explicit: Sequence[Path | str] = (),
    cache_dir: Path | None = None,
    listings: DirListings | None = None,
    keep_scope: bool = False,
) -> LintResult:
    """Discovery results to findings (`listings`: the discovery's listing.DirListings; its
    cache is used when it is the one at `cache_dir`)."""
    shared = listings.cache if listings is not None and not exhaustive else None
    cache: Cache | None
    if shared is not None and cache_dir is not None and shared.directory == Path(os.path.abspath(cache_dir)):
        cache = shared  # one Cache object per directory and run
    else:
        cache = open_cache(cache_dir, exhaustive)
    return _lint(discovered, config, selected, cwd, exhaustive, explicit, cache, listings, keep_scope)


def _lint(
    discovered: Discovered,
    config: Config,
    selected: set[str],
    cwd: Path,
    exhaustive: bool,
    explicit: Sequence[Path | str],
    cache: Cache | None,
    listings: DirListings | None,
    keep_scope: bool = False,
    project_runs: bool = True,
) -> LintResult:
    """The steps: the project scan (every Python file a handler could live in; the byte
    prefilter or, warm, the stat table), the result cache, and only on a miss LibCST
    (imported here, never on a cache hit). With a cache, a run over part of a project
    may be answered by (or, over many files, lint and cache) a run over all of it
    (`project_runs`; see _project_run)."""
    result = LintResult(skipped=list(discovered.skipped))
    for error in discovered.errors:
        result.findings.append(
            failure_finding(display_path(error.path, cwd), ParseFailure(f"cannot read: {error.message}"))
        )
    cwd_str = os.path.abspath(cwd)
    lint_files = list(discovered.absolute)
    result.files_linted = len(lint_files)
    given = [os.path.abspath(os.path.join(cwd_str, p)) for p in explicit or [cwd]]
    files = ScanFiles(config, lint_files, set(given), project_root_to_walk(lint_files, config, given))
    store = ResultStore(cache, config.handler_patterns(), config.fault_steps)

    def new_linter(too_large: Iterable[str] = ()) -> FileLinter:
        return _new_linter(config, selected, cwd, files.lint_set, cache, exhaustive, too_large)

    scanned = scan(files, store.facts, listings, exhaustive=exhaustive, new_linter=new_linter)
    result.files_scanned = scanned.count

    whole = walks_whole_project(config, given)  # the lint set is the project
    project_runs = project_runs and cache is not None and not keep_scope
    plan = _plan(store, files, scanned, config, selected, cwd_str, whole=whole, project_runs=project_runs)
    if plan.answer is not None:
        if keep_scope:  # the same candidates the cached run loaded (its errors are cached)
            linter = scanned.linter if scanned.linter is not None else new_linter(scanned.too_large)
            _load_roots(linter, scanned.candidates, plan.others)
            result.scope = linter
        return _cached_result(result, *plan.answer)
    lint_files, others, project = plan.lint_files, plan.others, plan.project

    # the files that may subclass a handler's class are read in a child while this process
    # imports LibCST (or, after a forked scan, loads the candidates)
    subclass_scan = _start_subclass_scan(others, scanned.candidates)
    linter = scanned.linter if scanned.linter is not None else new_linter(scanned.too_large)
    if project is not None and linter.lint_set is not None:
        linter.lint_set.update(project)
    outcome = _lint_candidates(linter, lint_files, scanned.candidates, others, cwd, scanned.early_errors, subclass_scan)
    if project is not None:
        findings, errors = _in_lint_set(outcome, files.lint_set, project, cwd_str)
    else:
        findings, errors = outcome.findings, outcome.errors
    result.findings.extend(findings)
    result.internal_errors.extend(errors)
    result.files_parsed = outcome.files_parsed
    result.texts = outcome.texts
    result.notes = linter.fault_paths.notes
    if keep_scope:
        result.scope = linter
    if scanned.too_large:
        result.findings.extend(
            _too_large_findings(scanned.too_large, lint_files, result.findings, selected, config, cwd)
        )
    if scanned.screen is not None:  # every scanned file was parsed once by the screen
        result.files_parsed = len(set(scanned.screen) | outcome.read_paths)
    store.save(outcome)
    if project is not None and outcome.subclasses is not None and not set(outcome.subclasses[1]) <= files.lint_set:
        # a file outside this run's subclasses a handler's class: a run over these files alone
        # does not read it, so the project's findings are not this run's (cached for those
        # that hold it); lint these files alone
        return _lint(discovered, config, selected, cwd, exhaustive, explicit, cache, listings, project_runs=False)
    result.findings.sort(key=lambda f: f.sort_key)
    return result


@dataclass
class _Plan:
    """What a run lints once the result cache was asked (or what the cache answered)."""

    lint_files: list[str]
    others: list[str]  # the lint files that are not candidates: they may subclass a handler's class
    project: list[str] | None = None  # the project's files, when the run lints all of them
    answer: tuple[list[Finding], list[str]] | None = None  # findings and errors from the cache


def _plan(
    store: ResultStore,
    files: ScanFiles,
    scanned: Scanned,
    config: Config,
    selected: set[str],
    cwd: str,
    *,
    whole: bool,
    project_runs: bool,
) -> _Plan:
    """Ask the result cache. Without project runs: this run's own entry. A run over many
    files of a project (or over all of it) is the project's run: answered by its entry, or
    linting the whole project so the next of pre-commit's batches is. A run over a few
    files asks its own entry, then the project's (and keeps that answer as its own)."""
    candidates = set(scanned.candidates)
    few = project_runs and not whole and len(files.lint_set) < PROJECT_RUN_MIN_FILES
    project = _project_run(files, scanned, whole) if project_runs and not few else None
    if project is not None:
        project_others = [f for f in project if f not in candidates]
        answer = store.lookup(config, selected, cwd, project, scanned.candidates, project_others)
        if answer is not None and set(answer.subclass_files) <= files.lint_set:
            return _Plan(project, project_others, answer=_in_lint_set(answer, files.lint_set, project, cwd))
        if whole or (answer is None and _can_widen(scanned.linter)):
            return _Plan(project, project_others, project)  # linted whole: the next batch reads it
        # else a subclass of a handler's class outside these files: lint them alone
    others = [f for f in files.lint_files if f not in candidates]
    cached = store.lookup(config, selected, cwd, files.lint_files, scanned.candidates, others)
    if cached is not None:
        return _Plan(files.lint_files, others, answer=(cached.findings, cached.errors))
    project = _project_run(files, scanned, whole) if few else None
    if project is not None:  # a few files: a cached run over the project may answer them
        answer = store.lookup_project(config, selected, cwd, project, scanned.candidates)
        if answer is not None and set(answer.subclass_files) <= files.lint_set:
            findings, errors = _in_lint_set(answer, files.lint_set, project, cwd)
            store.save_answer(answer, findings, errors)  # found first next time
            return _Plan(files.lint_files, others, answer=(findings, errors))
    return _Plan(files.lint_files, others)


def _cached_result(result: LintResult, findings: list[Finding], errors: list[str]) -> LintResult:
    result.findings.extend(findings)
    result.internal_errors.extend(errors)
    result.cache_hit = True
    result.findings.sort(key=lambda f: f.sort_key)
    return result


#: From this many files linted (pre-commit's `--all-files` batches), a run inside a project
#: lints the whole project and caches that: the next batch is served from it.
PROJECT_RUN_MIN_FILES = 64


def _project_run(files: ScanFiles, scanned: Scanned, whole_project: bool) -> list[str] | None:
    """The project's Python files (sorted), when the run's findings may be taken from a
    run over all of them: the lint set is the project, or a part of the project's walk.
    Findings of a file do not depend on which other files are linted (the project scan
    reaches helpers wherever they are), so a cached run over the project answers any part
    of it, but for one thing: a file subclassing a handler's class is read only when it is
    linted, so a project run that read one answers only the runs that lint it (_plan)."""
    if whole_project:
        return sorted(files.lint_files)
    if scanned.walked is None:
        return None
    walked = set(scanned.walked)
    return sorted(walked) if files.lint_set <= walked else None


def _can_widen(linter: FileLinter | None) -> bool:
    """Whether a linter made before the run knew its lint set may still be given more files:
    nothing loaded yet (a module loaded as another file's helper is outlined; had it been
    in the lint set it might have been parsed whole: a `fault-paths` file)."""
    return linter is None or not linter.project.read_paths


def _in_lint_set(
    run: CachedRun | LintOutcome, lint_set: set[str], project: list[str], cwd: str
) -> tuple[list[Finding], list[str]]:
    """A project run's findings in files of the lint set, and its errors but those about
    another file of the project (an error names its file first, as findings are shown)."""
    findings, errors = run.findings, run.errors
    if len(project) == len(lint_set):
        return findings, errors
    project_set = set(project)

    def file_of(display: str) -> str:
        return os.path.abspath(os.path.join(cwd, display))

    kept = [f for f in findings if file_of(f.path) in lint_set]
    kept_errors = []
    for error in errors:
        named = file_of(error.partition(": ")[0])
        if named in lint_set or named not in project_set:
            kept_errors.append(error)
    return kept, kept_errors


def _new_linter(
    config: Config,
    selected: set[str],
    cwd: Path,
    lint_set: set[str],
    cache: Cache | None,
    exhaustive: bool,
    too_large: Iterable[str],
) -> FileLinter:
    from ftlint.index.outline import OutlineStore
    from ftlint.index.project import FileProbe
    from ftlint.lint.lint_runner import FileLinter  # LibCST is imported only when something needs parsing

    return FileLinter(
        config,
        selected,
        cwd=cwd,
        in_fault_path_file=config.is_fault_path,
        lint_set=lint_set,
        outline_lint_set=not exhaustive,
        outline_store=OutlineStore(cache),
        outline_always=set(too_large),
        # with a cache, the file-existence tests import resolution makes are dependencies
        probe=FileProbe(record=cache is not None),
    )


#: Below this many other files, reading them in-process costs less than a fork.
SUBCLASS_FORK_THRESHOLD = 256


@dataclass
class _SubclassScan:
    """The lint set's other files matched, in a forked child, against every class the
    candidates define (a superset of the handler classes, known only once they are parsed)."""

    names: set[str]
    matched: Forked


def _start_subclass_scan(others: list[str], candidates: list[str]) -> _SubclassScan | None:
    from ftlint.lint import parallel_scan

    if len(others) < SUBCLASS_FORK_THRESHOLD or not parallel_scan.available():
        return None
    names = class_names_defined(candidates)
    pattern = subclass_pattern(names)
    if pattern is None:
        return None
    forked = parallel_scan.start(lambda: files_matching(pattern, others))
    return _SubclassScan(names, forked) if forked is not None else None


def _load_roots(
    linter: FileLinter,
    candidates: list[str],
    others: list[str],
    outcome: LintOutcome | None = None,
    subclass_scan: _SubclassScan | None = None,
) -> list[str]:
    """Load the candidates, then those of the lint set's `others` that subclass a handler's
    class: they inherit the handler without defining one, and their overrides are what it
    reaches. The run depends on which files do (`outcome.subclasses`, checked by the
    result store)."""
    errors = linter.load([Path(c) for c in candidates])
    names = linter.fault_paths.handler_class_names()
    pattern = subclass_pattern(names)
    # the forked child's matches (None: it failed), narrowed to the handler classes below;
    # collected (the child reaped) even when no handler is a method
    found = subclass_scan.matched() if subclass_scan is not None else None
    if pattern is None:
        return errors
    if found is not None and subclass_scan is not None and set(names) <= subclass_scan.names:
        matched = files_matching(pattern, found)
    else:  # no child, or a handler class its byte pattern could not name: read them here
        matched = files_matching(pattern, others)
    errors.extend(linter.load([Path(f) for f in matched]))
    if outcome is not None:
        outcome.subclasses = (names, matched)
    return errors


def _lint_candidates(
    linter: FileLinter,
    lint_files: list[str],
    candidates: list[str],
    others: list[str],
    cwd: Path,
    early_errors: list[str],
    subclass_scan: _SubclassScan | None = None,
) -> LintOutcome:
    """Load the candidates (handlers and the scope they reach), then lint each file of the
    lint set that was parsed or reached."""
    outcome = LintOutcome(errors=list(early_errors))
    candidate_set = set(candidates)
    read_paths = linter.project.read_paths
    loaded: set[str] = set()
    outcome.errors.extend(_load_roots(linter, candidates, others, outcome, subclass_scan))
    for file in lint_files:
        if file not in candidate_set:
            if len(loaded) != len(read_paths):
                loaded = {os.fspath(p) for p in read_paths}
            if file not in loaded:
                continue  # neither parsed nor reached from a handler: nothing to report
        display = display_path(Path(file), cwd)
        try:
            findings, errors = linter.lint_file(Path(file), display, must_parse=file in candidate_set)
        except Exception as err:  # noqa: BLE001 - one file's failure must not stop the run
            outcome.errors.append(f"{display}: internal error: {err.__class__.__name__}: {err}")
            if os.environ.get("FTLINT_DEBUG"):
                import traceback

                traceback.print_exc()
            continue
        outcome.findings.extend(findings)
        outcome.errors.extend(errors)
    outcome.files_parsed = linter.files_parsed
    outcome.read_paths = {os.fspath(p) for p in linter.project.read_paths}
    outcome.texts = {p: linter.project.text_at(Path(p)) for p in outcome.read_paths}
    outcome.probes = linter.project.probe.as_list()
    return outcome


def _too_large_findings(
    too_large: dict[str, int],
    lint_files: list[str],
    found: list[Finding],
    selected: set[str],
    config: Config,
    cwd: Path,
) -> list[Finding]:
    """--exhaustive's FT000 for the linted files past its size limit: one a file (a parse
    failure found while linting it, in `found`, comes first)."""
    if PARSE_ERROR_CODE not in selected:
        return []
    failed = {f.path for f in found if f.code == PARSE_ERROR_CODE}
    findings = []
    for file in lint_files:
        if file in too_large:
            finding = _too_large_finding(file, too_large[file], config, cwd)
            if finding.path not in failed and PARSE_ERROR_CODE not in config.ignored_codes_for(Path(file)):
                findings.append(finding)
    return findings


def _too_large_finding(file: str, size: int, config: Config, cwd: Path) -> Finding:
    limit = config.exhaustive_max_mb
    return failure_finding(
        display_path(Path(file), cwd),
        ParseFailure(
            f"too large to parse with LibCST under --exhaustive ({size / 1e6:.1f} MB > {limit:g} MB): "
            "linted as without --exhaustive (only its fault-path functions parsed); raise the limit "
            "with --exhaustive-max-mb or exhaustive-max-mb"
        ),
    )
