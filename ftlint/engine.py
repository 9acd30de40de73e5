"""One lint run: discover files, find the fault-path code, run the selected rules over
each fault-path file in one batched LibCST visit, then suppress, fix and sort.

Files that cannot define or be reached from a fault handler are never parsed (see
prefilter.py); `exhaustive=True` parses every file instead and must give the same
findings.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from ftlint import parallel_scan
from ftlint.config import Config
from ftlint.discovery import Discovered, discover, iter_python_paths
from ftlint.finding import Finding, Severity
from ftlint.prefilter import Prefilter
from ftlint.source import PARSE_ERROR_CODE, PARSE_ERROR_NAME, ParseFailure, display_path


@dataclass
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    internal_errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the analysis could not follow (--verbose)
    skipped: list = field(default_factory=list)  # discovery.Skipped
    files_linted: int = 0  # Python files discovered for linting
    files_parsed: int = 0  # files parsed with LibCST (lint set and helpers)
    fixed: dict[str, tuple[str, str]] = field(default_factory=dict)  # display path -> (before, after)
    fixes_applied: int = 0
    files_scanned: int = 0  # files the prefilter (or the stat table) looked at
    cache_hit: bool = False  # the findings came from the result cache (nothing parsed)
    texts: dict[str, str | None] = field(default_factory=dict)  # absolute path -> the text linted


def _failure_finding(path: str, failure: ParseFailure, text_lines: list[str] | None = None) -> Finding:
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
    cwd: Path | None = None,
    exhaustive: bool = False,
    force_exclude: bool = False,
    cache_dir: Path | None = None,
) -> LintResult:
    """Lint files and directories as `ftlint check` does (no fixes applied). With
    `cache_dir`, results are read from and written to the result cache there."""
    from ftlint import cache as cachemod
    from ftlint.listing import DirListings

    cwd = Path(os.path.abspath(cwd or Path.cwd()))
    cache = None
    if cache_dir is not None and not exhaustive and not cachemod.disabled_by_env():
        cache = cachemod.Cache(cache_dir)
    listings = DirListings.for_walk(cache, config)
    discovered = discover(
        list(paths) or [cwd], config, force_exclude=force_exclude or config.force_exclude, cwd=cwd, listings=listings
    )
    result = lint_discovered(
        discovered,
        config,
        set(selected),
        cwd=cwd,
        exhaustive=exhaustive,
        explicit=paths,
        cache_dir=cache_dir,
        listings=listings,
    )
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
    explicit: Sequence[Path] = (),
    cache_dir: Path | None = None,
    listings=None,
) -> LintResult:
    """Discovery results to findings. Steps: the project scan (every Python file a handler
    could live in), the byte prefilter (or, warm, the stat table), the result cache, and
    only on a miss LibCST (imported here, never on a cache hit)."""
    from ftlint import cache as cachemod

    result = LintResult(skipped=list(discovered.skipped))
    for error in discovered.errors:
        result.findings.append(
            _failure_finding(display_path(error.path, cwd), ParseFailure(f"cannot read: {error.message}"))
        )
    cwd_str = os.path.abspath(cwd)
    lint_files = [os.path.abspath(os.path.join(cwd_str, f)) for f in discovered.files]
    result.files_linted = len(lint_files)
    explicit_files = {
        os.path.abspath(os.path.join(cwd_str, p)) for p in explicit if os.path.isfile(os.path.join(cwd_str, p))
    }

    in_fault_path_file = config.is_fault_path  # `fault-paths` globs, relative to the root

    cache = None
    if cache_dir is not None and not exhaustive and not cachemod.disabled_by_env():
        cache = cachemod.Cache(cache_dir)
    patterns = config.handler_patterns()
    prefilter = Prefilter(patterns)
    scope = cachemod.digest(cachemod.code_fingerprint(), patterns) if cache is not None else ""
    facts = cachemod.FileFacts(cache, scope, prefilter)
    lint_set = set(lint_files)

    def is_forced(file: str) -> bool:
        # files passed explicitly follow the walk's rule (issue 15): parsed only when they may
        # define a handler (prefilter), match `fault-paths`, or a handler reaches them
        return bool(config.fault_paths and in_fault_path_file(Path(file)))

    walk_root = _project_root_to_walk(lint_files, config, explicit or [cwd], cwd_str)
    linter = None
    # file-existence tests made while linting are dependencies of the cached result
    recorder = cachemod.ProbeRecorder() if cache is not None else None
    early_errors: list[str] = []
    too_large: dict[str, int] = {}
    if exhaustive:
        scan = lint_files + _walk_project(walk_root, lint_set, config, None)
        scanned_count = len(scan)
        # files past exhaustive-max-mb are not parsed whole (LibCST takes minutes and GBs on
        # a 9 MB file): FT000 in the lint set, and handled as a normal run would
        too_large = _too_large(scan, config.exhaustive_max_mb)
        screen = _screen([f for f in scan if f not in too_large], config)  # None: parse all here
        candidates = []
        for file in scan:
            if file in too_large:
                if facts.candidate(file, is_forced(file)):
                    candidates.append(file)
                continue
            status = screen.get(file) if screen is not None else None
            if is_forced(file) or status is None or status == "handler" or (status == "fail" and file in lint_set):
                candidates.append(file)
    else:
        screen = None
        join = None
        if walk_root is not None and explicit_files and _parse_likely(explicit_files & lint_set, facts):
            # pre-commit's call: the walk of the project (I/O) runs in a child while this
            # process imports LibCST. With a cache the walk is mostly stats and the child
            # has time to outline the files given too (this process does it if the child
            # is not done first); without one the child reads every file and is the
            # longer side, so the files given are outlined here.
            given = sorted(explicit_files & lint_set)
            if len(given) <= EARLY_LOAD_LIMIT:  # a commit's few files: prefilter them here
                given = [file for file in given if facts.candidate(file, is_forced(file))]
            else:  # pre-commit's --all-files batches: the child's scan tells which to parse
                given = []
            for_child = given if cache is not None else []
            join = parallel_scan.start(
                lambda: _scan_and_save(
                    lint_files, walk_root, lint_set, is_forced, facts, config, listings, for_child, cache
                )
            )
        if join is not None:
            linter = _new_linter(config, selected, cwd, in_fault_path_file, lint_set, cache=cache)
            if given and not join.ready():
                # rather than wait: the files given are candidates whatever the scan finds,
                # so load them (outline, parse their handlers, follow their helpers) now
                with recorder or nullcontext():
                    early_errors = linter.load([Path(file) for file in given])
            scanned = join()
            if scanned is not None:
                scanned_count, candidates, new_facts, outlines = scanned
                facts.merge(new_facts)
                for text, ops in outlines:
                    linter.project.outline_store.remember(text, ops)
            else:  # the child failed (it never reports why): do it here
                scan, candidates = _scan(lint_files, walk_root, lint_set, is_forced, facts, config, listings)
                scanned_count = len(scan)
        else:
            scan, candidates = _scan(lint_files, walk_root, lint_set, is_forced, facts, config, listings)
            scanned_count = len(scan)
    result.files_scanned = scanned_count

    key = None
    if cache is not None:
        key = cachemod.digest(
            cachemod.code_fingerprint(),
            config.hash(),
            sorted(selected),
            cwd_str,
            os.fspath(config.root),
            lint_files,
            sorted(candidates),
        )
        entry = cache.load_run(key)
        cached = None
        if entry is not None:
            try:
                if cachemod.validate(entry, facts):
                    cached = cachemod.findings_of(entry), list(entry["errors"])
            except Exception:  # noqa: BLE001 - whatever goes wrong replaying an entry is a miss
                cached = None
        if cached is not None:
            facts.save()
            result.findings.extend(cached[0])
            result.internal_errors.extend(cached[1])
            result.cache_hit = True
            result.findings.sort(key=lambda f: f.sort_key)
            return result

    if linter is None:
        linter = _new_linter(
            config,
            selected,
            cwd,
            in_fault_path_file,
            lint_set,
            exhaustive=exhaustive,
            cache=cache,
            outline_always=set(too_large),
        )
    linted = _lint_with_libcst(
        linter, lint_files, candidates, cwd, result, recorder=recorder, early_errors=early_errors
    )
    result.notes = linter.paths.notes
    if too_large:  # one FT000 a file: a parse failure found while linting it comes first
        failed = {f.path for f in result.findings if f.code == PARSE_ERROR_CODE}
        for file in lint_files:
            if file in too_large and PARSE_ERROR_CODE in selected:
                finding = _too_large_finding(file, too_large[file], config, cwd)
                if finding.path not in failed and PARSE_ERROR_CODE not in config.ignored_codes_for(Path(file)):
                    result.findings.append(finding)
    if screen is not None:  # every scanned file was parsed once by the screen
        result.files_parsed = len(set(screen) | linted[2])
    if cache is not None and linted is not None and key is not None:  # key is set whenever cache is
        findings, errors, read_paths, texts, probes = linted
        deps = []
        stable = True
        for path in sorted(read_paths):
            hashed, text = facts.hash_and_text(path)
            expected = texts.get(path)
            if expected is not None and text != expected:
                stable = False  # changed while we linted it: do not cache this run
                break
            deps.append([path, hashed])
        if stable:
            cache.save_run(
                key,
                {
                    "findings": [f.to_dict() for f in findings],
                    "errors": errors,
                    "deps": deps,
                    "probes": probes,
                },
            )
        facts.save()
    result.findings.sort(key=lambda f: f.sort_key)
    return result


def _project_root_to_walk(lint_files: list[str], config: Config, given: Sequence, cwd_str: str) -> str | None:
    """The project root when its other Python files must be scanned too (a handler
    anywhere may reach a helper in a linted file); None when the lint set is all there is
    (no project root, files outside it, or the root itself was walked)."""
    root = os.path.abspath(config.root)
    if config.path is None and not os.path.exists(os.path.join(root, ".git")):
        return None
    prefix = root.rstrip(os.sep) + os.sep
    if not any(f.startswith(prefix) for f in lint_files):
        return None
    if any(os.path.abspath(os.path.join(cwd_str, p)) == root and os.path.isdir(root) for p in given):
        return None  # the root itself was walked: the scan would find the same files
    return root


def _walk_project(root: str | None, known: set[str], config: Config, listings) -> list[str]:
    if root is None:
        return []
    return [p for p in iter_python_paths(root, config, listings=listings) if p not in known]


def _scan(lint_files, walk_root, lint_set, is_forced, facts, config, listings) -> tuple[list[str], list[str]]:
    """(every file scanned, the candidates: forced, unreadable or passing the prefilter)."""
    scan = lint_files + _walk_project(walk_root, lint_set, config, listings)
    return scan, [file for file in scan if facts.candidate(file, is_forced(file))]


def _scan_and_save(lint_files, walk_root, lint_set, is_forced, facts, config, listings, given, cache):
    """_scan for a forked child, which also does what needs no LibCST while the parent
    imports it: writes what it learnt to the cache (the stat-table shards and listings
    it changed) and outlines the files given (outline.py, Python's own parser). Sends
    back how many files it scanned, the candidates, the new stat entries (marked as
    saved) and [text, outline] of the files given."""
    from ftlint.cache import OutlineStore
    from ftlint.outline import outline_ops
    from ftlint.source import ParseFailure, read_text

    scan, candidates = _scan(lint_files, walk_root, lint_set, is_forced, facts, config, listings)
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
    return len(scan), candidates, facts.delta(), outlines


#: Up to this many files given, the parent prefilters them before the project scan
#: starts, and loads the ones that may hold a handler while the scan runs; more (pre-commit
#: passing a batch of `--all-files`) are left to the scan, which reads them anyway.
EARLY_LOAD_LIMIT = 64


def _parse_likely(files: set[str], facts) -> bool:
    """Whether these files will be parsed: no cache, or one changed since the stat table."""
    return facts.cache is None or any(facts.changed(file) for file in files)


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


def _too_large_finding(file: str, size: int, config: Config, cwd: Path) -> Finding:
    limit = config.exhaustive_max_mb
    return _failure_finding(
        display_path(Path(file), cwd),
        ParseFailure(
            f"too large to parse with LibCST under --exhaustive ({size / 1e6:.1f} MB > {limit:g} MB): "
            "linted as without --exhaustive (only its fault-path functions parsed); raise the limit "
            "with --exhaustive-max-mb or exhaustive-max-mb"
        ),
    )


def _new_linter(
    config, selected, cwd, in_fault_path_file, lint_set, *, exhaustive=False, cache=None, outline_always=()
):
    from ftlint.cache import OutlineStore
    from ftlint.lint_runner import FileLinter  # LibCST is imported only when something needs parsing

    return FileLinter(
        config,
        selected,
        cwd=cwd,
        in_fault_path_file=in_fault_path_file,
        lint_set=lint_set,
        outline_lint_set=not exhaustive,
        outline_store=OutlineStore(cache),
        outline_always=outline_always,
    )


def _screen(scan: list[str], config: Config):
    """--exhaustive: parse every file (a process pool past a threshold) and tell which define
    a handler or fail to parse. None below the threshold: the caller parses them all itself."""
    from ftlint.lint_runner import PARALLEL_THRESHOLD, screen_files

    if len(scan) < PARALLEL_THRESHOLD:
        return None
    return screen_files(scan, config.handler_patterns())


def _lint_with_libcst(linter, lint_files, candidates, cwd, result, *, recorder, early_errors=()):
    findings_out: list[Finding] = []
    errors_out: list[str] = list(early_errors)
    candidate_set = set(candidates)
    read_paths = linter.project.read_paths
    loaded: set[str] = set()
    try:
        if recorder is not None:
            recorder.__enter__()
        errors_out.extend(linter.load([Path(c) for c in candidates]))
        # files that only subclass a handler's class inherit it: their overrides count
        others = [Path(f) for f in lint_files if f not in candidate_set]
        errors_out.extend(linter.load(linter.paths.subclass_files(others)))
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
                errors_out.append(f"{display}: internal error: {err.__class__.__name__}: {err}")
                if os.environ.get("FTLINT_DEBUG"):
                    import traceback

                    traceback.print_exc()
                continue
            findings_out.extend(findings)
            errors_out.extend(errors)
    finally:
        if recorder is not None:
            recorder.__exit__(None, None, None)
    result.findings.extend(findings_out)
    result.internal_errors.extend(errors_out)
    result.files_parsed = linter.files_parsed
    read_paths = {os.fspath(p) for p in linter.project.read_paths}
    texts = {p: linter.project.text_at(Path(p)) for p in read_paths}
    result.texts = texts
    return findings_out, errors_out, read_paths, texts, recorder.as_list() if recorder is not None else []


def _is_under(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False
