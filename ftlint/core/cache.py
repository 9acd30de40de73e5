"""The result cache (like ruff's `.ruff_cache`): standard library only, never imports LibCST.

Five kinds of entries, each a JSON file in its own subdirectory of the cache directory:

* `stat/`: a *stat table* per project scan (file name from ftlint's code fingerprint and
  the handler patterns): absolute path -> [mtime_ns, size, inode, ctime_ns, prefilter
  bit, content hash or ""]. A warm run stats files instead of reading them. Files
  modified less than `RACY_NS` before the run started keep only their content hash
  (git's "racy timestamp" rule: a second write within the same clock tick would keep its
  stat). The table is split in `STAT_SHARDS` files by directory, each read when a file
  in it is first asked about and written only when an entry in it changed: a pre-commit
  run on one edited file reads and writes one shard, not the 6,000 entries of a project.
  Tables of scopes older than the last `MAX_STAT_TABLES` are removed;
* `listings/`: *directory listings* (listing.py): what the walker kept of each
  directory, reused while the directory and the ignore files that apply to it keep
  their stat;
* `runs/`: a *run entry* per (code fingerprint, config hash, selected codes, working
  directory, lint set, candidate set): the linter's findings and internal errors, plus
  everything they depended on: `deps` = [path, content hash] of every file the run read
  (handler files and the helpers reached from them, in any file), `probes` = [path, kind,
  result] of every file-existence test import resolution made. A lookup re-validates all
  of them; any difference is a miss (so a changed helper invalidates its callers);
* `outlines/`: *outlines* (outline.py) keyed on a file's text, the Python version and
  ftlint's code: after an edit, the helpers a handler reaches are not parsed again.
* `scope/`: answers the fault-path scope reads with `ast` (lint/scope_memo.py), keyed on
  a file's text, the Python version and ftlint's code: a file's step guards, and whether a
  guard may reach request state, with the [path, content hash] and probes that answer read
  (checked as a run entry's are): after an edit, unchanged guards are not read again.

A cache can be wrong only by being absent. A cache directory may come from someone else
(committed to a repository with `git add -f`, or named by a repository's `cache-dir`), so:

* every entry is authenticated: its first line carries a keyed BLAKE2b MAC of its name
  and body, keyed with a random per-user secret kept outside any repository
  (`$XDG_CACHE_HOME/ftlint/cache-key`, else `~/.cache/ftlint/cache-key`, created 0600;
  see user_key). An entry someone else wrote, or one of ours moved to another name, is a
  miss. Without a usable secret there is no cache;
* entries are opened without following symbolic links, only regular files are read, and
  at most `MAX_ENTRY_BYTES`; every entry is checked for shape on load (here, in
  listing.py and outline.py), and any exception while replaying one is a miss
  (result_store.py for run entries, project.outline_module for outlines);
* housekeeping deletes only files that start with ftlint's header, found in ftlint's own
  subdirectories (opened without following links); `CACHEDIR.TAG` and `.gitignore` are
  written only into a directory ftlint created (or one holding nothing but ftlint's).

Safe under concurrent runs: every write goes to a new temporary file in the same directory
and is moved into place with `os.replace`; readers ignore entries that are missing,
truncated, corrupt or of another format. Writes that fail (read-only file system) are
ignored. `FTLINT_NO_CACHE=1` (or `--no-cache`) disables the cache.
"""

from __future__ import annotations

import json
import os
import stat
import threading
import time
import zlib
from pathlib import Path
from typing import Any, TypeGuard, cast

from ftlint.core.digests import blake2b, content_hash, digest, stat_signature

FORMAT = 2  # 1: entries at the top level, behind an unkeyed checksum
STAT_SHARDS = 16
RACY_NS = 2_000_000_000
MAX_RUN_ENTRIES = 512
MAX_OUTLINE_ENTRIES = 4096
MAX_SCOPE_ENTRIES = 4096
MAX_STAT_TABLES = 4  # scopes (ftlint code x handler patterns) whose stat tables are kept
MAX_ENTRY_BYTES = 64 << 20  # vLLM's listings (3,600 files) take 0.2 MB; more is not ours
KEY_BYTES = 32
STAT, LISTINGS, RUNS, OUTLINES, SCOPE = "stat", "listings", "runs", "outlines", "scope"  # the subdirectories
HEADER = b"ftlint-cache "  # every entry's first bytes (housekeeping deletes nothing else)
_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by ftlint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)
_MISSING = "!"  # hash of a file that cannot be read
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_OPEN_ENTRY = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC  # O_NONBLOCK: a FIFO
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
_HOUSEKEEPING = os.scandir in os.supports_fd and os.unlink in os.supports_dir_fd and os.open in os.supports_dir_fd


def disabled_by_env() -> bool:
    return os.environ.get("FTLINT_NO_CACHE", "").strip().lower() not in ("", "0", "false", "no")


_fingerprint: str | None = None


#: folders of the package whose code cannot change a lint result
_NOT_LINT_CODE = frozenset({"__pycache__", "runtime", "lsp", "examples", "requirements"})


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
        files: list[tuple[str, int | None, int | None]] = []
        while dirs:  # every package below (ftlint/analysis/ holds the rules' interpreter)
            directory = dirs.pop()
            try:
                with os.scandir(directory) as it:
                    for entry in it:
                        if entry.name.endswith((".py", ".json")):  # .json: analysis/vllm_data's summaries
                            st = entry.stat()
                            files.append((entry.path, st.st_mtime_ns, st.st_size))
                        elif entry.is_dir(follow_symlinks=False) and entry.name not in _NOT_LINT_CODE:
                            dirs.append(entry.path)
            except OSError:
                files.append((directory, None, None))
        _fingerprint = digest(FORMAT, ftlint.__version__, sorted(files))
    return _fingerprint


# -- the per-user secret ------------------------------------------------------------------
def key_path() -> str | None:
    """Where the secret lives: the user's cache directory, never a project's."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "ftlint", "cache-key")


_keys: dict[str, bytes | None] = {}
_keys_lock = threading.Lock()


def user_key() -> bytes | None:
    """The secret that authenticates cache entries (made on first use), or None when there
    is no usable one (no home directory, not writable): then there is no cache."""
    path = key_path()
    if path is None:
        return None
    with _keys_lock:
        if path not in _keys:
            _keys[path] = _read_key(path) or _make_key(path)
        return _keys[path]


def _read_key(path: str) -> bytes | None:
    """The secret at `path` if it is one: a regular file of KEY_BYTES bytes, ours, that
    nobody else can read or write."""
    try:
        fd = os.open(path, _OPEN_ENTRY)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size != KEY_BYTES or st.st_mode & 0o077:
            return None
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            return None
        data = os.read(fd, KEY_BYTES + 1)
        return data if len(data) == KEY_BYTES else None
    except OSError:
        return None
    finally:
        os.close(fd)


def _make_key(path: str) -> bytes | None:
    """A new secret, written 0600 to a temporary file and linked into place (a concurrent
    run that got there first wins: its secret is used); an unusable one is replaced."""
    directory = os.path.dirname(path)
    tmp = os.path.join(directory, f".cache-key.{os.getpid()}.{os.urandom(6).hex()}.tmp")
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        _write_new(tmp, os.urandom(KEY_BYTES), 0o600)
        try:
            os.link(tmp, path)
        except FileExistsError:
            found = _read_key(path)
            if found is not None:
                return found
            os.replace(tmp, path)
        except OSError:  # no hard links on this file system
            os.replace(tmp, path)
    except OSError:
        return None
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    return _read_key(path)  # what is there now (a concurrent run may have replaced it too)


def _write_new(path: str, data: bytes, mode: int) -> None:
    """Create `path` (never an existing file, never through a link) holding `data`."""
    fd = os.open(path, _CREATE, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def read_entry_bytes(path: str, dir_fd: int | None = None, limit: int = MAX_ENTRY_BYTES) -> bytes | None:
    """The bytes of a cache file: not through a symbolic link, a regular file only, at
    most `limit` bytes (None otherwise, or when it cannot be read)."""
    try:
        fd = os.open(path, _OPEN_ENTRY, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        data = os.read(fd, st.st_size + 1)
        if len(data) > st.st_size:  # grew since fstat (or a file whose size says 0): the rest
            chunks, size = [data], len(data)
            while size <= limit:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            if size > limit:
                return None
            data = b"".join(chunks)
        return data if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


class Cache:
    """One cache directory. Methods never raise for a bad or missing cache."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(os.path.abspath(directory))
        self._top = os.fspath(self.directory)
        self.started_ns = time.time_ns()
        self._ready: bool | None = None  # None: not checked yet
        self._pruned: set[str] = set()  # what this run has pruned already (once is enough)
        self.key = user_key()

    # -- files -----------------------------------------------------------------
    def _ensure(self) -> bool:
        """Make the cache directory and its subdirectories, once a run. Entries are written
        only into subdirectories that are real directories (not links to elsewhere)."""
        if self._ready is not None:
            return self._ready
        self._ready = False
        if self.key is None:
            return False
        top = self._top
        try:
            try:
                os.makedirs(top)
                created = True
            except FileExistsError:
                created = False
            tagged = read_entry_bytes(os.path.join(top, "CACHEDIR.TAG"), limit=len(_TAG)) == _TAG.encode()
            ours = created or tagged or self._only_ours()
            made = False
            for sub in (STAT, LISTINGS, RUNS, OUTLINES, SCOPE):
                path = os.path.join(top, sub)
                try:
                    os.mkdir(path)
                    made = True
                except FileExistsError:
                    pass
                if not stat.S_ISDIR(os.lstat(path).st_mode):
                    return False  # a link or a file where ftlint keeps its entries: no writes
            if ours:
                for name, text in (("CACHEDIR.TAG", _TAG), (".gitignore", "# Automatically created by ftlint.\n*\n")):
                    if not os.path.lexists(os.path.join(top, name)):
                        self._write(top, name, text.encode())
            if made and tagged and _HOUSEKEEPING:
                self._remove_format_1()
        except OSError:
            return False
        self._ready = True
        return True

    def _only_ours(self) -> bool:
        """Whether the existing cache directory holds nothing but what ftlint puts there
        (then it is ftlint's own: its tag and .gitignore may be written)."""
        names = (STAT, LISTINGS, RUNS, OUTLINES, SCOPE, "CACHEDIR.TAG", ".gitignore")
        with os.scandir(self._top) as it:
            return all(e.name in names or e.name.endswith(".tmp") for e in it)

    def _remove_format_1(self) -> None:
        """Format 1 kept stat tables and listings at the top level: remove those that carry
        ftlint's header, once, when a directory with ftlint's tag gets the subdirectories."""
        with os.scandir(self._top) as it:
            old = [e.name for e in it if _format_1_table(e.name) and not e.is_symlink()]
        fd = os.open(self._top, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC)
        try:
            _remove_ours(fd, old)
        finally:
            os.close(fd)

    @staticmethod
    def _write(directory: str, name: str, data: bytes) -> None:
        """Write `name` in `directory` atomically: a new temporary file moved into place."""
        tmp = os.path.join(directory, f".{name}.{os.getpid()}.{threading.get_ident()}.{os.urandom(4).hex()}.tmp")
        try:
            _write_new(tmp, data, 0o666)
            os.replace(tmp, os.path.join(directory, name))
        finally:
            try:
                os.unlink(tmp)
            except OSError:
                pass

    def _mac(self, kind: str, name: str, body: bytes) -> bytes:
        """The entry's MAC: its place (kind and name) and body, under the user's secret."""
        mac = blake2b(
            f"{FORMAT}/{kind}/{name}\n".encode("utf-8", "surrogateescape"), digest_size=32, key=cast(bytes, self.key)
        )  # callers check self.key is not None
        mac.update(body)
        return mac.hexdigest().encode()

    def _store(self, kind: str, name: str, payload: object) -> None:
        if not self._ensure():
            return
        body = json.dumps(payload, separators=(",", ":")).encode("utf-8", "surrogateescape")
        data = b"%s%d %s\n%s" % (HEADER, FORMAT, self._mac(kind, name, body), body)
        try:
            self._write(os.path.join(self._top, kind), name + ".json", data)
        except OSError:
            pass

    def _load(self, kind: str, name: str) -> Any:
        """The entry's payload, or None: missing, not a regular file, too large, of another
        format, or not authenticated with this user's secret."""
        if self.key is None:
            return None
        data = read_entry_bytes(os.path.join(self._top, kind, name + ".json"))
        if data is None:
            return None
        head, _, body = data.partition(b"\n")
        if head != b"%s%d %s" % (HEADER, FORMAT, self._mac(kind, name, body)):
            return None  # (a plain ==: what could time it is a file, not a caller)
        try:
            return json.loads(body)
        except (ValueError, UnicodeError, RecursionError):
            return None

    # -- stat table ------------------------------------------------------------
    def load_stats(self, scope: str, shard: int) -> dict[Any, Any]:
        """A stat-table shard (its entries' shape is checked where they are used)."""
        data = self._load(STAT, f"{scope}-{shard:x}")
        return data if isinstance(data, dict) else {}

    def save_stats(self, scope: str, shard: int, entries: dict[Any, Any]) -> None:
        limit = self.started_ns - RACY_NS
        keep = {}
        for path, entry in entries.items():
            if well_formed_stat(entry):
                # a file modified too recently for its stat to vouch for its contents keeps
                # only its content hash (a stat of zeros never matches: it is re-read)
                keep[path] = entry if entry[0] < limit else [0, 0, 0, 0, entry[4], entry[5]]
        self._store(STAT, f"{scope}-{shard:x}", keep)
        if self._first_time("stat tables"):
            self._prune_stat_tables()

    def _prune_stat_tables(self) -> None:
        """Keep the stat tables of the MAX_STAT_TABLES scopes written last. A scope changes
        with ftlint's code (every upgrade, every edit of a development checkout) and with
        the handler patterns; an old one is never read again, and each is 16 files."""
        with _OwnDirectory(self._top, STAT) as own:
            tables = [(name.split("-")[0], name, mtime) for name, mtime in own.entries()]
            newest: dict[str, int] = {}
            for scope, _, mtime in tables:
                newest[scope] = max(newest.get(scope, 0), mtime)
            keep = set(sorted(newest, key=newest.__getitem__, reverse=True)[:MAX_STAT_TABLES])
            own.remove([name for scope, name, _ in tables if scope not in keep])

    # -- directory listings (listing.py checks their shape) ----------------------
    def load_listings(self, scope: str) -> Any:
        return self._load(LISTINGS, scope)

    def save_listings(self, scope: str, payload: dict[Any, Any]) -> None:
        self._store(LISTINGS, scope, payload)

    # -- run entries -----------------------------------------------------------
    def load_run(self, key: str) -> dict[Any, Any] | None:
        """A run entry of the right shape (its findings are checked as they are replayed)."""
        data = self._load(RUNS, key)
        if not isinstance(data, dict):
            return None
        findings, errors, deps, probes = (data.get(k) for k in ("findings", "errors", "deps", "probes"))
        if not (
            type(findings) is list
            and all(type(f) is dict for f in findings)
            and type(errors) is list
            and all(type(e) is str for e in errors)
            and type(deps) is list
            and all(type(d) is list and len(d) == 2 and type(d[0]) is str and type(d[1]) is str for d in deps)
            and type(probes) is list
            and all(
                type(p) is list and len(p) == 3 and type(p[0]) is str and p[1] in ("f", "e") and type(p[2]) is bool
                for p in probes
            )
            and ("subclasses" not in data or _well_formed_subclasses(data["subclasses"]))
        ):
            return None
        return data

    def save_run(self, key: str, entry: dict[Any, Any]) -> None:
        self._store(RUNS, key, entry)
        if self._first_time("runs"):
            self._prune(RUNS, MAX_RUN_ENTRIES, key)

    # -- outlines (outline.well_formed checks their shape) -------------------------
    def load_outline(self, key: str) -> Any:
        data = self._load(OUTLINES, key)
        ops = data.get("ops") if isinstance(data, dict) else None
        return ops if isinstance(ops, list) or ops is False else None

    def save_outline(self, key: str, ops: Any) -> None:
        self._store(OUTLINES, key, {"ops": ops})
        if self._first_time("outlines"):
            self._prune(OUTLINES, MAX_OUTLINE_ENTRIES, key)

    # -- scope answers (scope_memo.py checks their shape) ---------------------------
    def load_scope(self, key: str) -> Any:
        return self._load(SCOPE, key)

    def save_scope(self, key: str, payload: dict[str, Any]) -> None:
        self._store(SCOPE, key, payload)
        if self._first_time("scope"):
            self._prune(SCOPE, MAX_SCOPE_ENTRIES, key)

    def _first_time(self, what: str) -> bool:
        """True once per run and `what`: pruning a directory once a run is enough."""
        if what in self._pruned:
            return False
        self._pruned.add(what)
        return True

    def _prune(self, kind: str, limit: int, written: str) -> None:
        """Drop the oldest entries past `limit` (never the one just `written`; files that
        are not ftlint's count, but stay)."""
        with _OwnDirectory(self._top, kind) as own:
            entries = sorted((mtime, name) for name, mtime in own.entries())
            if len(entries) > limit:
                mine = written + ".json"
                own.remove([name for _, name in entries if name != mine], len(entries) - limit)


def _format_1_table(name: str) -> bool:
    return name.startswith(("stat-", "listing-")) and name.endswith(".json")


def _remove_ours(dir_fd: int, names: list[Any], count: int | None = None) -> None:
    """Unlink the files `names` (the first `count` of them that are ftlint's) in the
    directory `dir_fd` that start with ftlint's header: regular files only, not through
    links (anything else was not written by ftlint)."""
    for name in names:
        if count is not None and count <= 0:
            return
        try:
            fd = os.open(name, _OPEN_ENTRY, dir_fd=dir_fd)
        except OSError:
            continue
        try:
            ours = stat.S_ISREG(os.fstat(fd).st_mode) and os.read(fd, len(HEADER)) == HEADER
        except OSError:
            ours = False
        finally:
            os.close(fd)
        if ours:
            try:
                os.unlink(name, dir_fd=dir_fd)
            except OSError:
                pass
            if count is not None:
                count -= 1


class _OwnDirectory:
    """One of ftlint's subdirectories of a cache directory, opened for housekeeping without
    following a link (a link there may point anywhere): lists its `.json` regular files and
    removes only those that start with ftlint's header. Does nothing on a platform that
    cannot open files relative to a directory."""

    def __init__(self, top: str, kind: str) -> None:
        self.fd: int | None = None
        if _HOUSEKEEPING:
            try:
                flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | _CLOEXEC
                self.fd = os.open(os.path.join(top, kind), flags)
            except OSError:
                pass

    def __enter__(self) -> _OwnDirectory:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def entries(self) -> list[tuple[str, int]]:
        """[(name, mtime_ns)] of the regular files (not links) named as ftlint names its
        entries (hex digits and dashes, `.json`) in the directory."""
        if self.fd is None:
            return []
        found = []
        try:
            with os.scandir(self.fd) as it:
                for entry in it:
                    name = entry.name
                    if name.endswith(".json") and len(name) > 5 and not name[:-5].strip("0123456789abcdef-"):
                        try:
                            st = entry.stat(follow_symlinks=False)
                        except OSError:
                            continue
                        if stat.S_ISREG(st.st_mode):
                            found.append((entry.name, st.st_mtime_ns))
        except OSError:
            return []
        return found

    def remove(self, names: list[Any], count: int | None = None) -> None:
        """Remove the first `count` (default: all) of `names` that are ftlint's entries."""
        if self.fd is not None:
            _remove_ours(self.fd, names, count)


def well_formed_stat(entry: object) -> TypeGuard[list[Any]]:
    """A stat-table entry of the right shape: [mtime_ns, size, inode, ctime_ns, bit, hash]."""
    return (
        type(entry) is list
        and len(entry) == 6
        and type(entry[0]) is int
        and type(entry[1]) is int
        and type(entry[2]) is int
        and type(entry[3]) is int
        and type(entry[4]) is bool
        and type(entry[5]) is str
    )


def stat_shard(path: str) -> int:
    """The stat-table shard of a file: by its directory, so a project's neighbours share one."""
    return zlib.crc32(os.path.dirname(path).encode("utf-8", "surrogateescape")) % STAT_SHARDS


class FileFacts:
    """Stat, prefilter bit and content hash of files, through the stat table when there is
    one (without a cache: just read and prefilter)."""

    def __init__(self, cache: Cache | None, scope: str, prefilter: Any) -> None:
        self.cache = cache
        self.scope = scope
        self.prefilter = prefilter
        self._stored: dict[int, dict[Any, Any]] = {}  # shards read so far
        self.new: dict[Any, Any] = {}
        self._dirty: set[int] = set()  # shards with entries the stored ones lack

    def _shard(self, shard: int) -> dict[Any, Any]:
        stored = self._stored.get(shard)
        if stored is None:
            stored = self._stored[shard] = self.cache.load_stats(self.scope, shard) if self.cache is not None else {}
        return stored

    def stored(self, path: str) -> list[Any] | None:
        """The stat table's entry for `path` (its shard is read on first use)."""
        return self._shard(stat_shard(path)).get(path)

    def _entry(self, path: str, st: os.stat_result) -> list[Any] | None:
        """The stored entry when the file's stat is unchanged."""
        known = self.new.get(path) or self.stored(path)
        # well_formed_stat, inline (once per file of a warm run): the stat compared first
        if (
            type(known) is list
            and known[:4] == stat_signature(st)
            and len(known) == 6
            and type(known[4]) is bool
            and type(known[5]) is str
        ):
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
        if not (well_formed_stat(known) and known[5]):
            return True
        got = read_file(path)
        return got is None or content_hash(got[0]) != known[5]

    def delta(self) -> tuple[dict[Any, Any], set[Any]]:
        """What this object learnt that the stored table did not hold (for a scan run in
        another process; see merge), and the shards still to write. Entries reused
        unchanged stay behind: the table written at the end keeps them anyway, and
        sending 6,000 of them costs more than the scan saves."""
        return {p: e for p, e in self.new.items() if self.stored(p) is not e}, set(self._dirty)

    def merge(self, delta: tuple[dict[Any, Any], set[Any]]) -> None:
        new, dirty = delta
        self.new.update(new)
        self._dirty |= dirty

    def _record(self, path: str, st: os.stat_result, data: bytes, hashed: str | None = None) -> list[Any]:
        """Remember what the file is now; without `hashed`, the content hash is kept for a
        file passing the prefilter only (a candidate: its hash is a dependency of the run).
        The prefilter bit of the same contents (same hash) is not computed again: a run
        saving its dependencies re-reads every step-guard file, whose bit costs a parse."""
        known = self.new.get(path) or self.stored(path)
        if hashed is not None and well_formed_stat(known) and known[5] == hashed:
            bit = known[4]
        else:
            bit = self.prefilter.matches(data)
        if hashed is None:
            hashed = content_hash(data) if bit else ""
        entry = [*stat_signature(st), bit, hashed]
        self.new[path] = entry
        if entry != known:
            self._dirty.add(stat_shard(path))
        return entry

    def candidate(self, path: str, forced: bool) -> bool:
        """Whether the file must be parsed: forced, unreadable, or its bytes pass the prefilter."""
        if forced:
            return True
        if self.cache is None:
            data = read_bytes(path)
            return data is None or self.prefilter.matches(data)
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
            return cast(str, entry[5])
        return self.hash_and_bytes(path)[0]

    def hash_and_bytes(self, path: str) -> tuple[str, bytes | None]:
        """Read now: (content hash, the bytes, None when unreadable)."""
        got = read_file(path)
        if got is None:
            return _MISSING, None
        data, st = got
        hashed = content_hash(data)
        self._record(path, st, data, hashed)
        return hashed, data

    def save(self) -> None:
        """Write the shards that changed: what they held, updated with what this run learnt."""
        if self.cache is None or not self._dirty:
            return
        learnt: dict[int, dict[Any, Any]] = {shard: {} for shard in self._dirty}
        for path, entry in self.new.items():
            mine = learnt.get(stat_shard(path))
            if mine is not None:
                mine[path] = entry
        for shard, entries in sorted(learnt.items()):
            self.cache.save_stats(self.scope, shard, {**self._shard(shard), **entries})
        self._dirty.clear()


#: read_bytes' first read: most Python files are smaller (a larger buffer would be an
#: mmap'ed allocation per file); the rest of a larger one is read in big chunks
_FIRST_READ = 1 << 16


def read_bytes(path: str) -> bytes | None:
    """The file's bytes with one open and (usually) one read, no fstat; None when
    unreadable. For the scan without a cache, which needs no stat: 6,000 fstat calls
    were a sixth of reading vLLM's tree."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    try:
        data = os.read(fd, _FIRST_READ)
        return data if len(data) < _FIRST_READ else _with_rest(fd, data)
    except OSError:
        return None
    finally:
        os.close(fd)


def read_file(path: str) -> tuple[bytes, os.stat_result] | None:
    """(bytes, stat) with one open, one fstat and (usually) one read; None when unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        data = os.read(fd, st.st_size + 1)
        return (data if len(data) <= st.st_size else _with_rest(fd, data)), st  # longer: grew since fstat
    except OSError:
        return None
    finally:
        os.close(fd)


def _with_rest(fd: int, first: bytes) -> bytes:
    """`first` and the rest of the file after it, read in 1 MiB chunks."""
    chunks = [first]
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


_EDIT_FIELDS = {"line": int, "column": int, "end_line": int, "end_column": int, "text": str}
_FINDING_FIELDS = {
    **{"path": str, "line": int, "column": int, "end_line": int, "end_column": int, "code": str, "name": str},
    **{
        "message": str,
        "severity": str,
        "line_text": str,
        "end_line_text": str,
        "fix": list,
        "fix_title": str,
        "fix_applicability": str,
    },
}


def findings_of(entry: dict[Any, Any]) -> list[Any]:
    """The Findings of a run entry (load_run checked its shape); ValueError when one is not
    what Finding.to_dict writes (every field, of its type)."""
    from ftlint.core.finding import Finding

    for item in entry["findings"]:
        if item.keys() != _FINDING_FIELDS.keys() or any(type(item[k]) is not t for k, t in _FINDING_FIELDS.items()):
            raise ValueError("not a finding")
        for edit in item["fix"]:
            if type(edit) is not dict or edit.keys() != _EDIT_FIELDS.keys():
                raise ValueError("not an edit")
            if any(type(edit[k]) is not t for k, t in _EDIT_FIELDS.items()):
                raise ValueError("not an edit")
    return [Finding.from_dict(item) for item in entry["findings"]]


def _well_formed_subclasses(value: Any) -> bool:
    """[handler class names, stat digest of the lint set's other files, those subclassing one]."""
    return (
        type(value) is list
        and len(value) == 3
        and type(value[0]) is list
        and all(type(n) is str for n in value[0])
        and type(value[1]) is str
        and type(value[2]) is list
        and all(type(p) is str for p in value[2])
    )


def validate(entry: dict[Any, Any], facts: FileFacts) -> bool:
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
