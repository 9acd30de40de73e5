"""What changed between a git revision and the working tree, line by line.

``read_diff(base, cwd)`` runs ``git diff BASE`` (the working tree against ``BASE``, like
reviewdog's ``-diff="git diff origin/main"``) plus ``git ls-files --others
--exclude-standard`` (new files not yet added count as wholly added) and returns, per file,
the added/modified lines (new side), the unchanged context lines the hunks show, and the
deleted lines (old side, with their text).

Git is run through :mod:`subprocess` only; every failure (git missing, not a repository,
unknown revision) is a :class:`GitError` whose ``str()`` is one line.  Nothing here touches
the network: ``BASE`` must already be fetched.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Diff", "FileDiff", "GitError", "git", "parse_unified_diff", "read_diff", "show_file"]

CONTEXT_LINES = 3  # GitHub's pull-request diff shows 3 lines of context: comments may go there too

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class GitError(Exception):
    """git failed; ``str()`` is one line, fit for ``ftlint: error: ...``."""


@dataclass
class FileDiff:
    path: str  # repo-relative POSIX path on the new side ("" when the file was deleted)
    old_path: str  # repo-relative POSIX path on the old side ("" when the file is new)
    added: dict[int, str] = field(default_factory=dict)  # new line number -> text (added or modified)
    context: set[int] = field(default_factory=set)  # new line numbers of unchanged lines shown in hunks
    deleted: dict[int, str] = field(default_factory=dict)  # old line number -> text (deleted or modified)
    binary: bool = False
    # For each deleted old line: the new-side line number the deletion sits before.
    deleted_at: dict[int, int] = field(default_factory=dict)

    @property
    def is_deleted(self) -> bool:
        return not self.path

    @property
    def is_new(self) -> bool:
        return not self.old_path

    @property
    def display(self) -> str:
        return self.path or self.old_path

    def lines_for(self, mode: str) -> frozenset[int]:
        """New-side lines a finding may be reported on under a filter mode."""
        if mode == "diff-context":
            return frozenset(self.added) | frozenset(self.context)
        return frozenset(self.added)


@dataclass
class Diff:
    root: Path  # git top-level
    base: str  # the revision as given
    base_commit: str  # its full commit id
    files: list[FileDiff] = field(default_factory=list)


# --------------------------------------------------------------------------------------------
# running git


#: Options before every git command. A repository's own config must not make review run its
#: programs: ``core.fsmonitor`` (a hook git runs when it refreshes the index, as ``git diff``
#: against the working tree does) is switched off here; external diff and textconv drivers by
#: ``--no-ext-diff``/``--no-textconv``; clean/smudge/process filters by :func:`filters_off`.
#: docs/review.md lists them all.
GIT_OPTIONS = ("-c", "core.quotePath=false", "-c", "core.fsmonitor=false")

_FILTER_KEYS = ("clean", "smudge", "process")


def git(args: Sequence[str], cwd: Path, *, what: str = "", config: Sequence[tuple[str, str]] = ()) -> str:
    """Run ``git ARGS`` in ``cwd`` and return stdout (UTF-8, undecodable bytes kept as escapes).
    ``config``: (key, value) settings for this command, passed as ``GIT_CONFIG_KEY_n`` /
    ``GIT_CONFIG_VALUE_n`` (no quoting: a key may hold ``=``), after any the caller set."""
    env = dict(os.environ)
    env.setdefault("LC_ALL", "C")
    env["GIT_PAGER"] = "cat"
    env.pop("GIT_EXTERNAL_DIFF", None)
    if config:
        try:
            count = max(0, int(env.get("GIT_CONFIG_COUNT", "0")))
        except ValueError:
            count = 0
        for key, value in config:
            env[f"GIT_CONFIG_KEY_{count}"] = key
            env[f"GIT_CONFIG_VALUE_{count}"] = value
            count += 1
        env["GIT_CONFIG_COUNT"] = str(count)
    try:
        proc = subprocess.run(
            ["git", *GIT_OPTIONS, *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            check=False,
        )
    except FileNotFoundError:
        raise GitError("git is not installed or not on PATH") from None
    except OSError as err:
        raise GitError(f"cannot run git: {err.strerror or err}") from None
    if proc.returncode != 0:
        message = _first_line(proc.stderr.decode("utf-8", "replace")) or f"exit status {proc.returncode}"
        raise GitError(f"{what or 'git ' + ' '.join(args[:2])}: {message}")
    return proc.stdout.decode("utf-8", "surrogateescape")


def _first_line(text: str) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line.removeprefix("fatal: ").removeprefix("error: ")
    return ""


def filters_off(root: Path) -> tuple[tuple[str, str], ...]:
    """Settings that switch off every filter driver git's config names (``filter.<driver>.clean``,
    ``.smudge``, ``.process`` set empty, ``.required`` false): ``git diff`` against the working
    tree runs a file's clean filter when it re-reads it, and review must run no program a
    repository's config names. Git Large File Storage pointers are then compared as they are."""
    try:
        out = git(["config", "-z", "--name-only", "--get-regexp", r"^filter\."], root)
    except GitError:  # exit status 1: no filter configured
        return ()
    drivers = set()
    for key in filter(None, out.split("\0")):
        _section, _, rest = key.partition(".")
        driver, dot, _name = rest.rpartition(".")
        if dot:
            drivers.add(driver)
    settings = []
    for driver in sorted(drivers):
        settings += [(f"filter.{driver}.{name}", "") for name in _FILTER_KEYS]
        settings.append((f"filter.{driver}.required", "false"))
    return tuple(settings)


def repo_root(cwd: Path) -> Path:
    try:
        out = git(["rev-parse", "--show-toplevel"], cwd, what="not a git repository")
    except GitError as err:
        if "not a git repository" in str(err).lower():
            raise GitError(f"{cwd} is not inside a git repository (ftlint review needs one)") from None
        raise
    return Path(out.strip())


def resolve_commit(rev: str, root: Path) -> str:
    if not rev or rev.startswith("-"):
        raise GitError(f"--base {rev!r}: not a revision")
    try:
        return git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"], root).strip()
    except GitError:
        raise GitError(f"--base {rev}: unknown revision (fetch it first, e.g. `git fetch origin {rev}`)") from None


def merge_base(commit: str, root: Path) -> str:
    try:
        return git(["merge-base", commit, "HEAD"], root).strip()
    except GitError:
        raise GitError(f"--merge-base: {commit[:12]} and HEAD have no common ancestor") from None


def show_file(commit: str, path: str, root: Path) -> str | None:
    """The text of ``path`` at ``commit`` (None when it does not exist there): the blob as
    stored (``git cat-file blob``: no textconv, no filter)."""
    try:
        return git(["cat-file", "blob", f"{commit}:{path}"], root)
    except GitError:
        return None


# --------------------------------------------------------------------------------------------
# the diff


def read_diff(
    base: str,
    cwd: Path,
    *,
    use_merge_base: bool = False,
    include_untracked: bool = True,
) -> Diff:
    """``git diff BASE`` (working tree against BASE), parsed; see the module docstring."""
    root = repo_root(cwd)
    commit = resolve_commit(base, root)
    if use_merge_base:
        commit = merge_base(commit, root)
    no_filters = filters_off(root)
    text = git(
        [
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--find-renames",
            f"--unified={CONTEXT_LINES}",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            commit,
            "--",
        ],
        root,
        what=f"git diff {base}",
        config=no_filters,
    )
    diff = Diff(root=root, base=base, base_commit=commit, files=parse_unified_diff(text))
    if include_untracked:
        known = {f.path for f in diff.files}
        out = git(["ls-files", "-z", "--others", "--exclude-standard"], root, config=no_filters)
        for rel in filter(None, out.split("\0")):
            if rel in known:
                continue
            diff.files.append(_untracked(root, rel))
    diff.files.sort(key=lambda f: f.display)
    return diff


def _untracked(root: Path, rel: str) -> FileDiff:
    fd = FileDiff(path=rel, old_path="")
    try:
        data = (root / rel).read_bytes()
    except OSError:
        return fd
    if b"\0" in data[:8192]:
        fd.binary = True
        return fd
    text = data.decode("utf-8", "surrogateescape")
    for number, line in enumerate(text.splitlines(), start=1):
        fd.added[number] = line
    return fd


def _unquote(path: str) -> str:
    """Undo git's C-style quoting of a path (``"t\\303\\251st.py"`` -> ``tést.py``)."""
    if not (len(path) >= 2 and path.startswith('"') and path.endswith('"')):
        return path
    body = path[1:-1]
    escapes = {"n": 10, "t": 9, '"': 34, "\\": 92, "a": 7, "b": 8, "f": 12, "r": 13, "v": 11}
    out = bytearray()
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            octal = body[i + 1 : i + 4]
            if re.fullmatch(r"[0-7]{3}", octal):
                out.append(int(octal, 8))
                i += 4
                continue
            nxt = body[i + 1]
            if nxt in escapes:
                out.append(escapes[nxt])
            else:
                out += nxt.encode("utf-8", "surrogateescape")
            i += 2
            continue
        out += ch.encode("utf-8", "surrogateescape")
        i += 1
    return out.decode("utf-8", "surrogateescape")


def _strip_prefix(path: str, prefix: str) -> str:
    """A path from a ``---``/``+++`` line or the header, without its ``a/``/``b/`` prefix."""
    path = path.rstrip("\n")
    # git appends a tab after names that contain spaces
    path = _unquote(path.rstrip("\t")) if path.startswith('"') else path.split("\t")[0]
    if path == "/dev/null":
        return ""
    return path[len(prefix) :] if path.startswith(prefix) else path


def parse_unified_diff(text: str) -> list[FileDiff]:
    """Parse ``git diff`` output (with a/ and b/ prefixes) into one FileDiff per file."""
    parser = _DiffParser()
    for raw in text.split("\n"):
        parser.feed(raw)
    for fd in parser.files:
        _finish_file(fd)
    return parser.files


class _DiffParser:
    """parse_unified_diff's state: the files so far, and the position in the current hunk."""

    def __init__(self) -> None:
        self.files: list[FileDiff] = []
        self.current: FileDiff | None = None
        self.old_no = self.new_no = 0
        self.old_left = self.new_left = 0
        self.in_hunk = False

    def feed(self, raw: str) -> None:
        if raw.startswith("diff --git "):
            self.current = FileDiff(path="", old_path="")
            self.current._header = raw  # type: ignore[attr-defined]
            self.files.append(self.current)
            self.in_hunk = False
            return
        current = self.current
        if current is None:
            return
        if self.in_hunk and (self.old_left > 0 or self.new_left > 0):
            if self._hunk_line(current, raw):
                return
            self.in_hunk = False
        if raw.startswith("\\"):
            return
        match = _HUNK.match(raw)
        if match:
            self._start_hunk(match)
            return
        _header_line(current, raw)

    def _hunk_line(self, current: FileDiff, raw: str) -> bool:
        """Take one line of a hunk; False when the line is not one (the hunk ended)."""
        tag, body = raw[:1], raw[1:]
        if tag == "+":
            current.added[self.new_no] = body
            self.new_no += 1
            self.new_left -= 1
        elif tag == "-":
            current.deleted[self.old_no] = body
            current.deleted_at[self.old_no] = self.new_no
            self.old_no += 1
            self.old_left -= 1
        elif tag == " " or raw == "":
            current.context.add(self.new_no)
            self.old_no += 1
            self.new_no += 1
            self.old_left -= 1
            self.new_left -= 1
        elif tag != "\\":  # "\ No newline at end of file" is skipped
            return False
        return True

    def _start_hunk(self, match: re.Match[str]) -> None:
        self.old_no = int(match.group(1))
        self.old_left = int(match.group(2)) if match.group(2) is not None else 1
        self.new_no = int(match.group(3))
        self.new_left = int(match.group(4)) if match.group(4) is not None else 1
        if self.old_left == 0:
            self.old_no += 1  # "-5,0": the insertion follows old line 5
        self.in_hunk = True


def _header_line(current: FileDiff, raw: str) -> None:
    """A line of a file's extended header (paths, renames, binary, new or deleted)."""
    if raw.startswith("--- "):
        current.old_path = _strip_prefix(raw[4:], "a/")
        current._seen_old = True  # type: ignore[attr-defined]
    elif raw.startswith("+++ "):
        current.path = _strip_prefix(raw[4:], "b/")
    elif raw.startswith("rename from "):
        current.old_path = _unquote(raw[len("rename from ") :])
    elif raw.startswith("rename to "):
        current.path = _unquote(raw[len("rename to ") :])
    elif raw.startswith("Binary files ") or raw.startswith("GIT binary patch"):
        current.binary = True
    elif raw.startswith("new file mode"):
        current._status = "new"  # type: ignore[attr-defined]
    elif raw.startswith("deleted file mode"):
        current._status = "deleted"  # type: ignore[attr-defined]


def _finish_file(fd: FileDiff) -> None:
    header = getattr(fd, "_header", "")
    if not getattr(fd, "_seen_old", False) and not fd.path and not fd.old_path and header:
        # no ---/+++ lines (mode change, empty or binary file): take the paths from the header
        fd.old_path, fd.path = _header_paths(header)
    status = getattr(fd, "_status", "")
    if status == "new":
        fd.old_path = ""
    elif status == "deleted":
        fd.old_path, fd.path = fd.old_path or fd.path, ""
    for attr in ("_header", "_seen_old", "_status"):
        if hasattr(fd, attr):
            delattr(fd, attr)


def _header_paths(header: str) -> tuple[str, str]:
    rest = header[len("diff --git ") :]
    if rest.startswith('"'):
        end = rest.index('"', 1)
        while rest[end - 1] == "\\":
            end = rest.index('"', end + 1)
        a, b = rest[: end + 1], rest[end + 2 :]
    else:
        half = len(rest) // 2  # "a/x b/x": both halves are the same path when not renamed
        a, b = rest[:half], rest[half + 1 :]
    return _strip_prefix(a, "a/"), _strip_prefix(b, "b/")
