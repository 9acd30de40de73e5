#!/usr/bin/env python3
"""Time `ftlint server` answering edits (issue 24 item 2's targets): edit -> diagnostics,
warm, p90 <= 50 ms on every file of the tree that holds a handler (`def on_fault`),
<= 100 ms on `vllm/third_party/pynvml.py` (408 functions, 7,000 lines), and <= 0.5 s on
a generated file of 10,000 functions.

    python benchmarks/bench_server.py /path/to/tree [--edits 20] [--python PY] [--file F]

Fetches nothing: give it a tree (an unpacked vLLM sdist, a checkout, or a copy of the
installed package's parent directory, with `git init` so it has a project root as a
checkout does). Starts `PY -m ftlint server` in the tree over stdio, as an editor does,
with a small JSON-RPC client of its own (no pygls on this side; frames read by
ftlint.lsp.framing), then for each file:

  open   didOpen of FILE -> its publishDiagnostics (the first: the project scan, LibCST import)
  edit   N x didChange of FILE (the whole text, as a full-sync client sends it) -> the
         publishDiagnostics of that version. Each edit appends a comment to a different
         one-line statement inside `on_fault` (the middle one of the file's, in a file
         that has several; in a file with none, the middle function's), so the server
         re-outlines the file and re-parses the function edited.
  close  didClose.

The generated file (`--functions`, default 10,000: one in ten a class with an `on_fault`
that calls a helper) is only a buffer: its path, at the tree's root, is never written.
Prints per file the open time, the edits' median, p90, min and max (ms), the server's CPU
time per edit (from /proc: what an edit costs when other processes share the CPUs), the
target, and whether the codes published after the last edit are those of the open (a
comment changes no finding). `--file F` times that file only (target 50 ms), `--generated-only` the generated file only. No file on
disk is written.
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
from collections import Counter
from pathlib import Path

from ftlint.lsp.framing import read_bodies

PYNVML = "vllm/third_party/pynvml.py"
GENERATED = "ftlint_bench_generated.py"  # at the tree's root; never written
HANDLER_MS, PYNVML_MS, GENERATED_MS = 50.0, 100.0, 500.0


class Client:
    """JSON-RPC over a child's stdin/stdout; a thread reads messages with their arrival time."""

    def __init__(self, command: list[str], cwd: Path) -> None:
        self.proc = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.messages: queue.Queue[tuple[float, dict]] = queue.Queue()
        self._id = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

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
            self._reader.join(timeout=5)  # the server's output ends: the reader ends before this process
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


def edit_lines(text: str, name: str = "on_fault") -> list[int]:
    """The one-line statements (0-based lines, where a comment may go) inside the middle
    `def name` of the file, or inside its middle function when it has no `def name`."""
    import ast

    functions = [n for n in ast.walk(ast.parse(text)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    named = [n for n in functions if n.name == name]
    for candidates in (named, functions):
        candidates = sorted(candidates, key=lambda node: node.lineno)
        order = sorted(range(len(candidates)), key=lambda k: abs(k - len(candidates) // 2))
        for node in (candidates[k] for k in order):
            found = {
                statement.lineno - 1
                for statement in ast.walk(node)
                if isinstance(statement, ast.stmt)
                and statement is not node
                and statement.lineno == statement.end_lineno  # one-line statements: a comment ends them
            }
            if found:
                return sorted(found)
    raise SystemExit("bench_server: no function with a one-line statement in the file")


def generated(functions: int) -> str:
    """`functions` functions, one in ten a class of its own whose `on_fault` calls a helper."""
    handler = (
        "class Sentinel{i}:\n    def on_fault(self, exc):\n        for r in list(self.scheduler.running):\n"
        "            r.drop_stale_output = True\n            helper_{i}(r)\n\n\n"
    )
    return "".join(
        handler.format(i=i) if i % 10 == 0 else f"def helper_{i}(r):\n    return [r, {i}][0]\n\n\n"
        for i in range(functions)
    )


def handler_files(tree: Path) -> list[str]:
    """The tree's Python files that define `on_fault`."""
    import ast

    found = []
    for path in sorted(tree.rglob("*.py")):
        data = path.read_bytes()
        if b"on_fault" not in data:
            continue
        try:
            module = ast.parse(data)
        except (SyntaxError, ValueError):
            continue
        if any(
            isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "on_fault" for n in ast.walk(module)
        ):
            found.append(path.relative_to(tree).as_posix())
    return found


def percentile(times: list[float], q: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def time_file(client: Client, tree: Path, name: str, text: str, edits: int, version: int) -> dict:
    """Open, edit `edits` times, close; the figures of one file."""
    uri = (tree / name).as_uri()
    lines = edit_lines(text)
    sent = client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "python", "version": version, "text": text}},
    )
    arrived, message = client.wait(published(uri, version))
    open_ms = (arrived - sent) * 1000
    first_codes = sorted(d["code"] for d in message["params"]["diagnostics"])
    times = []
    last_codes = first_codes
    cpu_before = cpu_seconds(client.proc.pid)
    for n in range(1, edits + 1):
        sent = client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version + n},
                "contentChanges": [{"text": edited(text, lines, n)}],
            },
        )
        arrived, message = client.wait(published(uri, version + n))
        times.append((arrived - sent) * 1000)
        last_codes = sorted(d["code"] for d in message["params"]["diagnostics"])
    cpu_after = cpu_seconds(client.proc.pid)
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    cpu = None if cpu_before is None or cpu_after is None else (cpu_after - cpu_before) * 1000 / edits
    return {"open": open_ms, "times": times, "cpu": cpu, "codes": last_codes, "same": first_codes == last_codes}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree", type=Path)
    parser.add_argument("--file", help="time this file only (target p90 50 ms)")
    parser.add_argument("--generated-only", action="store_true", help="time the generated file only (target 0.5 s)")
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--functions", type=int, default=10_000, help="functions of the generated file")
    parser.add_argument("--python", default=sys.executable, help="the interpreter that has ftlint and pygls")
    args = parser.parse_args()

    tree = args.tree.resolve()
    if args.generated_only:
        targets = [(GENERATED, generated(args.functions), GENERATED_MS)]
    elif args.file:
        targets = [(args.file, (tree / args.file).read_text(encoding="utf-8"), HANDLER_MS)]
    else:
        targets = [(name, (tree / name).read_text(encoding="utf-8"), HANDLER_MS) for name in handler_files(tree)]
        if (tree / PYNVML).is_file():
            targets.append((PYNVML, (tree / PYNVML).read_text(encoding="utf-8"), PYNVML_MS))
        targets.append((GENERATED, generated(args.functions), GENERATED_MS))
    env_note = "FTLINT_NO_CACHE" if os.environ.get("FTLINT_NO_CACHE") else ""

    client = Client([args.python, "-m", "ftlint", "server"], tree)
    results = []
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
        for k, (name, text, target) in enumerate(targets):
            results.append((name, target, time_file(client, tree, name, text, args.edits, k * (args.edits + 1))))
    finally:
        client.close()

    print(f"tree: {tree}  edits per file: {args.edits} {env_note}")
    print(f"start + initialize: {(initialized - started) * 1000:.1f} ms")
    passed = True
    for name, target, r in results:
        times = r["times"]
        p50, p90 = statistics.median(times), percentile(times, 0.9)
        ok = p90 <= target and r["same"]
        passed = passed and ok
        codes = dict(sorted(Counter(r["codes"]).items()))
        cpu = f", server CPU/edit {r['cpu']:.1f} ms" if r["cpu"] is not None else ""
        print(
            f"{name}: open {r['open']:.0f} ms; edit -> diagnostics p50 {p50:.1f} ms, p90 {p90:.1f} ms, "
            f"min {min(times):.1f}, max {max(times):.1f}{cpu}; target p90 <= {target:.0f} ms: "
            f"{'PASS' if ok else 'FAIL'}; published {codes} (unchanged by the edits: {r['same']})"
        )
    try:
        print(f"load average (1 min) at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    except OSError:
        pass
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
