"""LSP base-protocol frames (`Content-Length: N` headers, a blank line, N bytes of JSON)
read so that one malformed frame costs only itself: a header without a usable
Content-Length, a body that is not JSON (a Content-Length too small or too large), or
bytes outside any frame are each reported once (a JSON-RPC ParseError, id null) and the
reader resynchronises on the next header. pygls's own reader stops answering after one.

Pure bytes in, events out (Frame or Malformed), one at a time (`next_event`), so the
server can tell the parser that a body it took was not JSON (`bad_body`) before the
bytes after it are looked at.

`read_bodies` is the same parser over a blocking stream: the reader of the clients that
talk to the server (tests/lsp/raw.py, benchmarks/bench_server.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

_HEADER_START = re.compile(rb"content-(?:length|type)[ \t]*:", re.I)
_HEADER_END = re.compile(rb"\r?\n\r?\n")
_KEEP = 32  # bytes kept from skipped data: the start of a header split across reads
_MAX_HEADER = 8192  # a header block longer than this never ends: skipped
_MAX_JUNK = 1 << 16  # skipped data held before it is dropped


@dataclass(frozen=True)
class Frame:
    body: bytes


@dataclass(frozen=True)
class Malformed:
    reason: str


class FrameParser:
    def __init__(self) -> None:
        self.buffer = bytearray()
        self._length: int | None = None  # the body being read
        self._skipping = False  # inside data already reported: skip it silently

    def feed(self, data: bytes) -> None:
        self.buffer += data

    def next_event(self) -> Frame | Malformed | None:
        """The next complete frame or malformed part, or None until more bytes come."""
        buffer = self.buffer
        if self._length is not None:
            if len(buffer) < self._length:
                return None
            body = bytes(buffer[: self._length])
            del buffer[: self._length]
            self._length = None
            return Frame(body)
        start = _HEADER_START.search(buffer)
        if start is None:
            return self._skip_all()
        if start.start():
            junk = bytes(buffer[: start.start()])
            del buffer[: start.start()]
            if junk.strip() and not self._skipping:
                self._skipping = True  # reported; the header after it is read next time
                return Malformed("data outside a frame (no Content-Length header before it)")
        end = _HEADER_END.search(buffer)
        if end is None:
            if len(buffer) > _MAX_HEADER:
                del buffer[: start.end() - start.start()]
                return self._report("a header block with no end")
            return None
        header = bytes(buffer[: end.start()])
        del buffer[: end.end()]
        length = _content_length(header)
        if length is None:
            self._skipping = True
            return Malformed("a frame without a valid Content-Length header")
        self._skipping = False
        self._length = length
        return self.next_event()

    def bad_body(self, body: bytes) -> None:
        """The body of the last Frame was not JSON: what follows it up to the next header
        is the rest of that frame (its Content-Length was too small), and a header inside
        it starts the next frame (its Content-Length was too large)."""
        self._skipping = True
        inner = _HEADER_START.search(body, 1)
        if inner is not None:
            self.buffer[:0] = body[inner.start() :]

    def _skip_all(self) -> Frame | Malformed | None:
        buffer = self.buffer
        if not buffer.strip():
            return None
        if len(buffer) <= _MAX_JUNK:
            return None  # a header may still come after it: decide then
        del buffer[:-_KEEP]
        return self._report("data outside a frame (no Content-Length header before it)")

    def _report(self, reason: str) -> Frame | Malformed | None:
        if self._skipping:
            return self.next_event()
        self._skipping = True
        return Malformed(reason)


class MalformedFrame(ValueError):
    """A frame the peer sent is malformed (read_bodies)."""


def read_bodies(stream: BinaryIO, chunk: int = 1 << 16) -> Iterator[bytes]:
    """The body of each frame read from `stream`, until its end; a malformed frame raises
    MalformedFrame (a client reading a server: the server must never send one)."""
    parser = FrameParser()
    read = getattr(stream, "read1", None) or stream.read
    while True:
        while (event := parser.next_event()) is not None:
            if isinstance(event, Malformed):
                raise MalformedFrame(event.reason)
            yield event.body
        data = read(chunk)
        if not data:
            return
        parser.feed(data)


def _content_length(header: bytes) -> int | None:
    length = None
    for line in re.split(rb"\r?\n", header):
        name, colon, value = line.partition(b":")
        if not colon:
            return None
        if name.strip().lower() == b"content-length":
            value = value.strip()
            if not value.isdigit():
                return None
            length = int(value)
    return length
