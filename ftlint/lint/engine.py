"""One lint run (`lint_paths`), top to bottom:

1. discover: the files named, walked (index/discovery.py);
2. scan: which files of the project may define a fault handler, the candidates (scan.py:
   the byte prefilter or, warm, the stat table; `--exhaustive` parses every file);
3. plan: one question to the result store (result_store.py): "these files to lint, or
   this cached answer"; a run over many files of a project may be answered by, or lint,
   the project's run (pre-commit's batches);
4. lint: load the candidates and the scope they reach, then lint each file of the plan
   (lint_runner.py: LibCST, imported only here, never on a cache hit);
5. save: the result with what it depended on; then sort.

Should the project's run read a file outside this run's files (one subclassing a
handler's class), its findings are not this run's: the run plans again and lints its
own files alone (_lint_alone). Files that cannot define or be reached from a fault
handler are never parsed (see prefilter.py); `exhaustive=True` parses every file instead
and must give the same findings. The scan and the store answer questions; neither calls
back into this module.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ftlint.core.cache import Cache
from ftlint.core.config import Config
from ftlint.core.finding import Finding
from ftlint.core.source import PARSE_ERROR_CODE, ParseFailure, display_path, failure_finding
from ftlint.index.discovery import Discovered, Skipped, discover, project_root_to_walk, walks_whole_project
from ftlint.index.prefilter import Prefilter, class_names_defined, files_matching, subclass_pattern
from ftlint.lint.result_store import LintOutcome, Plan, ResultStore, RunQuestion, in_lint_set, open_cache
from ftlint.lint.scan import LinterSpec, ScanFiles, Scanned, scan

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
    run = _Run(config, set(selected), cwd, exhaustive, paths, cache, listings, keep_scope)
    result = _lint(discovered, run)
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
    return _lint(discovered, _Run(config, set(selected), cwd, exhaustive, explicit, cache, listings, keep_scope))


@dataclass(frozen=True)
class _Run:
    """A run's settings: what lint_paths was given, the cache and the discovery's listings."""

    config: Config
    selected: set[str]
    cwd: Path
    exhaustive: bool
    explicit: Sequence[Path | str]  # the paths named (none: the working directory)
    cache: Cache | None
    listings: DirListings | None
    keep_scope: bool


def _lint(discovered: Discovered, run: _Run) -> LintResult:
    """Scan, plan, lint, save (see the module's doc)."""
    result = _new_result(discovered, run.cwd)
    given = [os.path.abspath(os.path.join(run.cwd, p)) for p in run.explicit or [run.cwd]]
    lint_files = list(discovered.absolute)
    files = ScanFiles(run.config, lint_files, set(given), project_root_to_walk(lint_files, run.config, given))
    store = ResultStore(run.cache, run.config.handler_patterns(), run.config.fault_steps)
    linters = LinterSpec(run.config, run.selected, run.cwd, files.lint_set, run.cache, run.exhaustive)
    scanned = scan(files, store.facts, run.listings, exhaustive=run.exhaustive, linters=linters)
    result.files_scanned = scanned.count

    question = _question(run, files, scanned, whole=walks_whole_project(run.config, given))
    plan = store.plan(question)
    if plan.answer is not None:
        return _answered(result, run, scanned, plan, linters)
    outcome = _without_fault_path(run, scanned, plan)
    if outcome is not None:
        store.save(plan, outcome)
        return _linted(result, run, files, scanned, plan, outcome, None)
    linter = scanned.linter if scanned.linter is not None else linters.make(scanned.too_large, scanned.memo)
    outcome = _lint_plan(plan, scanned, linter, run.cwd)
    store.save(plan, outcome)
    if plan.project is not None and not _within(outcome, files.lint_set):
        return _lint_alone(result, run, files, store, scanned, linters, replace(question, project=None))
    return _linted(result, run, files, scanned, plan, outcome, linter)


def _lint_alone(
    result: LintResult,
    run: _Run,
    files: ScanFiles,
    store: ResultStore,
    scanned: Scanned,
    linters: LinterSpec,
    question: RunQuestion,
) -> LintResult:
    """After a project run that read a file outside this run's (one subclassing a handler's
    class): a run over these files alone does not read it, so the project's findings are
    not this run's (cached for the runs that lint it). Plan, lint and save these files
    alone, with a linter of their own."""
    plan = store.plan(question)
    if plan.answer is not None:
        return _answered(result, run, scanned, plan, linters)
    linter = linters.make(scanned.too_large, scanned.memo)
    outcome = _lint_plan(plan, scanned, linter, run.cwd)
    store.save(plan, outcome)
    return _linted(result, run, files, scanned, plan, outcome, linter)


def _without_fault_path(run: _Run, scanned: Scanned, plan: Plan) -> LintOutcome | None:
    """The outcome of a run whose files hold no fault path, found without LibCST (never
    imported then); None when the linter must decide. No candidate: nothing can be a
    fault path. Else the candidates' scope as Python's `ast` reaches it
    (analysis/reach.py, a superset of the linter's: step guards included) holds no function
    of the plan's files, none of which may define a handler or subclasses a handler's
    class (a file that is a candidate for its step calls alone is decided by the scope:
    vLLM's serving code calls a parser's `step()`). A linter the scan already made, a
    scope kept for the caller, `fault-paths` and --exhaustive take the linter's way."""
    if scanned.linter is not None or run.keep_scope or scanned.too_large or run.exhaustive:
        return None
    if not scanned.candidates:
        return LintOutcome(errors=list(scanned.early_errors))
    lint = set(plan.lint_files)
    linted_candidates = lint.intersection(scanned.candidates)
    if run.config.fault_paths or _may_define_handler(linted_candidates, run.config.handler_patterns()):
        return None
    from ftlint.analysis.reach import reach
    from ftlint.index.outline import OutlineStore
    from ftlint.index.project import FileProbe, Project

    project = Project(
        run.config.root,
        run.cwd,
        outline_only=lambda path: True,
        outline_store=OutlineStore(run.cache),
        probe=FileProbe(record=run.cache is not None),
    )
    project.ast_only = True
    # LibCST reads none of these outlines: a file nested too deeply for it is outlined as
    # any other (reach's scope still holds the linter's, which leaves such a file out), so
    # the check is skipped, its cost most of the walk's on a big file; with a cache the
    # outlines are saved for the linter's runs, and those are checked
    project.check_nesting = run.cache is not None or bool(linted_candidates)
    # the plan's other files are matched for subclasses of a handler's class in a child
    # meanwhile (every class the candidates define, narrowed below), as the linter does
    subclass_scan = _start_subclass_scan(plan.others, scanned.candidates, run.config.handler_patterns())
    found = reach(project, scanned.candidates, run.config.handler_patterns(), run.config.fault_steps, scanned.memo)
    if found is None or not lint.isdisjoint(found.files()):
        if subclass_scan is not None:
            subclass_scan.matched.abandon()  # the linter's way matches them again
        return None
    names = sorted(found.handler_classes)
    if _subclassing(names, plan.others, subclass_scan):
        return None
    read = {os.fspath(p) for p in project.read_paths}
    return LintOutcome(
        errors=list(scanned.early_errors),
        read_paths=read,
        texts={p: project.text_at(Path(p)) for p in read},
        probes=project.probe.as_list(),
        subclasses=(names, []) if names else None,
    )


def _may_define_handler(files: set[str], patterns: tuple[str, ...]) -> bool:
    """Whether one of these files may define a handler, by its bytes (prefilter.py); a file
    that cannot be read may."""
    if not files:
        return False
    prefilter = Prefilter(patterns)
    return any(prefilter.file_defines_handler(file) for file in files)


def _question(run: _Run, files: ScanFiles, scanned: Scanned, *, whole: bool) -> RunQuestion:
    """The run as the result store is asked about it (`whole`: the lint set is the
    project). A project run needs a cache, and a scope kept for the caller is this run's
    own."""
    project_runs = run.cache is not None and not run.keep_scope
    return RunQuestion(
        run.config,
        run.selected,
        os.path.abspath(run.cwd),
        files.lint_files,
        scanned.candidates,
        project=_project_run(files, scanned, whole) if project_runs else None,
        whole=whole,
        can_widen=_can_widen(scanned.linter),
    )


def _new_result(discovered: Discovered, cwd: Path) -> LintResult:
    """The result as discovery leaves it: the skipped files, those it could not read."""
    result = LintResult(skipped=list(discovered.skipped))
    for error in discovered.errors:
        result.findings.append(
            failure_finding(display_path(error.path, cwd), ParseFailure(f"cannot read: {error.message}"))
        )
    result.files_linted = len(discovered.absolute)
    return result


def _answered(result: LintResult, run: _Run, scanned: Scanned, plan: Plan, linters: LinterSpec) -> LintResult:
    """The result the cache answered (with `keep_scope`: the same candidates the cached run
    loaded, loaded again; its errors are cached)."""
    assert plan.answer is not None
    if run.keep_scope:
        linter = scanned.linter if scanned.linter is not None else linters.make(scanned.too_large, scanned.memo)
        _load_roots(linter, scanned.candidates, plan.others)
        result.scope = linter
    findings, errors = plan.answer
    result.findings.extend(findings)
    result.internal_errors.extend(errors)
    result.cache_hit = True
    result.findings.sort(key=lambda f: f.sort_key)
    return result


def _linted(
    result: LintResult,
    run: _Run,
    files: ScanFiles,
    scanned: Scanned,
    plan: Plan,
    outcome: LintOutcome,
    linter: FileLinter | None,
) -> LintResult:
    """The result of linting `plan` (a project run's findings narrowed to this run's files;
    `linter` None: its files hold no fault path, _without_fault_path)."""
    if plan.project is not None:
        findings, errors = in_lint_set(outcome, files.lint_set, plan.project, os.path.abspath(run.cwd))
    else:
        findings, errors = outcome.findings, outcome.errors
    result.findings.extend(findings)
    result.internal_errors.extend(errors)
    result.files_parsed = outcome.files_parsed
    result.texts = outcome.texts
    if linter is not None:
        result.notes = linter.fault_paths.notes
        if run.keep_scope:
            result.scope = linter
    if scanned.too_large:
        result.findings.extend(
            _too_large_findings(scanned.too_large, plan.lint_files, result.findings, run.selected, run.config, run.cwd)
        )
    if scanned.screen is not None:  # every scanned file was parsed once by the screen
        result.files_parsed = len(set(scanned.screen) | outcome.read_paths)
    result.findings.sort(key=lambda f: f.sort_key)
    return result


def _lint_plan(plan: Plan, scanned: Scanned, linter: FileLinter, cwd: Path) -> LintOutcome:
    """Lint the plan's files (for a project run, the project's: given to the linter first)."""
    if plan.project is not None and linter.lint_set is not None:
        linter.lint_set.update(plan.project)
    # the files that may subclass a handler's class are read in a child while this process
    # loads the candidates
    subclass_scan = _start_subclass_scan(plan.others, scanned.candidates, linter.config.handler_patterns())
    return _lint_candidates(
        linter, plan.lint_files, scanned.candidates, plan.others, cwd, scanned.early_errors, subclass_scan
    )


def _within(outcome: LintOutcome, lint_set: set[str]) -> bool:
    """Whether the files a run read because they subclass a handler's class are all in the
    lint set (or it read none)."""
    return outcome.subclasses is None or set(outcome.subclasses[1]) <= lint_set


def _project_run(files: ScanFiles, scanned: Scanned, whole_project: bool) -> list[str] | None:
    """The project's Python files (sorted), when the run's findings may be taken from a
    run over all of them (result_store.RunQuestion): the lint set is the project, or a
    part of the project's walk."""
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


#: Below this many other files, reading them in-process costs less than a fork.
SUBCLASS_FORK_THRESHOLD = 256


@dataclass
class _SubclassScan:
    """The lint set's other files matched, in a forked child, against every class the
    candidates define (a superset of the handler classes, known only once they are parsed)."""

    names: set[str]
    matched: Forked


def _start_subclass_scan(others: list[str], candidates: list[str], patterns: tuple[str, ...]) -> _SubclassScan | None:
    from ftlint.lint import parallel_scan

    if len(others) < SUBCLASS_FORK_THRESHOLD or not parallel_scan.available():
        return None
    names = class_names_defined(candidates, patterns)
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
    matched = _subclassing(names, others, subclass_scan)
    if not names:
        return errors
    errors.extend(linter.load([Path(f) for f in matched]))
    if outcome is not None:
        outcome.subclasses = (names, matched)
    return errors


def _subclassing(names: list[str], others: list[str], subclass_scan: _SubclassScan | None) -> list[str]:
    """The files among `others` that subclass one of the classes `names` (a handler's): the
    forked child's matches narrowed to them, or, with no child or a class its byte pattern
    could not name, `others` read here. The child is reaped either way (stopped when no
    class is asked for)."""
    pattern = subclass_pattern(names)
    if pattern is None:
        if subclass_scan is not None:
            subclass_scan.matched.abandon()
        return []
    found = subclass_scan.matched() if subclass_scan is not None else None  # None: it failed
    if found is None or subclass_scan is None or not set(names) <= subclass_scan.names:
        found = others
    return files_matching(pattern, found)


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
