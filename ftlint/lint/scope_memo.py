"""The scope's answers kept in the result cache (analysis/memo.py's ScopeMemo): a file's
step guards, and whether a guard may reach request state. After an edit, a run whose cache
entry missed rebuilds the fault-path scope; without these, it read every step-guard file of
the project with `ast` again (vLLM's tree: 15 files, about a third of a pre-commit run on
one edited file).

Keys are digests of the module's text, the Python version (its parser made the answer),
ftlint's code and the fault steps. A reach answer also depends on the files it read
(helpers in other modules, their imports' file tests): stored with their content hashes and
probes, and checked as a run entry's dependencies are (cache.validate); any difference, an
entry of the wrong shape or one that does not authenticate is a miss."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from ftlint.core import cache as cachemod
from ftlint.core.cache import Cache, read_bytes
from ftlint.core.digests import blake2b, content_hash, digest
from ftlint.core.source import decode
from ftlint.index.project import Reads
from ftlint.index.step_scan import Guards


class CachedScopeMemo:
    """`where`: what else import resolution depends on (the project root, the working
    directory): part of every key."""

    def __init__(self, cache: Cache, where: tuple[str, ...]) -> None:
        self.cache = cache
        self._salt = digest(cachemod.code_fingerprint(), sys.version_info[:3], where).encode()[:64]

    def _key(self, kind: str, *parts: str) -> str:
        mac = blake2b(digest_size=20, key=self._salt)
        mac.update(kind.encode())
        for part in parts:
            mac.update(b"\0" + part.encode("utf-8", "surrogatepass"))
        return mac.hexdigest()

    # -- a module's step guards ----------------------------------------------------
    def guards(self, text: str, steps: tuple[str, ...]) -> tuple[bool, Guards | None]:
        entry = self.cache.load_scope(self._key("guards", text, *steps))
        if not isinstance(entry, dict) or "guards" not in entry:
            return False, None
        found = _guards_of(entry["guards"])
        if isinstance(found, bool):
            return False, None
        return True, found

    def keep_guards(self, text: str, steps: tuple[str, ...], guards: Guards | None) -> None:
        self.cache.save_scope(self._key("guards", text, *steps), {"guards": guards})

    # -- whether a guard may reach request state --------------------------------------
    def reaches_state(self, path: Path, text: str, qualname: str) -> bool | None:
        entry = self.cache.load_scope(self._key("reach", os.fspath(path), text, qualname))
        if not (isinstance(entry, dict) and type(entry.get("verdict")) is bool and _still_true(entry)):
            return None
        return bool(entry["verdict"])

    def keep_reaches_state(
        self,
        path: Path,
        text: str,
        qualname: str,
        verdict: bool,
        reads: Reads,
        text_at: Callable[[Path], str | None],
    ) -> None:
        """Keep the answer with what it read, unless a file test went unrecorded, a file it
        read is unreadable now or changed since (its text on disk is not the one the answer
        came from)."""
        if not reads.complete:
            return
        deps: list[list[str]] = []
        for read in sorted(reads.paths):
            data = read_bytes(os.fspath(read))
            if data is None or decode(data) != text_at(read):
                return
            deps.append([os.fspath(read), content_hash(data)])
        probes = [[p, kind, found] for (p, kind), found in sorted(reads.probes.items())]
        entry: dict[str, Any] = {"verdict": verdict, "deps": deps, "probes": probes}
        self.cache.save_scope(self._key("reach", os.fspath(path), text, qualname), entry)


class LiveScopeMemo:
    """The reach answers of a workspace's scopes, kept in memory between edits (the language
    server rebuilds the scope after each one). An answer holds while every file it read has
    the version it had (`version`: a file's count of changes, buffers included) and no file
    appeared or went (`layout`: their count), as the workspace's loaded modules do. Step
    guards are kept by StepGuards itself."""

    def __init__(self, version: Callable[[str], int], layout: Callable[[], int]) -> None:
        self._version = version
        self._layout = layout
        #: (path, qualname) -> (module text, verdict, layout, {file read: its version})
        self._reach: dict[tuple[str, str], tuple[str, bool, int, dict[str, int]]] = {}

    def guards(self, text: str, steps: tuple[str, ...]) -> tuple[bool, Guards | None]:
        return False, None

    def keep_guards(self, text: str, steps: tuple[str, ...], guards: Guards | None) -> None:
        return None

    def reaches_state(self, path: Path, text: str, qualname: str) -> bool | None:
        entry = self._reach.get((os.fspath(path), qualname))
        if entry is None:
            return None
        kept_text, verdict, layout, versions = entry
        if kept_text != text or layout != self._layout():
            return None
        if any(self._version(read) != version for read, version in versions.items()):
            return None
        return verdict

    def keep_reaches_state(
        self,
        path: Path,
        text: str,
        qualname: str,
        verdict: bool,
        reads: Reads,
        text_at: Callable[[Path], str | None],
    ) -> None:
        versions = {os.fspath(read): self._version(os.fspath(read)) for read in reads.paths}
        self._reach[os.fspath(path), qualname] = (text, verdict, self._layout(), versions)


def _still_true(entry: dict[str, Any]) -> bool:
    """Whether every file the answer read has the same contents and every file test the
    same result (an entry of another shape: False)."""
    deps, probes = entry.get("deps"), entry.get("probes")
    if not (isinstance(deps, list) and isinstance(probes, list)):
        return False
    for dep in deps:
        if not (isinstance(dep, list) and len(dep) == 2 and type(dep[0]) is str and type(dep[1]) is str):
            return False
        data = read_bytes(dep[0])
        if data is None or content_hash(data) != dep[1]:
            return False
    for probe in probes:
        if not (isinstance(probe, list) and len(probe) == 3 and type(probe[0]) is str and type(probe[2]) is bool):
            return False
        path, kind, expected = probe
        if kind == "f":
            found = os.path.isfile(path)
        elif kind == "e":
            found = os.path.exists(path)
        else:
            return False
        if found != expected:
            return False
    return True


def _guards_of(value: Any) -> Guards | Literal[False] | None:
    """step_scan.Guards from its JSON form; False when it has another shape."""
    if value is None:
        return None
    if not isinstance(value, dict):
        return False
    found: Guards = {}
    for qualname, places in value.items():
        if not (isinstance(qualname, str) and isinstance(places, list)):
            return False
        found[qualname] = []
        for guards in places:
            if not isinstance(guards, list):
                return False
            one = []
            for guard in guards:
                if not (
                    isinstance(guard, list)
                    and len(guard) == 2
                    and type(guard[0]) is int
                    and isinstance(guard[1], list)
                    and all(type(i) is int for i in guard[1])
                ):
                    return False
                one.append((guard[0], tuple(guard[1])))
            found[qualname].append(tuple(one))
    return found


class ScannedScopeMemo:
    """The reach answers the project scan made while it read, for one run without a cache
    (lint/scan.py's shared scan: each side screens the step guards of the files it
    confirmed, analysis/reach.py screened_guards): (path, qualname) -> (the module's text
    then, verdict). An answer holds for the same text; the scan's other reads were of the
    files this run reads. Nothing is kept: the linter's own answers are not asked again."""

    def __init__(self, verdicts: dict[tuple[str, str], tuple[str, bool]]) -> None:
        self.verdicts = verdicts  # filled by the scan, possibly after the linter was made

    def guards(self, text: str, steps: tuple[str, ...]) -> tuple[bool, Guards | None]:
        return False, None

    def keep_guards(self, text: str, steps: tuple[str, ...], guards: Guards | None) -> None:
        return None

    def reaches_state(self, path: Path, text: str, qualname: str) -> bool | None:
        entry = self.verdicts.get((os.fspath(path), qualname))
        return entry[1] if entry is not None and entry[0] == text else None

    def keep_reaches_state(
        self,
        path: Path,
        text: str,
        qualname: str,
        verdict: bool,
        reads: Reads,
        text_at: Callable[[Path], str | None],
    ) -> None:
        return None
