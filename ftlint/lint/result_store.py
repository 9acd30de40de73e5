"""The run entries of the result cache as the engine uses them: a run's key, a lookup
that re-validates every dependency of a stored result, and saving a result with its
dependencies (the files it read, by content hash, and the file-existence tests import
resolution made). Without a cache every lookup misses and nothing is saved; the stat
table (`facts`) still serves the project scan.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ftlint.core import cache as cachemod
from ftlint.core.cache import Cache, FileFacts
from ftlint.core.config import Config
from ftlint.core.digests import blake2b, digest
from ftlint.core.finding import Finding
from ftlint.core.source import decode
from ftlint.index.listing import signature
from ftlint.index.prefilter import Prefilter, files_matching, subclass_pattern
from ftlint.lint.registry import local_fingerprint


def open_cache(cache_dir: Path | None, exhaustive: bool) -> Cache | None:
    """The cache at `cache_dir` for a run, or None (no directory, --exhaustive, or
    FTLINT_NO_CACHE)."""
    if cache_dir is None or exhaustive or cachemod.disabled_by_env():
        return None
    return Cache(cache_dir)


@dataclass
class LintOutcome:
    """What linting the candidates gave, and what it depended on."""

    findings: list[Finding] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # internal errors, one line each
    read_paths: set[str] = field(default_factory=set)  # every file whose contents it read
    texts: dict[str, str | None] = field(default_factory=dict)  # path -> the text linted
    probes: list[list[Any]] = field(default_factory=list)  # [path, kind, answer] (FileProbe.as_list)
    files_parsed: int = 0
    # (handler class names, the lint set's other files that subclass one): the run depends
    # on which files of the lint set do (engine._load_roots); None when no handler is a method
    subclasses: tuple[list[str], list[str]] | None = None


@dataclass
class CachedRun:
    findings: list[Finding]
    errors: list[str]
    subclass_files: list[str]  # the files its run loaded because they subclass a handler's class
    entry: dict[str, Any]  # the run entry as stored


def _run_key(config: Config, selected: Iterable[str], cwd: str, lint_files: list[str], candidates: list[str]) -> str:
    return digest(
        cachemod.code_fingerprint(),
        config.hash(),
        local_fingerprint(config),  # the project's own rules, by content
        sorted(selected),
        cwd,
        os.fspath(config.root),
        lint_files,
        sorted(candidates),
    )


_NO_STAT = (-1, -1, -1, -1)


#: From this many files linted (pre-commit's `--all-files` batches), a run inside a project
#: lints the whole project and caches that: the next batch is served from it.
PROJECT_RUN_MIN_FILES = 64


@dataclass(frozen=True)
class RunQuestion:
    """What the engine asks the store before linting: the run (settings, files, the scan's
    candidates) and whether a run over the whole project may stand for it.

    `project`: the project's Python files (sorted) when a run over all of them may answer
    this one or be made instead (the engine's _project_run; None: it may not). Findings of
    a file do not depend on which other files are linted, so a cached run over the project
    answers any part of it, but for one thing: a file subclassing a handler's class is read
    only when it is linted, so a project run that read one answers only the runs that lint
    it. `whole`: the lint set is the project. `can_widen`: the run's linter may still be
    given the project's files (engine._can_widen)."""

    config: Config
    selected: set[str]
    cwd: str
    lint_files: list[str]
    candidates: list[str]
    project: list[str] | None = None
    whole: bool = False
    can_widen: bool = False


@dataclass
class Plan:
    """The store's answer to a RunQuestion: the files to lint, or the cached answer.

    To lint: `lint_files` (this run's, or with `project` the project's: lint them all and
    keep this run's findings, see in_lint_set), `others` (those of them that are not
    candidates: they may subclass a handler's class) and `key`, the run entry the result
    is saved under (None: no cache). Answered: `answer`, findings and internal errors."""

    lint_files: list[str]
    others: list[str]
    project: list[str] | None = None
    answer: tuple[list[Finding], list[str]] | None = None
    key: str | None = None


class ResultStore:
    """One run's view of the result cache (`cache` None: no cache): the stat table the
    scan reads (`facts`), then one question (plan) and, after linting, save."""

    def __init__(self, cache: Cache | None, patterns: tuple[str, ...], steps: tuple[str, ...] = ()) -> None:
        self.cache = cache
        scope = digest(cachemod.code_fingerprint(), patterns, steps) if cache is not None else ""
        self.facts = FileFacts(cache, scope, Prefilter(patterns, steps))  # the stat table

    def plan(self, question: RunQuestion) -> Plan:
        """A run over many files of a project (or over all of it) is the project's run:
        answered by its entry, or linting the whole project so the next of pre-commit's
        batches is. A run over a few files asks its own entry, then the project's (and
        keeps that answer as its own). Without a project: this run's own entry."""
        project = question.project
        lint_set = set(question.lint_files)
        few = project is not None and not question.whole and len(lint_set) < PROJECT_RUN_MIN_FILES
        if project is not None and not few:
            planned = self._plan_project(question, project, lint_set)
            if planned is not None:
                return planned
            # else a subclass of a handler's class outside these files: lint them alone
        others = _others(question.lint_files, question.candidates)
        key = self._key(question, question.lint_files)
        cached = self._lookup(key, others)
        if cached is not None:
            return Plan(question.lint_files, others, answer=(cached.findings, cached.errors))
        if few and project is not None:  # a few files: a cached run over the project may answer them
            answer = self._lookup(self._key(question, project), _others(project, question.candidates))
            if answer is not None and set(answer.subclass_files) <= lint_set:
                findings, errors = in_lint_set(answer, lint_set, project, question.cwd)
                self._save_answer(key, others, answer, findings, errors)  # found first next time
                return Plan(question.lint_files, others, answer=(findings, errors))
        return Plan(question.lint_files, others, key=key)

    def _plan_project(self, question: RunQuestion, project: list[str], lint_set: set[str]) -> Plan | None:
        """The project's run for a run over many of its files: its cached answer, or lint it
        whole (None: neither, these files are linted alone)."""
        others = _others(project, question.candidates)
        key = self._key(question, project)
        answer = self._lookup(key, others)
        if answer is not None and set(answer.subclass_files) <= lint_set:
            return Plan(project, others, answer=in_lint_set(answer, lint_set, project, question.cwd))
        if question.whole or (answer is None and question.can_widen):
            return Plan(project, others, project, key=key)  # linted whole: the next batch reads it
        return None

    def _key(self, question: RunQuestion, lint_files: list[str]) -> str | None:
        """The run entry of `question` over `lint_files` (None: no cache)."""
        if self.cache is None:
            return None
        return _run_key(question.config, question.selected, question.cwd, lint_files, question.candidates)

    def _lookup(self, key: str | None, others: list[str]) -> CachedRun | None:
        """The stored result under `key` when every dependency is as it was. `others`: the
        lint files that are not candidates (whether they subclass a handler's class is a
        dependency)."""
        if self.cache is None or key is None:
            return None
        return self._replay(self.cache.load_run(key), others)

    def _replay(self, entry: dict[str, Any] | None, others: list[str]) -> CachedRun | None:
        if entry is None:
            return None
        try:
            if not cachemod.validate(entry, self.facts):
                return None
            if "subclasses" in entry and not self._same_subclasses(entry, others):
                return None
            subclass_files = list(entry["subclasses"][2]) if "subclasses" in entry else []
            cached = CachedRun(cachemod.findings_of(entry), list(entry["errors"]), subclass_files, entry)
        except Exception:  # noqa: BLE001 - whatever goes wrong replaying an entry is a miss
            return None
        self.facts.save()
        return cached

    def _save_answer(
        self, key: str | None, others: list[str], project_run: CachedRun, findings: list[Finding], errors: list[str]
    ) -> None:
        """Store what a cached project run answered for this run under this run's own key,
        with the project run's dependencies (the same files read, the same file tests, the
        same subclasses: all in this run's files), so the next such run finds it first."""
        if self.cache is None or key is None:
            return
        stored = project_run.entry
        subclasses = (stored["subclasses"][0], project_run.subclass_files) if "subclasses" in stored else None
        self._save_entry(key, others, findings, errors, stored["deps"], stored["probes"], subclasses)

    def _save_entry(
        self,
        key: str,
        others: list[str],
        findings: list[Finding],
        errors: list[str],
        deps: list[list[Any]],
        probes: list[list[Any]],
        subclasses: tuple[list[str], list[str]] | None,
    ) -> None:
        """Write a run entry under `key` (`subclasses`: handler class names and the other
        files matched; stored with the stat digest of the other files)."""
        assert self.cache is not None
        entry = {"findings": [f.to_dict() for f in findings], "errors": errors, "deps": deps, "probes": probes}
        if subclasses is not None:
            names, matched = subclasses
            entry["subclasses"] = [names, self._stats_of_others(others), matched]
        self.cache.save_run(key, entry)

    def _stats_of_others(self, others: list[str]) -> str:
        """A digest of the stat of the lint set's other files (the scan's, when it made one),
        in their order (the run's key fixes which files they are). A run over a project
        has thousands: the four integers of each stat are hashed as a machine array, not
        written out as JSON; a file that cannot be stat'ed counts as -1s."""
        known = self.facts.new
        stats = [entry[:4] if (entry := known.get(path)) is not None else signature(path) for path in others]
        try:
            packed = array("q", [n for stat in stats for n in stat or _NO_STAT]).tobytes()
        except OverflowError:  # an inode number past 2**63 (some network file systems)
            packed = repr(stats).encode()
        return blake2b(packed, digest_size=20).hexdigest()

    def _same_subclasses(self, entry: dict[str, Any], others: list[str]) -> bool:
        """Whether the lint set's other files subclass a handler's class as they did: when
        none of them changed (by stat), or when they match the same (read again)."""
        names, stats, matched = entry["subclasses"]
        if self._stats_of_others(others) == stats:
            return True
        pattern = subclass_pattern(names)
        return pattern is not None and files_matching(pattern, others) == matched

    def save(self, plan: Plan, outcome: LintOutcome) -> None:
        """Store the result of linting `plan` with its dependencies, unless a file changed
        while it was linted; write the stat table's changed shards."""
        if self.cache is None or plan.key is None:
            return
        deps: list[list[Any]] = []
        stable = True
        for path in sorted(outcome.read_paths):
            hashed, data = self.facts.hash_and_bytes(path)
            expected = outcome.texts.get(path)
            if expected is not None:
                text = decode(data) if data is not None else None
                if text != expected:
                    stable = False  # changed while we linted it: do not cache this run
                    break
            deps.append([path, hashed])
        if stable:
            self._save_entry(
                plan.key, plan.others, outcome.findings, outcome.errors, deps, outcome.probes, outcome.subclasses
            )
        self.facts.save()


def _others(lint_files: list[str], candidates: list[str]) -> list[str]:
    """The lint files that are not candidates, in their order."""
    candidate_set = set(candidates)
    return [f for f in lint_files if f not in candidate_set]


def in_lint_set(
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
