"""The server's JSON-RPC transport under a raw client (tests/lsp/raw.py): malformed
frames, params of the wrong shape, cancellation and queued edits (issues 23 and 24)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import SENTINEL_DROPS_FRAME, SENTINEL_FIXED, write_file
from tests.lsp.raw import RawClient, frame

PARSE_ERROR, INVALID_PARAMS, REQUEST_CANCELLED = -32700, -32602, -32800


def _code_action(msg_id, uri: str) -> dict:
    return {
        "id": msg_id,
        "method": "textDocument/codeAction",
        "params": {
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "context": {"diagnostics": []},
        },
    }


@pytest.fixture
def raw(project: Path):
    client = RawClient(project)
    client.initialize(project)
    yield client
    client.close()


def _parse_error(message: dict) -> bool:
    return message.get("id") is None and message.get("error", {}).get("code") == PARSE_ERROR


BODY = json.dumps({"jsonrpc": "2.0", "id": "lost", "method": "textDocument/hover", "params": {}}).encode()

MALFORMED = {
    "Content-Length too small": b"Content-Length: 10\r\n\r\n" + BODY,
    "Content-Length not a number": b"Content-Length: abc\r\n\r\n" + BODY,
    "no Content-Length": b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + BODY,
    "no header at all": BODY,
}


@pytest.mark.parametrize("together", [True, False], ids=["one-write", "two-writes"])
def test_the_server_answers_after_malformed_frames(raw: RawClient, project: Path, together: bool):
    uri = (project / "pkg" / "x.py").as_uri()
    for n, (case, bad) in enumerate(MALFORMED.items()):
        good = frame(_code_action(n, uri))
        if together:
            raw.write(bad + good)
        else:
            raw.write(bad)
            if case != "no header at all":  # the bad frame is known bad before the next comes
                raw.wait(_parse_error, timeout=30)
            raw.write(good)
        assert raw.response(n, timeout=30) == {"jsonrpc": "2.0", "id": n, "result": []}, case
        assert any(_parse_error(m) for m in raw.seen), case
        raw.seen.clear()


def test_a_request_with_positional_params_gets_an_error_response(raw: RawClient, project: Path):
    raw.write(frame({"id": 41, "method": "textDocument/codeAction", "params": [1, 2]}))
    response = raw.response(41, timeout=30)
    assert response["error"]["code"] == INVALID_PARAMS
    # and the server goes on answering
    raw.write(frame(_code_action(42, (project / "x.py").as_uri())))
    assert raw.response(42, timeout=30)["result"] == []


def test_a_cancelled_request_that_has_not_run_is_answered_request_cancelled(raw: RawClient, project: Path):
    uri = (project / "pkg" / "x.py").as_uri()
    raw.write(
        frame(_code_action(7, uri))
        + frame({"method": "$/cancelRequest", "params": {"id": 7}})
        + frame(_code_action(8, uri))
    )
    assert raw.response(7, timeout=30)["error"]["code"] == REQUEST_CANCELLED
    assert raw.response(8, timeout=30)["result"] == []


def test_only_the_latest_of_queued_edits_is_linted(raw: RawClient, project: Path):
    text = SENTINEL_DROPS_FRAME
    path = write_file(project, "pkg/sentinel.py", text)
    uri = path.as_uri()
    messages = [
        {
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
        }
    ]
    for version in range(2, 7):
        messages.append(
            {
                "method": "textDocument/didChange",
                "params": {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"text": SENTINEL_FIXED if version == 6 else f"{text}# {version}\n"}],
                },
            }
        )
    raw.write(b"".join(frame(m) for m in messages))
    last = raw.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["version"] == 6)
    assert last["params"]["diagnostics"] == []
    raw.write(frame(_code_action("after", uri)))
    raw.response("after")
    versions = [m["params"]["version"] for m in raw.seen if m.get("method") == "textDocument/publishDiagnostics"]
    assert versions == [6]


def test_exit_with_the_pipe_still_open_ends_the_server_cleanly(project: Path):
    """`exit` after `shutdown` while the client keeps the server's stdin open: status 0
    and nothing on stderr (the reader thread held stdin's buffer lock while waiting, and
    the interpreter's shutdown aborted: SIGABRT)."""
    import os
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "ftlint", "server"],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "FTLINT_NO_CACHE": "1"},
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    init = {"processId": None, "rootUri": project.as_uri(), "capabilities": {}}
    proc.stdin.write(frame({"id": 1, "method": "initialize", "params": init}))
    proc.stdin.flush()
    assert proc.stdout.read1(65536)  # the first bytes of the answer: the server is up
    proc.stdin.write(frame({"id": 2, "method": "shutdown"}) + frame({"method": "exit"}))
    proc.stdin.flush()
    try:
        assert proc.wait(timeout=60) == 0
        assert b"Fatal Python error" not in proc.stderr.read()
    finally:
        proc.kill()
        proc.stdin.close()
