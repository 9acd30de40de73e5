"""A raw JSON-RPC client for `python -m ftlint server` over pipes: it writes whatever bytes
a test gives it (malformed frames included, several messages in one write) and reads the
server's messages on a thread."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

from ftlint.lsp.framing import read_bodies

TIMEOUT = 60.0


def frame(payload: dict) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **payload}).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class RawClient:
    def __init__(self, cwd: Path, env: dict | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ftlint", "server"],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "FTLINT_NO_CACHE": "1", **(env or {})},
        )
        self.messages: queue.Queue[dict] = queue.Queue()
        self.seen: list[dict] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for body in read_bodies(self.proc.stdout):
            self.messages.put(json.loads(body))

    def write(self, data: bytes) -> None:
        """One write of the bytes as given (one pipe write: the server reads them together)."""
        assert self.proc.stdin is not None
        os.write(self.proc.stdin.fileno(), data)

    def wait(self, match, timeout: float = TIMEOUT) -> dict:
        while True:
            message = self.messages.get(timeout=timeout)
            self.seen.append(message)
            if "method" in message and "id" in message:  # a request of the server's
                self.write(frame({"id": message["id"], "result": None}))
            if match(message):
                return message

    def response(self, msg_id, timeout: float = TIMEOUT) -> dict:
        return self.wait(lambda m: m.get("id") == msg_id and "method" not in m, timeout)

    def initialize(self, root: Path, capabilities: dict | None = None) -> dict:
        self.write(
            frame(
                {
                    "id": "init",
                    "method": "initialize",
                    "params": {"processId": None, "rootUri": root.as_uri(), "capabilities": capabilities or {}},
                }
            )
        )
        result = self.response("init")
        self.write(frame({"method": "initialized", "params": {}}))
        return result

    def close(self) -> None:
        try:
            self.write(frame({"id": "bye", "method": "shutdown"}))
            self.response("bye", timeout=30)
            self.write(frame({"method": "exit"}))
            self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
