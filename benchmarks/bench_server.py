#!/usr/bin/env python3
"""Time `ftlint server` answering edits of a fault-path file (issue 15's server target:
diagnostics after an edit of `engine_core_sentinel.py`, warm, on the vLLM tree, <= 50 ms
median).

    python benchmarks/bench_server.py /path/to/tree [--edits 40] [--python PY]

Fetches nothing: give it a tree (an unpacked vLLM sdist, a checkout, or a copy of the
installed package's parent directory, with `git init` so it has a project root as a
checkout does). Starts `PY -m ftlint server` in the tree over stdio, as an editor does,
with a small JSON-RPC client of its own (no pygls on this side; frames read by
ftlint.lsp.framing), then:

  open   didOpen of FILE -> its publishDiagnostics (cold: the project scan, LibCST import)
  edit   N x didChange of FILE (the whole text, as a full-sync client sends it) -> the
         publishDiagnostics of that version. Each edit changes the handler's own lines
         (a comment appended to a line inside `on_fault`, a different one each time), so
         the server re-outlines the file and re-parses its fault-path functions.

and prints the open time, the edits' median, p90, min and max (ms), the server's CPU
time per edit (from /proc: what an edit costs when other processes share the CPUs), the
target, and the codes published after the last edit (the findings must not change with a
comment). The file on disk is never written.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from ftlint.lsp.framing import read_bodies

DEFAULT_FILE = "vllm/v1/fault_tolerance/engine_core_sentinel.py"
TARGET_MS = 50.0


class Client:
    """JSON-RPC over a child's stdin/stdout; a thread reads messages with their arrival time."""

    def __init__(self, command: list[str], cwd: Path) -> None:
        self.proc = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.messages: queue.Queue[tuple[float, dict]] = queue.Queue()
        self._id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for body in read_bodies(self.proc.stdout):  # the server's own frame parser (no pygls)
            self.messages.put((time.perf_counter(), json.loads(body)))

    def send(self, payload: dict) -> float:
        body = json.dumps({"jsonrpc": "2.0", **payload}).encode("utf-8")
        sent = time.perf_counter()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()
        return sent

    def request(self, method: str, params) -> dict:
        self._id += 1
        self.send({"id": self._id, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == self._id and "method" not in m)[1]

    def notify(self, method: str, params) -> float:
        return self.send({"method": method, "params": params})

    def wait(self, match, timeout: float = 300.0) -> tuple[float, dict]:
        deadline = time.monotonic() + timeout
        while True:
            arrived, message = self.messages.get(timeout=max(deadline - time.monotonic(), 0.001))
            if "method" in message and "id" in message:  # a request of the server's: answer it
                self.send({"id": message["id"], "result": None})
            if match(message):
                return arrived, message

    def close(self) -> None:
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=30)
        except Exception:  # noqa: BLE001 - a benchmark must not leave the server running
            self.proc.kill()


def cpu_seconds(pid: int):
    """The process's user + system CPU time (Linux /proc), or None elsewhere: on a busy
    machine the CPU an edit costs the server says more than the wall time."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def published(uri: str, version: int):
    def match(message: dict) -> bool:
        params = message.get("params") or {}
        return (
            message.get("method") == "textDocument/publishDiagnostics"
            and params.get("uri") == uri
            and params.get("version") == version
        )

    return match


def edited(text: str, lines: list[int], n: int) -> str:
    """`text` with a comment appended to one of `lines` (0-based), different for every n."""
    parts = text.splitlines(keepends=True)
    index = lines[n % len(lines)]
    line = parts[index]
    ending = line[len(line.rstrip("\r\n")) :]
    parts[index] = f"{line.rstrip(chr(13) + chr(10))}  # edit {n}{ending}"
    return "".join(parts)


def handler_lines(text: str, name: str = "on_fault") -> list[int]:
    """The code lines inside the body of `def name` (0-based), where a comment may go."""
    import ast

    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            found = set()
            for statement in ast.walk(node):
                if (
                    isinstance(statement, ast.stmt)
                    and statement is not node
                    and statement.lineno == statement.end_lineno  # one-line statements: a comment ends them
                ):
                    found.add(statement.lineno - 1)
            return sorted(found)
    raise SystemExit(f"bench_server: no `def {name}` in the file")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree", type=Path)
    parser.add_argument("--file", default=DEFAULT_FILE, help=f"the file to edit (default: {DEFAULT_FILE})")
    parser.add_argument("--edits", type=int, default=40)
    parser.add_argument("--python", default=sys.executable, help="the interpreter that has ftlint and pygls")
    args = parser.parse_args()

    tree = args.tree.resolve()
    path = tree / args.file
    text = path.read_text(encoding="utf-8")
    uri = path.as_uri()
    lines = handler_lines(text)
    env_note = "FTLINT_NO_CACHE" if os.environ.get("FTLINT_NO_CACHE") else ""

    client = Client([args.python, "-m", "ftlint", "server"], tree)
    try:
        started = time.perf_counter()
        client.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": tree.as_uri(),
                "capabilities": {"textDocument": {"publishDiagnostics": {"versionSupport": True}}},
            },
        )
        client.notify("initialized", {})
        initialized = time.perf_counter()
        sent = client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 0, "text": text}},
        )
        arrived, message = client.wait(published(uri, 0))
        open_ms = (arrived - sent) * 1000
        first_codes = sorted(d["code"] for d in message["params"]["diagnostics"])

        times = []
        last_codes = first_codes
        cpu_before = cpu_seconds(client.proc.pid)
        for n in range(1, args.edits + 1):
            sent = client.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": n},
                    "contentChanges": [{"text": edited(text, lines, n)}],
                },
            )
            arrived, message = client.wait(published(uri, n))
            times.append((arrived - sent) * 1000)
            last_codes = sorted(d["code"] for d in message["params"]["diagnostics"])
        cpu_after = cpu_seconds(client.proc.pid)
    finally:
        client.close()

    times.sort()
    median = statistics.median(times)
    p90 = times[min(len(times) - 1, round(0.9 * (len(times) - 1)))]
    print(f"tree: {tree}  file: {args.file}  edits: {len(times)} {env_note}")
    print(f"start + initialize: {(initialized - started) * 1000:8.1f} ms")
    print(f"open (cold):        {open_ms:8.1f} ms   published {first_codes}")
    print(
        f"edit -> diagnostics: median {median:.1f} ms, p90 {p90:.1f} ms, "
        f"min {times[0]:.1f} ms, max {times[-1]:.1f} ms   published {last_codes}"
    )
    if cpu_before is not None and cpu_after is not None:
        print(f"server CPU per edit (mean): {(cpu_after - cpu_before) * 1000 / len(times):.1f} ms")
    try:
        print(f"load average (1 min) at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    except OSError:
        pass
    passed = median <= TARGET_MS
    same = first_codes == last_codes
    print(
        f"target: median <= {TARGET_MS:.0f} ms: {'PASS' if passed else 'FAIL'}; findings unchanged by the edits: {same}"
    )
    return 0 if passed and same else 1


if __name__ == "__main__":
    sys.exit(main())
