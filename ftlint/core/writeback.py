"""Read a file for rewriting, and write a rewritten text back without damaging it.

`--fix` and `--add-noqa` both go through here. A file is read once as bytes (its
codec, BOM and newlines kept: the text is decoded without newline translation, so
every line an edit leaves alone goes back byte for byte). The write is all or
nothing and never follows a planted name:

- the new bytes go to a `tempfile.mkstemp` file (exclusive creation, unpredictable
  name) in the target's own directory, with the target's mode, then `os.replace`;
- a symlink is fixed at its target (the link stays a link); a file with several
  hard links, or without write permission, is refused with a message;
- the file must still hold the bytes that were linted (checked under an advisory
  lock, so two ftlint runs cannot interleave), otherwise it is left alone.

Nothing here raises for a bad file: every refusal or failure is a `WriteProblem`.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ftlint.core.source import ParseFailure, decode_with_encoding, read_bytes

try:  # advisory locks serialise two ftlint runs on one file (POSIX only)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

TEMP_SUFFIX = ".ftlint-tmp"


@dataclass(frozen=True)
class SourceFile:
    """A file as read for rewriting: its bytes, the codec that decodes them, the text."""

    path: Path
    data: bytes
    encoding: str
    text: str

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


@dataclass(frozen=True)
class WriteProblem:
    """Why a file was not rewritten. `error`: a failure (exit 2); otherwise a refusal
    or a skip that leaves the file as it was on purpose (its findings remain)."""

    path: Path
    message: str
    error: bool

    def __str__(self) -> str:
        from ftlint.core.names import escape_path

        return f"{escape_path(os.fspath(self.path))}: {self.message}"


def read_source(path: Path) -> SourceFile | ParseFailure:
    data = read_bytes(path)
    if isinstance(data, ParseFailure):
        return data
    decoded = decode_with_encoding(data)
    if isinstance(decoded, ParseFailure):
        return decoded
    text, encoding = decoded
    return SourceFile(path=path, data=data, encoding=encoding, text=text)


def write_back(source: SourceFile, new_text: str) -> WriteProblem | None:
    """Replace the file's content with `new_text` (in its own codec) if it still holds
    `source.data`. None when written."""
    path = source.path
    try:
        data = new_text.encode(source.encoding)
    except UnicodeEncodeError as err:
        return WriteProblem(
            path, f"not written: the fixed text cannot be encoded as {source.encoding} ({err.reason})", True
        )
    try:
        target = Path(os.path.realpath(path))  # a symlink is fixed where it points
        info = os.stat(target)
    except OSError as err:
        return WriteProblem(path, f"not written: {err.strerror or err}", True)
    refused = _refusal(path, info)
    if refused is not None:
        return refused
    lock_fd = None
    tmp: str | None = None
    try:
        lock_fd = os.open(target, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        if fcntl is not None:
            fcntl.flock(lock_fd, fcntl.LOCK_EX)
        if _current_bytes(target) != source.data:
            return WriteProblem(path, "skipped: the file changed since it was linted (run ftlint again)", False)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=TEMP_SUFFIX, dir=target.parent)
        _fill(fd, tmp, data, info)
        if _current_bytes(target) != source.data:  # an editor saved while we wrote
            return WriteProblem(path, "skipped: the file changed since it was linted (run ftlint again)", False)
        os.replace(tmp, target)
        tmp = None
        return None
    except OSError as err:
        where = f" ({err.filename})" if err.filename and os.fspath(err.filename) != os.fspath(target) else ""
        return WriteProblem(path, f"not written: {err.strerror or err}{where}", True)
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        if lock_fd is not None:
            os.close(lock_fd)  # releases the lock


def _refusal(path: Path, info: os.stat_result) -> WriteProblem | None:
    """Why a file with this stat is not replaced (not a regular file, hard links, read-only)."""
    if not stat.S_ISREG(info.st_mode):
        return WriteProblem(path, "not written: not a regular file", True)
    if info.st_nlink > 1:
        return WriteProblem(
            path,
            f"not written: it has {info.st_nlink} hard links and replacing it would split them (fix it by hand)",
            False,
        )
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return WriteProblem(path, "not written: the file is read-only", True)
    return None


def _fill(fd: int, tmp: str, data: bytes, info: os.stat_result) -> None:
    """Write `data` to the temporary file `fd` (at `tmp`) with the file's mode (and its
    owner, where allowed), synced to disk; closes `fd`."""
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, stat.S_IMODE(info.st_mode))
        else:  # pragma: no cover - Windows before 3.13
            os.chmod(tmp, stat.S_IMODE(info.st_mode))
        try:
            os.fchown(fd, info.st_uid, info.st_gid)
        except (OSError, AttributeError):
            pass  # not ours to give away: the mode is kept, the owner is the writer
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
    finally:
        os.close(fd)


def _current_bytes(target: Path) -> bytes:
    with open(target, "rb") as fh:
        return fh.read()
