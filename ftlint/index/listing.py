"""Directory listings kept in the result cache, so a warm walk stats directories
instead of listing them and matching every name against the ignore rules.

A warm run of `ftlint check FILE` in a 6,000-file project spends most of its time
walking the project (scandir, exclude globs, `.gitignore` rules for every name). What
the walker keeps of a directory (its Python files and the subdirectories it enters)
changes only when the directory's entries change, which moves its mtime, or when an
ignore file that applies to it changes. So each listing is stored with the stat of
its directory and of the directory's own `.gitignore`; a listing is reused only when
both are unchanged and every ignore file above it was unchanged too (the initial ones
above the walk's top included). Directories or ignore files modified less than
`cache.RACY_NS` before the run are not stored (a second change in the same clock tick
would keep their stat). Symbolic links are re-checked on every walk.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from ftlint.core.cache import RACY_NS, Cache
from ftlint.core.digests import digest, stat_signature

if TYPE_CHECKING:  # pragma: no cover
    from ftlint.core.config import Config

FILE, LINK = "f", "l"
#: a stat signature (digests.stat_signature); listings hold them as the cache stores them
Signature = list[int]
#: what the cache keeps (JSON): checked for shape where it is read (_well_formed, reuse)
Stored = dict[str, Any]
_KINDS = (FILE, LINK)


def signature(path: str) -> Signature | None:
    """The stat signature of `path`, or None when it does not exist (or cannot be stat'ed)."""
    try:
        return stat_signature(os.stat(path))
    except OSError:
        return None


_NOT_NAMES = frozenset(("", ".", ".."))


def _well_formed(files: object, subdirs: object) -> bool:
    """[[name, FILE or LINK]...] and [name...], each name one that, joined to its directory,
    stays in it (a loop per entry without calls: it runs for every directory of a warm walk)."""
    if type(files) is not list or type(subdirs) is not list:
        return False
    for item in files:
        if type(item) is not list or len(item) != 2 or item[1] not in _KINDS or type(item[0]) is not str:
            return False
    for name in subdirs:
        if type(name) is not str:
            return False
    names = [item[0] for item in files]
    names += subdirs
    joined = "\n".join(names)
    return "/" not in joined and os.sep not in joined and "\0" not in joined and _NOT_NAMES.isdisjoint(names)


class DirListings:
    """directory -> [dir signature, own .gitignore signature or None, [[name, kind]...], [subdir...]]"""

    def __init__(self, cache: Cache | None, scope: str) -> None:
        self.cache = cache
        self.scope = scope
        self._old: tuple[Stored, Stored] | None = None  # read on first use: a run may walk nothing
        self.new: Stored = {}
        self.new_tops: Stored = {}
        self.dirty = False
        self.limit = time.time_ns() - RACY_NS

    def _stored(self) -> tuple[Stored, Stored]:
        if self._old is None:
            stored = self.cache.load_listings(self.scope) if self.cache is not None else None
            stored = stored if isinstance(stored, dict) else {}
            dirs, tops = stored.get("dirs"), stored.get("tops")
            self._old = (dirs if isinstance(dirs, dict) else {}, tops if isinstance(tops, dict) else {})
        return self._old

    @property
    def old(self) -> Stored:
        return self._stored()[0]

    @property
    def old_tops(self) -> Stored:
        return self._stored()[1]

    @classmethod
    def for_walk(cls, cache: Cache | None, config: Config) -> DirListings | None:
        """The listings for walks under this configuration (None without a cache)."""
        if cache is None:
            return None
        scope = digest(
            "listing",
            os.fspath(config.root),
            config.respect_gitignore,
            list(config.exclude),
            list(config.extend_exclude),
        )
        return cls(cache, scope)

    # -- the walk's questions ------------------------------------------------------------
    def trusted_top(self, top: str, ignore_files: list[str]) -> bool:
        """Whether the ignore files that apply to `top` from above are as when its
        listings were stored (and remember them as they are now)."""
        now = [[path, signature(path)] for path in ignore_files]
        self.new_tops[top] = now
        if self.old_tops.get(top) != now:
            self.dirty = True
            return False
        return True

    def reuse(self, directory: str, dir_sig: Signature, ignore_sig: Signature | None) -> list[Any] | None:
        """The stored listing when the directory and its .gitignore are unchanged (and it
        has the shape `store` gives it: the walker replays it without further checks)."""
        known = self.new.get(directory) or self.old.get(directory)
        if (
            type(known) is list
            and len(known) == 4
            and known[0] == dir_sig
            and known[1] == ignore_sig
            and _well_formed(known[2], known[3])
        ):
            self.new[directory] = known
            return known
        return None

    def ignore_unchanged(self, directory: str, ignore_sig: Signature | None) -> bool:
        """Whether the directory's .gitignore is as when its listing was stored (the
        listings below it hold only then)."""
        known = self.old.get(directory)
        return isinstance(known, list) and len(known) == 4 and known[1] == ignore_sig

    def store(
        self,
        directory: str,
        dir_sig: Signature,
        ignore_sig: Signature | None,
        files: list[list[str]],
        subdirs: list[str],
    ) -> None:
        if dir_sig[0] >= self.limit or (ignore_sig is not None and ignore_sig[0] >= self.limit):
            return  # racy: a change later in the same clock tick would go unseen
        self.new[directory] = [dir_sig, ignore_sig, files, subdirs]
        self.dirty = True

    # -- across runs -----------------------------------------------------------------------
    def save(self) -> None:
        """Write the stored listings updated with those this run met (a forked scan saves
        its own: the parent never walks)."""
        if self.cache is not None and self.dirty:
            dirs = {**self.old, **self.new}
            self.cache.save_listings(self.scope, {"dirs": dirs, "tops": {**self.old_tops, **self.new_tops}})
            self.dirty = False
