"""The result cache (like ruff's `.ruff_cache`): standard library only, never imports LibCST.

Four kinds of entries, all plain JSON behind a checksum line:

* a *stat table* per project scan (file name from ftlint's code fingerprint and the
  handler patterns): absolute path -> [mtime_ns, size, inode, ctime_ns, prefilter bit,
  content hash or ""]. A warm run stats files instead of reading them. Files modified
  less than `RACY_NS` before the run started keep only their content hash (git's "racy
  timestamp" rule: a second write within the same clock tick would keep its stat).
  The table is split in `STAT_SHARDS` files by directory, each read when a file in it
  is first asked about and written only when an entry in it changed: a pre-commit run
  on one edited file reads and writes one shard, not the 6,000 entries of a project.
  Tables of scopes older than the last `MAX_STAT_TABLES` are removed;
* *directory listings* (listing.py): what the walker kept of each directory, reused
  while the directory and the ignore files that apply to it keep their stat;
* a *run entry* per (code fingerprint, config hash, selected codes, working directory,
  lint set, candidate set): the linter's findings and internal errors, plus everything
  they depended on: `deps` = [path, content hash] of every file the run read (handler
  files and the helpers reached from them, in any file), `probes` = [path, kind, result]
  of every file-existence test import resolution made. A lookup re-validates all of
  them; any difference is a miss (so a changed helper invalidates its callers);
* *outlines* (outline.py) keyed on a file's text, the Python version and ftlint's code:
  after an edit, the helpers a handler reaches are not parsed again.

Safe under concurrent runs: every write goes to a temporary file in the same directory
and is moved into place with `os.replace`; readers ignore entries that are missing,
truncated, corrupt or of another format. Writes that fail (read-only file system) are
ignored. `FTLINT_NO_CACHE=1` (or `--no-cache`) disables the cache.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import zlib
from pathlib import Path
from typing import Optional

try:  # hashlib's blake2b without hashlib's OpenSSL start-up (~4 ms of a pre-commit run)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python without the builtin module
    from hashlib import blake2b

FORMAT = 1
STAT_SHARDS = 16
RACY_NS = 2_000_000_000
MAX_RUN_ENTRIES = 512
MAX_OUTLINE_ENTRIES = 4096
MAX_STAT_TABLES = 4  # scopes (ftlint code x handler patterns) whose stat tables are kept
_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by ftlint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)
_MISSING = "!"  # hash of a file that cannot be read


def disabled_by_env() -> bool:
    return os.environ.get("FTLINT_NO_CACHE", "").strip().lower() not in ("", "0", "false", "no")


def content_hash(data: bytes) -> str:
    return blake2b(data, digest_size=16).hexdigest()


def digest(*parts: object) -> str:
    blob = json.dumps(parts, sort_keys=True, default=str, separators=(",", ":"))
    return blake2b(blob.encode("utf-8", "surrogateescape"), digest_size=20).hexdigest()


_fingerprint: Optional[str] = None


def code_fingerprint() -> str:
    """ftlint's version and the stat of its own modules and rules (a rule edited in a
    development checkout invalidates the cache without a version bump)."""
    global _fingerprint
    if _fingerprint is None:
        from importlib.util import find_spec

        import ftlint

        dirs = [os.path.dirname(os.path.abspath(ftlint.__file__))]
        try:
            spec = find_spec("ftlint.rules")
            if spec is not None and spec.submodule_search_locations:
                dirs.extend(spec.submodule_search_locations)
        except (ImportError, ValueError):  # pragma: no cover
            pass
        files = []
        for directory in dirs:
            try:
                with os.scandir(directory) as it:
                    for entry in it:
                        if entry.name.endswith(".py"):
                            st = entry.stat()
                            files.append((entry.path, st.st_mtime_ns, st.st_size))
            except OSError:
                files.append((directory, None, None))
        _fingerprint = digest(FORMAT, ftlint.__version__, sorted(files))
    return _fingerprint


def stat_signature(st: os.stat_result) -> list:
    return [st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns]


class Cache:
    """One cache directory. Methods never raise for a bad or missing cache."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(os.path.abspath(directory))
        self.started_ns = time.time_ns()
        self._ready = False
        self._pruned: set[str] = set()  # what this run has pruned already (once is enough)

    # -- files -----------------------------------------------------------------
    def _ensure(self) -> bool:
        if self._ready:
            return True
        try:
            # os.path, not Path: ProbeRecorder records Path.exists calls made while linting
            os.makedirs(self.directory / "runs", exist_ok=True)
            os.makedirs(self.directory / "outlines", exist_ok=True)
            tag = self.directory / "CACHEDIR.TAG"
            if not os.path.exists(tag):
                self._write(tag, _TAG)
            ignore = self.directory / ".gitignore"
            if not os.path.exists(ignore):
                self._write(ignore, "# Automatically created by ftlint.\n*\n")
        except OSError:
            return False
        self._ready = True
        return True

    @staticmethod
    def _write(path: Path, text: str) -> None:
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.{time.monotonic_ns()}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, path)
        finally:
            try:
                os.unlink(tmp)
            except OSError:
                pass

    def _store(self, path: Path, payload: object) -> None:
        if not self._ensure():
            return
        body = json.dumps(payload, separators=(",", ":"))
        check = blake2b(body.encode("utf-8"), digest_size=16).hexdigest()
        try:
            self._write(path, f"ftlint-cache {FORMAT} {check}\n{body}")
        except OSError:
            pass

    @staticmethod
    def _load(path: Path):
        try:
            with open(path, "r", encoding="utf-8") as fh:
                text = fh.read()
            head, _, body = text.partition("\n")
            magic, version, check = head.split(" ")
            if magic != "ftlint-cache" or version != str(FORMAT):
                return None
            if blake2b(body.encode("utf-8"), digest_size=16).hexdigest() != check:
                return None
            return json.loads(body)
        except (OSError, ValueError, UnicodeError):
            return None

    # -- stat table ------------------------------------------------------------
    def stat_path(self, scope: str, shard: int) -> Path:
        return self.directory / f"stat-{scope}-{shard:x}.json"

    def load_stats(self, scope: str, shard: int) -> dict:
        data = self._load(self.stat_path(scope, shard))
        return data if isinstance(data, dict) else {}

    def save_stats(self, scope: str, shard: int, entries: dict) -> None:
        limit = self.started_ns - RACY_NS
        keep = {}
        for path, entry in entries.items():
            if isinstance(entry, list) and len(entry) == 6 and isinstance(entry[0], int):
                # a file modified too recently for its stat to vouch for its contents keeps
                # only its content hash (a stat of zeros never matches: it is re-read)
                keep[path] = entry if entry[0] < limit else [0, 0, 0, 0, entry[4], entry[5]]
        self._store(self.stat_path(scope, shard), keep)
        if self._first_time("stat tables"):
            self._prune_stat_tables()

    def _prune_stat_tables(self) -> None:
        """Keep the stat tables of the MAX_STAT_TABLES scopes written last. A scope changes
        with ftlint's code (every upgrade, every edit of a development checkout) and with
        the handler patterns; an old one is never read again, and each is 16 files."""
        try:
            with os.scandir(self.directory) as it:
                tables = [
                    (entry.name[len("stat-") : -len(".json")].split("-")[0], entry.path, entry.stat().st_mtime_ns)
                    for entry in it
                    if entry.name.startswith("stat-") and entry.name.endswith(".json")
                ]
        except OSError:
            return
        newest: dict[str, int] = {}
        for scope, _, mtime in tables:
            newest[scope] = max(newest.get(scope, 0), mtime)
        keep = set(sorted(newest, key=newest.__getitem__, reverse=True)[:MAX_STAT_TABLES])
        for scope, path, _ in tables:
            if scope not in keep:
                try:
                    os.unlink(path)
                except OSError:
                    pass

    # -- directory listings (listing.py) ----------------------------------------
    def listings_path(self, scope: str) -> Path:
        return self.directory / f"listing-{scope}.json"

    def load_listings(self, scope: str):
        return self._load(self.listings_path(scope))

    def save_listings(self, scope: str, payload: dict) -> None:
        self._store(self.listings_path(scope), payload)

    # -- run entries -----------------------------------------------------------
    def run_path(self, key: str) -> Path:
        return self.directory / "runs" / f"{key}.json"

    def load_run(self, key: str) -> Optional[dict]:
        data = self._load(self.run_path(key))
        if not isinstance(data, dict):
            return None
        if not all(isinstance(data.get(k), list) for k in ("findings", "errors", "deps", "probes")):
            return None
        return data

    def save_run(self, key: str, entry: dict) -> None:
        self._store(self.run_path(key), entry)
        if self._first_time("runs"):
            self._prune(self.directory / "runs", MAX_RUN_ENTRIES)

    # -- outlines ------------------------------------------------------------------
    def outline_path(self, key: str) -> Path:
        return self.directory / "outlines" / f"{key}.json"

    def load_outline(self, key: str):
        data = self._load(self.outline_path(key))
        ops = data.get("ops") if isinstance(data, dict) else None
        return ops if isinstance(ops, list) or ops is False else None

    def save_outline(self, key: str, ops) -> None:
        self._store(self.outline_path(key), {"ops": ops})
        if self._first_time("outlines"):
            self._prune(self.directory / "outlines", MAX_OUTLINE_ENTRIES)

    def _first_time(self, what: str) -> bool:
        """True once per run and `what`: pruning a directory once a run is enough."""
        if what in self._pruned:
            return False
        self._pruned.add(what)
        return True

    @staticmethod
    def _prune(directory: Path, limit: int) -> None:
        """Drop the oldest entries past `limit`."""
        try:
            with os.scandir(directory) as it:
                entries = [(e.stat().st_mtime_ns, e.path) for e in it if e.name.endswith(".json")]
        except OSError:
            return
        if len(entries) <= limit:
            return
        entries.sort()
        for _, path in entries[: len(entries) - limit]:
            try:
                os.unlink(path)
            except OSError:
                pass


class OutlineStore:
    """outline.outline_module's outlines by text: those made in this run (the forked scan
    outlines the files given while the parent imports LibCST) and, with a cache, those
    of earlier runs, keyed by a digest of the text, the Python version (its parser makes
    the outline) and ftlint's code fingerprint."""

    def __init__(self, cache: Optional[Cache] = None) -> None:
        self.cache = cache
        self._known: dict[str, object] = {}
        self._salt = digest(code_fingerprint(), sys.version_info[:3]).encode()[:64] if cache is not None else b""

    def _key(self, text: str) -> str:
        return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20, key=self._salt).hexdigest()

    def load(self, text: str):
        ops = self._known.get(text)
        if ops is None and self.cache is not None:
            ops = self.cache.load_outline(self._key(text))
        return ops

    def save(self, text: str, ops) -> None:
        """Keep an outline this process made (and write it to the cache)."""
        self._known[text] = ops
        if self.cache is not None:
            self.cache.save_outline(self._key(text), ops)

    def remember(self, text: str, ops) -> None:
        """Keep an outline made elsewhere in this run (written to the cache there)."""
        self._known[text] = ops


def stat_shard(path: str) -> int:
    """The stat-table shard of a file: by its directory, so a project's neighbours share one."""
    return zlib.crc32(os.path.dirname(path).encode("utf-8", "surrogateescape")) % STAT_SHARDS


class FileFacts:
    """Stat, prefilter bit and content hash of files, through the stat table when there is
    one (without a cache: just read and prefilter)."""

    def __init__(self, cache: Optional[Cache], scope: str, prefilter) -> None:
        self.cache = cache
        self.scope = scope
        self.prefilter = prefilter
        self._stored: dict[int, dict] = {}  # shards read so far
        self.new: dict = {}
        self._dirty: set[int] = set()  # shards with entries the stored ones lack

    def _shard(self, shard: int) -> dict:
        stored = self._stored.get(shard)
        if stored is None:
            stored = self._stored[shard] = self.cache.load_stats(self.scope, shard) if self.cache is not None else {}
        return stored

    def stored(self, path: str) -> Optional[list]:
        """The stat table's entry for `path` (its shard is read on first use)."""
        return self._shard(stat_shard(path)).get(path)

    def _entry(self, path: str, st: os.stat_result) -> Optional[list]:
        """The stored entry when the file's stat is unchanged."""
        known = self.new.get(path) or self.stored(path)
        if isinstance(known, list) and len(known) == 6 and known[:4] == stat_signature(st):
            self.new[path] = known
            return known
        return None

    def changed(self, path: str) -> bool:
        """Whether the file's contents may differ from what the stat table knows: its stat
        differs and so does its content hash (when the table has one), or it is unknown."""
        try:
            if self._entry(path, os.stat(path)) is not None:
                return False
        except OSError:
            return True
        known = self.stored(path)
        if not (isinstance(known, list) and len(known) == 6 and known[5]):
            return True
        got = read_file(path)
        return got is None or content_hash(got[0]) != known[5]

    def delta(self) -> tuple[dict, set]:
        """What this object learnt that the stored table did not hold (for a scan run in
        another process; see merge), and the shards still to write. Entries reused
        unchanged stay behind: the table written at the end keeps them anyway, and
        sending 6,000 of them costs more than the scan saves."""
        return {p: e for p, e in self.new.items() if self.stored(p) is not e}, set(self._dirty)

    def merge(self, delta: tuple[dict, set]) -> None:
        new, dirty = delta
        self.new.update(new)
        self._dirty |= dirty

    def _record(self, path: str, st: os.stat_result, data: bytes, hashed: Optional[str] = None) -> list:
        """Remember what the file is now; without `hashed`, the content hash is kept for a
        file passing the prefilter only (a candidate: its hash is a dependency of the run)."""
        bit = self.prefilter.matches(data)
        if hashed is None:
            hashed = content_hash(data) if bit else ""
        entry = [*stat_signature(st), bit, hashed]
        known = self.new.get(path) or self.stored(path)
        self.new[path] = entry
        if entry != known:
            self._dirty.add(stat_shard(path))
        return entry

    def candidate(self, path: str, forced: bool) -> bool:
        """Whether the file must be parsed: forced, unreadable, or its bytes pass the prefilter."""
        if forced:
            return True
        if self.cache is None:
            got = read_file(path)
            return got is None or self.prefilter.matches(got[0])
        try:
            entry = self._entry(path, os.stat(path))
        except OSError:
            return True
        if entry is None:
            got = read_file(path)
            if got is None:
                return True
            data, st = got
            entry = self._record(path, st, data)
        return bool(entry[4])

    def hash_of(self, path: str) -> str:
        """Content hash now (stat table when the stat matches, else read and hash)."""
        try:
            entry = self._entry(path, os.stat(path))
        except OSError:
            return _MISSING
        if entry is not None and entry[5]:
            return entry[5]
        return self.hash_and_text(path)[0]

    def hash_and_text(self, path: str) -> tuple[str, Optional[str]]:
        """Read now: (content hash, decoded text or None)."""
        from ftlint.source import decode

        got = read_file(path)
        if got is None:
            return _MISSING, None
        data, st = got
        hashed = content_hash(data)
        self._record(path, st, data, hashed)
        text = decode(data)
        return hashed, text if isinstance(text, str) else None

    def save(self) -> None:
        """Write the shards that changed: what they held, updated with what this run learnt."""
        if self.cache is None or not self._dirty:
            return
        learnt: dict[int, dict] = {shard: {} for shard in self._dirty}
        for path, entry in self.new.items():
            mine = learnt.get(stat_shard(path))
            if mine is not None:
                mine[path] = entry
        for shard, entries in sorted(learnt.items()):
            self.cache.save_stats(self.scope, shard, {**self._shard(shard), **entries})
        self._dirty.clear()


def read_file(path: str) -> Optional[tuple[bytes, os.stat_result]]:
    """(bytes, stat) with one open, one fstat and (usually) one read; None when unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        data = os.read(fd, st.st_size + 1)
        if len(data) > st.st_size:  # grew since fstat: read the rest
            chunks = [data]
            while True:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
            data = b"".join(chunks)
        return data, st
    except OSError:
        return None
    finally:
        os.close(fd)


def validate(entry: dict, facts: FileFacts) -> bool:
    """Whether every dependency of a run entry is as it was."""
    try:
        for path, hashed in entry["deps"]:
            if facts.hash_of(path) != hashed:
                return False
        for path, kind, expected in entry["probes"]:
            found = os.path.isfile(path) if kind == "f" else os.path.exists(path)
            if found != expected:
                return False
    except (TypeError, ValueError):
        return False
    return True


_probe_lock = threading.Lock()
_probe_sinks: list["ProbeRecorder"] = []
_probe_saved: Optional[tuple] = None


def _recording(method, kind: str):
    def wrapper(path, *args, **kwargs):
        found = method(path, *args, **kwargs)
        if _probe_sinks:
            key = (os.path.abspath(path), kind)
            for sink in list(_probe_sinks):
                sink.probes[key] = found
        return found

    return wrapper


class ProbeRecorder:
    """Records the file-existence tests (`Path.is_file`, `Path.exists`) made while linting:
    import resolution depends on files that do not exist too. The wrappers are installed
    while at least one recorder is active (thread-safe; concurrent runs in one process
    each see every probe, which only adds dependencies)."""

    def __init__(self) -> None:
        self.probes: dict[tuple[str, str], bool] = {}

    def __enter__(self) -> "ProbeRecorder":
        global _probe_saved
        with _probe_lock:
            if not _probe_sinks:
                _probe_saved = (Path.is_file, Path.exists)
                Path.is_file = _recording(_probe_saved[0], "f")
                Path.exists = _recording(_probe_saved[1], "e")
            _probe_sinks.append(self)
        return self

    def __exit__(self, *exc) -> None:
        global _probe_saved
        with _probe_lock:
            _probe_sinks.remove(self)
            if not _probe_sinks and _probe_saved is not None:
                Path.is_file, Path.exists = _probe_saved
                _probe_saved = None

    def as_list(self) -> list:
        return [[path, kind, found] for (path, kind), found in sorted(self.probes.items())]
