"""The run entries of the result cache as the engine uses them: a run's key, a lookup
that re-validates every dependency of a stored result, and saving a result with its
dependencies (the files it read, by content hash, and the file-existence tests import
resolution made). Without a cache every lookup misses and nothing is saved; the stat
table (`facts`) still serves the project scan.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field

from ftlint.core import cache as cachemod
from ftlint.core.cache import Cache, FileFacts
from ftlint.core.config import Config
from ftlint.core.digests import digest
from ftlint.core.finding import Finding
from ftlint.core.source import decode
from ftlint.index.prefilter import Prefilter


def open_cache(cache_dir, exhaustive: bool) -> Cache | None:
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
    probes: list = field(default_factory=list)  # [path, kind, answer] (FileProbe.as_list)
    files_parsed: int = 0


@dataclass
class CachedRun:
    findings: list[Finding]
    errors: list[str]


class ResultStore:
    """One run's view of the result cache (`cache` None: no cache)."""

    def __init__(self, cache: Cache | None, patterns: tuple[str, ...]) -> None:
        self.cache = cache
        scope = digest(cachemod.code_fingerprint(), patterns) if cache is not None else ""
        self.facts = FileFacts(cache, scope, Prefilter(patterns))  # the stat table
        self._key: str | None = None

    def lookup(
        self, config: Config, selected: Iterable[str], cwd: str, lint_files: list[str], candidates: list[str]
    ) -> CachedRun | None:
        """The stored result of this run when every dependency is as it was (the key is
        kept for save)."""
        if self.cache is None:
            return None
        self._key = digest(
            cachemod.code_fingerprint(),
            config.hash(),
            sorted(selected),
            cwd,
            os.fspath(config.root),
            lint_files,
            sorted(candidates),
        )
        entry = self.cache.load_run(self._key)
        if entry is None:
            return None
        try:
            if not cachemod.validate(entry, self.facts):
                return None
            cached = CachedRun(cachemod.findings_of(entry), list(entry["errors"]))
        except Exception:  # noqa: BLE001 - whatever goes wrong replaying an entry is a miss
            return None
        self.facts.save()
        return cached

    def save(self, outcome: LintOutcome) -> None:
        """Store the result with its dependencies, unless a file changed while it was
        linted; write the stat table's changed shards."""
        if self.cache is None or self._key is None:
            return
        deps = []
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
            self.cache.save_run(
                self._key,
                {
                    "findings": [f.to_dict() for f in outcome.findings],
                    "errors": outcome.errors,
                    "deps": deps,
                    "probes": outcome.probes,
                },
            )
        self.facts.save()
