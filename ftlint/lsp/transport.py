"""The server's message loop over stdio, in place of pygls's reader: frames read robustly
(framing.py), every message that has arrived parsed before the next one is handled, and
the server's linting done only when no message is waiting, one document at a time.

So, unlike a reader that hands over one message per read:
- several `didChange` of a document queued behind a long lint are applied together and
  only the latest version is linted (stale versions are never linted nor published);
- a `$/cancelRequest` for a request still waiting is answered with RequestCancelled
  (-32800) instead of running the request;
- a malformed frame gets a ParseError (-32700, id null) and the next frame is read; a
  request whose params do not fit its method (positional params) gets InvalidParams
  (-32602) to its id; a message that is not a JSON-RPC object gets InvalidRequest
  (-32600).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
from collections import deque
from collections.abc import Callable
from typing import Any, BinaryIO

from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
    JsonRpcRequestCancelled,
)

from ftlint.lsp.framing import Frame, FrameParser

log = logging.getLogger("ftlint.lsp")

CANCEL = "$/cancelRequest"
_DOCUMENT_CHANGES = ("textDocument/didChange", "textDocument/didClose")
_CHUNK = 1 << 16


class MessageLoop:
    """`run()` serves until end of input (or the client's `exit`, which raises SystemExit).
    `idle_work()` is called whenever no message is waiting; it does one unit of work and
    returns whether more is left."""

    def __init__(self, protocol: Any, stdin: BinaryIO, idle_work: Callable[[], bool]) -> None:
        self.protocol = protocol
        self.stdin = stdin
        self.idle_work = idle_work
        self.parser = FrameParser()
        self.inbox: deque[dict[str, Any]] = deque()
        self.cancelled: set[object] = set()
        self._chunks: deque[bytes] = deque()
        self._eof = False
        self.work_pending = False
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- reading (a thread: reads block) -----------------------------------------------
    def _read(self) -> None:
        read = self._raw_reader()
        while True:
            try:
                data = read(_CHUNK)
            except (OSError, ValueError):
                data = b""
            assert self._loop is not None
            self._loop.call_soon_threadsafe(self._arrived, data)
            if not data:
                return

    def _raw_reader(self) -> Callable[[int], bytes]:
        """The stream's read: os.read on its file descriptor when it has one. A buffered
        reader's lock, held by this thread while it waits for input, aborts the
        interpreter's shutdown after `exit` (SIGABRT, "could not acquire lock for
        <stdin>") when the client keeps the pipe open."""
        try:
            fd = self.stdin.fileno()
        except (AttributeError, OSError, ValueError):
            fd = None
        if fd is not None:
            return lambda size: os.read(fd, size)
        return getattr(self.stdin, "read1", None) or self.stdin.read

    def _arrived(self, data: bytes) -> None:
        if data:
            self._chunks.append(data)
        else:
            self._eof = True
        if self._wake is not None:
            self._wake.set()

    def waiting(self) -> bool:
        """Whether a message has arrived that is not handled yet."""
        self._pump()
        return bool(self.inbox)

    def change_waiting(self, uri: str) -> bool:
        """Whether an edit or close of the document `uri` has arrived and waits."""
        self._pump()
        for message in self.inbox:
            if isinstance(message, dict) and message.get("method") in _DOCUMENT_CHANGES:
                params = message.get("params")
                document = params.get("textDocument") if isinstance(params, dict) else None
                if isinstance(document, dict) and document.get("uri") == uri:
                    return True
        return False

    # -- parsing -------------------------------------------------------------------------
    def _pump(self) -> None:
        while self._chunks:
            self.parser.feed(self._chunks.popleft())
        while (event := self.parser.next_event()) is not None:
            if not isinstance(event, Frame):
                log.warning("malformed LSP frame: %s", event.reason)
                self.send_error(None, JsonRpcParseError(f"ftlint: {event.reason}"))
                continue
            try:
                message = json.loads(event.body)
            except (ValueError, UnicodeDecodeError) as err:
                self.parser.bad_body(event.body)
                log.warning("LSP frame body is not JSON: %s", err)
                self.send_error(None, JsonRpcParseError(f"ftlint: the frame's body is not JSON ({err})"))
                continue
            if isinstance(message, dict) and message.get("method") == CANCEL and "id" not in message:
                self._cancel(message.get("params"))
                continue
            self.inbox.append(message)

    def _cancel(self, params: object) -> None:
        target = params.get("id") if isinstance(params, dict) else None
        queued = any(m.get("id") == target and "method" in m for m in self.inbox if isinstance(m, dict))
        if queued:
            self.cancelled.add(target)
        elif target is not None:
            self.protocol._handle_cancel_notification(target)  # one in flight (async), if any

    # -- handling ------------------------------------------------------------------------
    def dispatch(self, raw: object) -> None:
        if not isinstance(raw, dict) or raw.get("jsonrpc") != "2.0":
            msg_id = raw.get("id") if isinstance(raw, dict) else None
            self.send_error(msg_id, JsonRpcInvalidRequest("ftlint: not a JSON-RPC 2.0 message object"))
            return
        is_request = "method" in raw and "id" in raw
        if is_request and raw["id"] in self.cancelled:
            self.cancelled.discard(raw["id"])
            self.send_error(raw["id"], JsonRpcRequestCancelled(f"ftlint: request {raw['id']!r} cancelled"))
            return
        try:
            message = self.protocol.structure_message(raw)
        except JsonRpcException as err:
            log.warning("LSP message %r rejected: %s", raw.get("method"), err)
            if is_request:
                self.send_error(raw["id"], err)
            return
        try:
            self.protocol.handle_message(message)
        except JsonRpcException as err:
            if is_request:
                self.send_error(raw["id"], err)
        except Exception:
            log.exception("handling %r failed", raw.get("method"))

    def send_error(self, msg_id: object, error: JsonRpcException) -> None:
        response = error.to_response_error()
        payload = {"code": response.code, "message": response.message}
        self.protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "error": payload})

    async def run(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        threading.Thread(target=self._read, name="ftlint-lsp-reader", daemon=True).start()
        while True:
            self._pump()
            if self.inbox:
                self.dispatch(self.inbox.popleft())
                self.work_pending = True  # the message may have queued work
            elif self.work_pending:
                self.work_pending = self.idle_work()
            elif self._eof:
                return
            else:
                self._wake.clear()
                if not self._chunks and not self._eof:
                    await self._wake.wait()
                continue
            await asyncio.sleep(0)  # futures' callbacks, the reader's chunks

    def schedule(self) -> None:
        """Work was queued outside a message (a future's callback): do it when idle."""
        self.work_pending = True
        if self._wake is not None:
            self._wake.set()
