"""Which files to lint: walk the given paths, honour excludes and ``.gitignore``, report problems.

Ruff's rules: paths passed explicitly are always linted (``--force-exclude`` makes ``exclude`` and
``extend-exclude`` apply to them too, as pre-commit needs); directories are walked, skipping
excluded names/globs and, with ``respect-gitignore``, whatever ``.gitignore`` files (the
repository's, nested ones, ``.git/info/exclude``) ignore. ``.git`` itself is never entered.
Directory symlinks met while walking are not followed (no loops); file symlinks are.

Problems never become tracebacks and are never dropped silently: a missing path, a broken
symbolic link, a link loop or an unreadable directory is a :class:`DiscoveryError`; an explicitly
passed file that is not Python is a :class:`Skipped` with the reason. Standard library only.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Any

from ftlint.core.config import Config
from ftlint.core.digests import stat_signature
from ftlint.core.gitignore import GitIgnore
from ftlint.index.listing import FILE, LINK, DirListings, signature

__all__ = [
    "PYTHON_SUFFIXES",
    "Discovered",
    "DiscoveryError",
    "Skipped",
    "describe_os_error",
    "discover",
    "is_python_path",
    "iter_python_files",
    "iter_python_paths",
]

PYTHON_SUFFIXES = (".py", ".pyi")


@dataclass(frozen=True)
class Skipped:
    """An explicitly passed path that is not linted, and why.

    ``kind``: ``"not-python"`` (wrong suffix) or ``"not-a-file"`` (a device, a FIFO …)."""

    path: Path
    reason: str
    kind: str = "not-python"


@dataclass(frozen=True)
class DiscoveryError:
    path: Path
    message: str  # "No such file or directory", "broken symbolic link", "symbolic link loop", "Permission denied"

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass
class Discovered:
    #: the files to lint, in order, as shown (relative to the cwd when under it) and absolute
    displayed: list[str] = field(default_factory=list)
    absolute: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    errors: list[DiscoveryError] = field(default_factory=list)
    #: explicit paths dropped by ``--force-exclude`` (ruff drops them silently; say so in verbose mode)
    excluded: list[Path] = field(default_factory=list)

    @property
    def files(self) -> list[Path]:
        """The files to lint as shown, as Paths (made on demand: pre-commit passes thousands)."""
        return [Path(p) for p in self.displayed]


def is_python_path(path: Path | str) -> bool:
    """Whether the name ends in ``.py`` or ``.pyi``."""
    return os.fspath(path).endswith(PYTHON_SUFFIXES)


_ERRNO_MESSAGES: dict[int | None, str] = {  # keyed by OSError.errno (which may be None)
    errno.ENOENT: "No such file or directory",
    errno.EACCES: "Permission denied",
    errno.EPERM: "Permission denied",
    errno.ELOOP: "symbolic link loop",
    errno.ENOTDIR: "Not a directory",
}


def describe_os_error(err: OSError, path: Path | str | None = None) -> str:
    """A short message for ``err`` (no traceback, no repeated path). With ``path``, a missing
    target behind a symlink reads "broken symbolic link"."""
    if err.errno == errno.ENOENT and path is not None and os.path.islink(path):
        return "broken symbolic link"
    message = _ERRNO_MESSAGES.get(err.errno)
    if message is None:
        message = err.strerror or str(err) or type(err).__name__
    return message


def _abs(path: str) -> str:
    return os.path.normpath(os.path.abspath(path))


def _under(path: str, base: str) -> str | None:
    """``path`` relative to ``base`` (posix, "" for base itself), None when outside."""
    if path == base:
        return ""
    prefix = base if base.endswith(os.sep) else base + os.sep
    if path.startswith(prefix):
        return path[len(prefix) :]
    return None


def _info_exclude(repo: str) -> str | None:
    """Path of ``$GIT_DIR/info/exclude`` for the repository at ``repo`` (worktrees included)."""
    dotgit = os.path.join(repo, ".git")
    if os.path.isdir(dotgit):
        return os.path.join(dotgit, "info", "exclude")
    try:
        with open(dotgit, encoding="utf-8", errors="replace") as fh:
            line = fh.readline().strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    gitdir = os.path.join(repo, line[len("gitdir:") :].strip())
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8", errors="replace") as fh:
            gitdir = os.path.join(gitdir, fh.readline().strip())
    except OSError:
        pass
    return os.path.join(gitdir, "info", "exclude")


#: the ignore files that apply: (directory prefix ending in "/", rules), outermost first
_Levels = tuple[tuple[str, GitIgnore], ...]
#: a directory to walk: (path, path relative to the root or None, ignore levels, resolved path, listing trusted)
_Frame = tuple[str, "str | None", _Levels, str, bool]
_BY_NAME = attrgetter("name")


def _child_rel(rel_dir: str | None, name: str) -> str | None:
    if rel_dir is None:
        return None
    return rel_dir + "/" + name if rel_dir else name


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


class _TreeWalker:
    """One directory walker shared by :func:`discover` and :func:`iter_python_files`."""

    def __init__(
        self,
        config: Config,
        errors: list[DiscoveryError],
        display: Callable[[str], Path],
        listings: DirListings | None = None,
    ) -> None:
        self.config = config
        self.listings = listings  # listing.DirListings: reuse what an earlier walk kept
        self.patterns = config.exclude_patterns
        self._match_entry = self.patterns.match_entry if self.patterns else None
        self.root = os.fspath(config.root)
        self.root_real = os.path.realpath(self.root)
        self.respect_gitignore = config.respect_gitignore
        self.errors = errors
        self.display = display
        self._ignore_files: dict[str, GitIgnore | None] = {}
        self._tracing: list[str] | None = None

    # -- gitignore -----------------------------------------------------------------------

    def _load(self, path: str) -> GitIgnore | None:
        if self._tracing is not None:
            self._tracing.append(path)
        try:
            return self._ignore_files[path]
        except KeyError:
            gi = GitIgnore.from_file(path)
            if gi is not None and not gi:
                gi = None
            self._ignore_files[path] = gi
            return gi

    def _initial_levels(self, top: str) -> _Levels:
        """Ignore files that apply to ``top`` from above it (its own .gitignore is read by the walk)."""
        if not self.respect_gitignore:
            return ()
        repo = None
        for directory in (top, *map(os.fspath, Path(top).parents)):
            if os.path.lexists(os.path.join(directory, ".git")):
                repo = directory
                break
        levels: list[tuple[str, GitIgnore]] = []
        if repo is not None:
            start = repo
            exclude = _info_exclude(repo)
            if exclude is not None:
                gi = self._load(exclude)
                if gi is not None:
                    levels.append((repo.rstrip(os.sep) + os.sep, gi))
        elif _under(top, self.root) is not None:
            start = self.root
        else:
            start = top
        rel = _under(top, start)
        if rel:  # ancestors of top, from start down to top's parent
            directory = start
            for part in rel.split(os.sep):
                gi = self._load(os.path.join(directory, ".gitignore"))
                if gi is not None:
                    levels.append((directory.rstrip(os.sep) + os.sep, gi))
                directory = os.path.join(directory, part)
        return tuple(levels)

    @staticmethod
    def _ignored(path: str, is_dir: bool, levels: _Levels) -> bool:
        for base, gi in reversed(levels):
            verdict = gi.match(path[len(base) :], is_dir)
            if verdict is not None:
                return verdict
        return False

    # -- walking ---------------------------------------------------------------------------

    def _root_rel(self, top: str) -> str | None:
        rel = _under(top, self.root)
        if rel is None and self.root_real != self.root:
            rel = _under(os.path.realpath(top), self.root_real)
        elif rel is None:
            real = os.path.realpath(top)
            if real != top:
                rel = _under(real, self.root_real)
        if rel is not None and os.sep != "/":
            rel = rel.replace(os.sep, "/")
        return rel

    def walk(self, top: str) -> Iterator[tuple[str, str]]:
        """Yield ``(path, resolved path)`` for every Python file under directory ``top``."""
        stack = [self._top_frame(top)]
        while stack:
            subdirs = yield from self._walk_directory(*stack.pop())
            stack.extend(reversed(subdirs))

    def _top_frame(self, top: str) -> _Frame:
        """The walk's first directory: the ignore files that apply from above, and whether
        the listings stored for it may be trusted."""
        listings = self.listings
        self._tracing = [] if listings is not None else None
        try:
            initial = self._initial_levels(top)
            consulted = self._tracing  # every ignore file that applies from above, present or not
        finally:
            self._tracing = None
        trusted = listings is not None and consulted is not None and listings.trusted_top(top, consulted)
        return (top, self._root_rel(top), initial, os.path.realpath(top), trusted)

    def _walk_directory(
        self, directory: str, rel_dir: str | None, levels: _Levels, real_dir: str, trusted: bool
    ) -> Generator[tuple[str, str], None, list[_Frame]]:
        """Yield the Python files of one directory; returns its subdirectories to walk."""
        listings = self.listings
        dir_sig = ignore_sig = None
        below_trusted = False
        if listings is not None:
            try:
                dir_sig = stat_signature(os.stat(directory))
            except OSError:
                dir_sig = None  # the scan below reports it
            ignore_path = os.path.join(directory, ".gitignore")
            ignore_sig = signature(ignore_path) if self.respect_gitignore else None
            known = listings.reuse(directory, dir_sig, ignore_sig) if trusted and dir_sig else None
            below_trusted = trusted and listings.ignore_unchanged(directory, ignore_sig)
            if known is not None:
                if ignore_sig is not None:
                    levels = self._with_ignore_file(directory, ignore_path, levels)
                return (yield from self._replay(directory, rel_dir, levels, real_dir, known, below_trusted))
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=_BY_NAME)
        except OSError as err:
            self.errors.append(DiscoveryError(self.display(directory), describe_os_error(err)))
            return []
        if self.respect_gitignore:
            for entry in entries:
                if entry.name == ".gitignore":
                    levels = self._with_ignore_file(directory, entry.path, levels)
                    break
        kept_files: list[list[str]] = []
        kept_dirs: list[str] = []
        subdirs: list[_Frame] = []
        yield from self._scan_entries(
            entries, (rel_dir, levels, real_dir, below_trusted), kept_files, kept_dirs, subdirs
        )
        if listings is not None and dir_sig is not None:
            listings.store(directory, dir_sig, ignore_sig, kept_files, kept_dirs)
        return subdirs

    def _with_ignore_file(self, directory: str, ignore_path: str, levels: _Levels) -> _Levels:
        gi = self._load(ignore_path)
        return (*levels, (directory.rstrip(os.sep) + os.sep, gi)) if gi is not None else levels

    def _replay(
        self,
        directory: str,
        rel_dir: str | None,
        levels: _Levels,
        real_dir: str,
        known: list[Any],
        below_trusted: bool,
    ) -> Generator[tuple[str, str], None, list[_Frame]]:
        """A directory unchanged since its listing was stored: yield its files from the listing."""
        for name, kind in known[2]:
            path = directory + os.sep + name if not directory.endswith(os.sep) else directory + name
            if kind == LINK:
                found = self._link_target(path)
                if found is not None:
                    yield found
            else:
                yield path, real_dir + os.sep + name
        subdirs = []
        for name in known[3]:
            path = directory + os.sep + name if not directory.endswith(os.sep) else directory + name
            subdirs.append((path, _child_rel(rel_dir, name), levels, real_dir + os.sep + name, below_trusted))
        return subdirs

    def _scan_entries(
        self,
        entries: list[os.DirEntry[str]],
        frame: tuple[str | None, _Levels, str, bool],
        kept_files: list[list[str]],
        kept_dirs: list[str],
        subdirs: list[_Frame],
    ) -> Iterator[tuple[str, str]]:
        """Yield the Python files among a directory's entries, append the subdirectories to
        walk to `subdirs`, and what was kept to the listing (`kept_files`, `kept_dirs`)."""
        rel_dir, levels, real_dir, below_trusted = frame
        listing = self.listings is not None
        for entry in entries:
            name = entry.name
            if name == ".git":
                continue
            path = entry.path
            rel = _child_rel(rel_dir, name)
            if _is_dir(entry):
                if self._excluded(name, rel, path, True, levels):
                    continue
                subdirs.append((path, rel, levels, real_dir + os.sep + name, listing and below_trusted))
                if listing:
                    kept_dirs.append(name)
                continue
            if not name.endswith(PYTHON_SUFFIXES) or self._excluded(name, rel, path, False, levels):
                continue
            found = self._file_entry(entry, real_dir, kept_files if listing else None)
            if found is not None:
                yield found

    def _excluded(self, name: str, rel: str | None, path: str, is_dir: bool, levels: _Levels) -> bool:
        match_entry = self._match_entry
        if match_entry is not None and match_entry(name, rel, path):
            return True
        return bool(levels) and self._ignored(path, is_dir, levels)

    def _file_entry(
        self, entry: os.DirEntry[str], real_dir: str, kept_files: list[list[str]] | None
    ) -> tuple[str, str] | None:
        """(path, resolved path) of a file entry (a link: of its target), else None."""
        name, path = entry.name, entry.path
        if entry.is_symlink():
            if kept_files is not None:
                kept_files.append([name, LINK])
            return self._link_target(path)
        try:
            if not entry.is_file(follow_symlinks=False):
                return None
        except OSError:
            return None
        if kept_files is not None:
            kept_files.append([name, FILE])
        return path, real_dir + os.sep + name

    def _link_target(self, path: str) -> tuple[str, str] | None:
        """(path, resolved path) for a link to a regular file; a broken link is an error."""
        try:
            st = os.stat(path)
        except OSError as err:
            self.errors.append(DiscoveryError(self.display(path), describe_os_error(err, path)))
            return None
        return (path, os.path.realpath(path)) if stat.S_ISREG(st.st_mode) else None


def _split_key(path: str) -> list[str]:
    parts = path.split(os.sep)
    if not parts[0]:
        parts[0] = os.sep  # absolute paths: Path orders them by their anchor "/"
    return parts


class _Resolver:
    """stat and realpath for the paths given on a command line: pre-commit passes thousands
    of files from a few hundred directories, so each directory is resolved once and a file
    that is not a link is its resolved directory plus its name (os.path.realpath would
    lstat every component of every file again)."""

    def __init__(self) -> None:
        self._dirs: dict[str, str] = {}
        self._links: set[str] = set()

    def stat(self, abspath: str) -> os.stat_result:
        st = os.lstat(abspath)
        if not stat.S_ISLNK(st.st_mode):
            return st
        self._links.add(abspath)
        return os.stat(abspath)

    def real(self, abspath: str) -> str:
        """os.path.realpath of a path `stat` was asked about."""
        if abspath in self._links:
            return os.path.realpath(abspath)
        directory, name = os.path.split(abspath)
        real_dir = self._dirs.get(directory)
        if real_dir is None:
            real_dir = self._dirs[directory] = os.path.realpath(directory)
        return os.path.join(real_dir, name)


def discover(
    paths: Sequence[Path | str],
    config: Config,
    *,
    force_exclude: bool = False,
    cwd: Path | str | None = None,
    listings: DirListings | None = None,
) -> Discovered:
    """The Python files to lint for ``paths`` (default: ``[cwd]``).

    ``files`` are sorted, de-duplicated by resolved path, and spelled relative to ``cwd`` when
    under it (absolute otherwise). ``force_exclude`` (or ``config.force_exclude``) applies
    ``exclude``/``extend-exclude`` to explicitly passed paths as well.
    """
    cwd_str = _abs(os.fspath(cwd) if cwd is not None else os.getcwd())
    force = force_exclude or config.force_exclude
    result = Discovered()

    def display_str(path: str) -> str:
        rel = _under(path, cwd_str)
        if rel is None:
            return path
        return rel or "."

    def display(path: str) -> Path:
        return Path(display_str(path))

    walker = _TreeWalker(config, result.errors, display, listings)
    found: dict[str, str] = {}  # resolved path -> absolute path as reached
    resolve = _Resolver()

    for given in paths or [Path(cwd_str)]:
        given_str = os.fspath(given)
        abspath = _abs(os.path.join(cwd_str, given_str))
        try:
            st = resolve.stat(abspath)
        except OSError as err:
            result.errors.append(DiscoveryError(Path(given_str), describe_os_error(err, abspath)))
            continue
        if force and config.is_excluded(abspath):
            result.excluded.append(Path(given_str))
            continue
        if stat.S_ISDIR(st.st_mode):
            for path, real in walker.walk(abspath):
                found.setdefault(real, path)
            continue
        if not is_python_path(abspath):
            suffix = os.path.splitext(abspath)[1]
            what = suffix if suffix else "no extension"
            result.skipped.append(
                Skipped(
                    Path(given_str),
                    f"not a Python file ({what}); pass it with a .py/.pyi name to lint it",
                    "not-python",
                )
            )
            continue
        if not stat.S_ISREG(st.st_mode):
            result.skipped.append(Skipped(Path(given_str), "not a regular file", "not-a-file"))
            continue
        found.setdefault(resolve.real(abspath), abspath)

    # Sort by path components (as Path ordering does) on plain strings: far cheaper than Paths.
    by_display = {display_str(p): p for p in found.values()}
    result.displayed = sorted(by_display, key=_split_key)
    result.absolute = [by_display[p] for p in result.displayed]
    return result


def iter_python_files(
    root: Path | str,
    config: Config,
    *,
    errors: list[DiscoveryError] | None = None,
    listings: DirListings | None = None,
) -> Iterator[Path]:
    """Every ``.py``/``.pyi`` under directory ``root`` honouring excludes and ``.gitignore``
    (the project-wide scan), as absolute paths, each resolved file once, in walk order
    (sorted within each directory). Problems go to ``errors`` when given."""
    return map(Path, iter_python_paths(root, config, errors=errors, listings=listings))


def iter_python_paths(
    root: Path | str,
    config: Config,
    *,
    errors: list[DiscoveryError] | None = None,
    listings: DirListings | None = None,
) -> Iterator[str]:
    """iter_python_files as plain strings (a Path per file costs more than its stat)."""
    sink: list[DiscoveryError] = errors if errors is not None else []
    top = _abs(os.fspath(root))
    walker = _TreeWalker(config, sink, Path, listings)
    seen: set[str] = set()
    for path, real in walker.walk(top):
        if real not in seen:
            seen.add(real)
            yield path


# -- the project scan's files ------------------------------------------------------------
def project_root_to_walk(lint_files: list[str], config: Config, given: Sequence[str]) -> str | None:
    """The project root when its other Python files must be scanned too (a handler
    anywhere may reach a helper in a linted file); None when the lint set is all there is
    (no project root, files outside it, or the root itself was walked). `given`: the
    absolute paths named on the command line."""
    root = _project_root(config)
    if root is None:
        return None
    prefix = root.rstrip(os.sep) + os.sep
    if not any(f.startswith(prefix) for f in lint_files):
        return None
    if walks_whole_project(config, given):
        return None  # the root itself was walked: the scan would find the same files
    return root


def walks_whole_project(config: Config, given: Sequence[str]) -> bool:
    """Whether the paths named on the command line (absolute) include the project root,
    so that the lint set holds every Python file of the project."""
    root = _project_root(config)
    return root is not None and root in given and os.path.isdir(root)


def _project_root(config: Config) -> str | None:
    """The project root: a `[tool.ftlint]` pyproject's directory or a git top-level."""
    root = os.path.abspath(config.root)
    if config.path is None and not os.path.exists(os.path.join(root, ".git")):
        return None
    return root


def walk_project(root: str | None, known: set[str], config: Config, listings: DirListings | None) -> list[str]:
    """The Python files under the project `root` (project_root_to_walk) not in `known`."""
    if root is None:
        return []
    return [p for p in iter_python_paths(root, config, listings=listings) if p not in known]
