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


class ResultStore:
    """One run's view of the result cache (`cache` None: no cache)."""

    def __init__(self, cache: Cache | None, patterns: tuple[str, ...], steps: tuple[str, ...] = ()) -> None:
        self.cache = cache
        scope = digest(cachemod.code_fingerprint(), patterns, steps) if cache is not None else ""
        self.facts = FileFacts(cache, scope, Prefilter(patterns, steps))  # the stat table
        self._key: str | None = None
        self._others: list[str] = []  # the lint set's files that are not candidates

    def lookup(
        self,
        config: Config,
        selected: Iterable[str],
        cwd: str,
        lint_files: list[str],
        candidates: list[str],
        others: list[str],
    ) -> CachedRun | None:
        """The stored result of this run when every dependency is as it was (the key is
        kept for save). `others`: the lint files that are not candidates (whether they
        subclass a handler's class is a dependency)."""
        if self.cache is None:
            return None
        self._key = _run_key(config, selected, cwd, lint_files, candidates)
        self._others = others
        return self._replay(self.cache.load_run(self._key))

    def lookup_project(
        self, config: Config, selected: Iterable[str], cwd: str, project: list[str], candidates: list[str]
    ) -> CachedRun | None:
        """The stored run over the whole `project` (its sorted files), as lookup does, but
        keeping this run's own key for save (see save_answer)."""
        if self.cache is None:
            return None
        key, others = self._key, self._others
        candidate_set = set(candidates)
        self._others = [f for f in project if f not in candidate_set]
        try:
            return self._replay(self.cache.load_run(_run_key(config, selected, cwd, project, candidates)))
        finally:
            self._key, self._others = key, others

    def _replay(self, entry: dict[str, Any] | None) -> CachedRun | None:
        if entry is None:
            return None
        try:
            if not cachemod.validate(entry, self.facts):
                return None
            if "subclasses" in entry and not self._same_subclasses(entry):
                return None
            subclass_files = list(entry["subclasses"][2]) if "subclasses" in entry else []
            cached = CachedRun(cachemod.findings_of(entry), list(entry["errors"]), subclass_files, entry)
        except Exception:  # noqa: BLE001 - whatever goes wrong replaying an entry is a miss
            return None
        self.facts.save()
        return cached

    def save_answer(self, project_run: CachedRun, findings: list[Finding], errors: list[str]) -> None:
        """Store what a cached project run answered for this run under this run's own key,
        with the project run's dependencies (the same files read, the same file tests, the
        same subclasses: all in this run's files), so the next such run finds it first."""
        if self.cache is None or self._key is None:
            return
        stored = project_run.entry
        subclasses = (stored["subclasses"][0], project_run.subclass_files) if "subclasses" in stored else None
        self._save_entry(findings, errors, stored["deps"], stored["probes"], subclasses)

    def _save_entry(
        self,
        findings: list[Finding],
        errors: list[str],
        deps: list[list[Any]],
        probes: list[list[Any]],
        subclasses: tuple[list[str], list[str]] | None,
    ) -> None:
        """Write a run entry under this run's key (`subclasses`: handler class names and the
        other files matched; stored with the stat digest of the other files)."""
        assert self.cache is not None and self._key is not None
        entry = {"findings": [f.to_dict() for f in findings], "errors": errors, "deps": deps, "probes": probes}
        if subclasses is not None:
            names, matched = subclasses
            entry["subclasses"] = [names, self._stats_of_others(), matched]
        self.cache.save_run(self._key, entry)

    def _stats_of_others(self) -> str:
        """A digest of the stat of the lint set's other files (the scan's, when it made one),
        in their order (the run's key fixes which files they are). A run over a project
        has thousands: the four integers of each stat are hashed as a machine array, not
        written out as JSON; a file that cannot be stat'ed counts as -1s."""
        known = self.facts.new
        stats = [entry[:4] if (entry := known.get(path)) is not None else signature(path) for path in self._others]
        try:
            packed = array("q", [n for stat in stats for n in stat or _NO_STAT]).tobytes()
        except OverflowError:  # an inode number past 2**63 (some network file systems)
            packed = repr(stats).encode()
        return blake2b(packed, digest_size=20).hexdigest()

    def _same_subclasses(self, entry: dict[str, Any]) -> bool:
        """Whether the lint set's other files subclass a handler's class as they did: when
        none of them changed (by stat), or when they match the same (read again)."""
        names, stats, matched = entry["subclasses"]
        if self._stats_of_others() == stats:
            return True
        pattern = subclass_pattern(names)
        return pattern is not None and files_matching(pattern, self._others) == matched

    def save(self, outcome: LintOutcome) -> None:
        """Store the result with its dependencies, unless a file changed while it was
        linted; write the stat table's changed shards."""
        if self.cache is None or self._key is None:
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
            self._save_entry(outcome.findings, outcome.errors, deps, outcome.probes, outcome.subclasses)
        self.facts.save()
