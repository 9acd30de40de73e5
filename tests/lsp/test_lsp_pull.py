"""Pull diagnostics (LSP 3.17 `textDocument/diagnostic`), `untitled:` buffers and URI
schemes the server does not lint, under the raw client (tests/lsp/raw.py) (issue 23)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from lsprotocol.converters import get_converter

from tests.helpers import (
    HELPER_FREES,
    SENTINEL_CALLS_HELPER,
    SENTINEL_DROPS_FRAME,
    SENTINEL_FIXED,
    apply_text_edits,
    write_file,
)
from tests.lsp.raw import RawClient, frame

SERVER_CANCELLED = -32802
#: a client that pulls diagnostics and accepts `workspace/diagnostic/refresh`
PULL = {
    "textDocument": {"diagnostic": {"dynamicRegistration": False, "relatedDocumentSupport": False}},
    "workspace": {"diagnostics": {"refreshSupport": True}},
}
PUBLISH = "textDocument/publishDiagnostics"
REFRESH = "workspace/diagnostic/refresh"
HELPER_EVICTS_FIRST = HELPER_FREES.replace(
    "    scheduler.finish_requests(",
    "    for request in requests:\n"
    "        kv = scheduler.kv_cache_manager\n"
    "        confirmed = request.num_computed_tokens - request.num_in_flight_tokens\n"
    "        for group in kv.coordinator.single_type_managers:\n"
    "            tail = group.req_to_blocks[request.request_id][confirmed // group.block_size :]\n"
    "            kv.evict_blocks({block.block_id for block in tail if not block.is_null})\n"
    "    scheduler.finish_requests(",
)


@pytest.fixture
def puller(project: Path):
    client = RawClient(project)
    client.init_result = client.initialize(project, PULL)
    yield client
    client.close()


@pytest.fixture
def pusher(project: Path):
    client = RawClient(project)
    client.initialize(project)
    yield client
    client.close()


def _open(client: RawClient, uri: str, text: str, language: str = "python") -> None:
    client.write(
        frame(
            {
                "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}},
            }
        )
    )


def _change(uri: str, text: str, version: int) -> dict:
    return {
        "method": "textDocument/didChange",
        "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
    }


def _pull(msg_id, uri: str, previous: str | None = None) -> dict:
    params: dict = {"textDocument": {"uri": uri}}
    if previous is not None:
        params["previousResultId"] = previous
    return {"id": msg_id, "method": "textDocument/diagnostic", "params": params}


def _pulled(client: RawClient, msg_id, uri: str, previous: str | None = None) -> dict:
    client.write(frame(_pull(msg_id, uri, previous)))
    response = client.response(msg_id)
    assert "error" not in response, response
    return response["result"]


def _code_actions(client: RawClient, msg_id, uri: str, diagnostic: dict) -> list[dict]:
    client.write(
        frame(
            {
                "id": msg_id,
                "method": "textDocument/codeAction",
                "params": {
                    "textDocument": {"uri": uri},
                    "range": diagnostic["range"],
                    "context": {"diagnostics": [diagnostic]},
                },
            }
        )
    )
    return client.response(msg_id)["result"]


def _applied(text: str, action: dict, uri: str) -> str:
    edits = get_converter().structure(action["edit"]["changes"][uri], list[types.TextEdit])
    return apply_text_edits(text, edits)


def test_pull_diagnostics_are_advertised_with_inter_file_dependencies(puller: RawClient):
    provider = puller.init_result["result"]["capabilities"]["diagnosticProvider"]
    assert provider == {"identifier": "ftlint", "interFileDependencies": True, "workspaceDiagnostics": False}


def test_a_pull_returns_the_findings_and_nothing_is_pushed(puller: RawClient, project: Path):
    uri = write_file(project, "pkg/sentinel.py", SENTINEL_DROPS_FRAME).as_uri()
    _open(puller, uri, SENTINEL_DROPS_FRAME)
    report = _pulled(puller, 1, uri)
    assert report["kind"] == "full" and report["resultId"]
    assert [(d["code"], d["source"], d["range"]["start"]["line"]) for d in report["items"]] == [("FT001", "ftlint", 5)]
    # the client pulls: no diagnostics are pushed as well (a barrier: a later request answered)
    _code_actions(puller, 2, uri, report["items"][0])
    assert not [m for m in puller.seen if m.get("method") == PUBLISH]


def test_the_same_result_id_is_unchanged_and_an_edit_gives_a_new_result(puller: RawClient, project: Path):
    uri = write_file(project, "pkg/sentinel.py", SENTINEL_DROPS_FRAME).as_uri()
    _open(puller, uri, SENTINEL_DROPS_FRAME)
    first = _pulled(puller, 1, uri)
    assert _pulled(puller, 2, uri, first["resultId"]) == {"kind": "unchanged", "resultId": first["resultId"]}

    puller.write(frame(_change(uri, SENTINEL_FIXED, 2)))
    after = _pulled(puller, 3, uri, first["resultId"])
    assert after["kind"] == "full" and after["items"] == []
    assert after["resultId"] != first["resultId"]


def test_a_pull_overtaken_by_an_edit_of_its_document_is_server_cancelled(puller: RawClient, project: Path):
    uri = write_file(project, "pkg/sentinel.py", SENTINEL_DROPS_FRAME).as_uri()
    _open(puller, uri, SENTINEL_DROPS_FRAME)
    puller.write(frame(_pull(1, uri)) + frame(_change(uri, SENTINEL_FIXED, 2)))
    error = puller.response(1)["error"]
    assert error["code"] == SERVER_CANCELLED and error["data"] == {"retriggerRequest": True}
    assert _pulled(puller, 2, uri)["items"] == []  # the retriggered pull: the new text's findings


def test_a_helper_edit_asks_the_client_to_pull_the_handler_again(puller: RawClient, project: Path):
    helper = write_file(project, "pkg/helpers.py", HELPER_FREES)
    handler_uri = write_file(project, "pkg/sentinel.py", SENTINEL_CALLS_HELPER).as_uri()
    _open(puller, handler_uri, SENTINEL_CALLS_HELPER)
    first = _pulled(puller, 1, handler_uri)
    assert [d["code"] for d in first["items"]] == ["FT007"]
    _open(puller, helper.as_uri(), HELPER_FREES)
    _pulled(puller, 2, helper.as_uri())

    # the helper's unsaved buffer now evicts first: the handler's FT007 goes, the server says so
    puller.write(frame(_change(helper.as_uri(), HELPER_EVICTS_FIRST, 2)))
    puller.wait(lambda m: m.get("method") == REFRESH)
    after = _pulled(puller, 3, handler_uri, first["resultId"])
    assert after["kind"] == "full" and after["items"] == []


def test_an_untitled_buffer_is_linted_with_the_root_config_and_its_actions_work(pusher: RawClient, project: Path):
    (project / "pyproject.toml").write_text('[tool.ftlint]\ndocs-url = "https://docs.example.org/ftlint/{code}.html"\n')
    write_file(project, "pkg/helpers.py", HELPER_FREES)
    uri = "untitled:Untitled-1"
    _open(pusher, uri, SENTINEL_DROPS_FRAME)
    published = pusher.wait(lambda m: m.get("method") == PUBLISH and m["params"]["uri"] == uri)
    (diagnostic,) = published["params"]["diagnostics"]
    assert diagnostic["code"] == "FT001" and diagnostic["range"]["start"]["line"] == 5
    # the workspace root's configuration applies (its docs-url)
    assert diagnostic["codeDescription"] == {"href": "https://docs.example.org/ftlint/FT001.html"}

    actions = _code_actions(pusher, 1, uri, diagnostic)
    (fix,) = [a for a in actions if a.get("isPreferred")]
    assert _applied(SENTINEL_DROPS_FRAME, fix, uri) == SENTINEL_FIXED
    (noqa,) = [a for a in actions if "noqa" in a["title"]]
    assert "# noqa: FT001" in _applied(SENTINEL_DROPS_FRAME, noqa, uri).splitlines()[5]

    # its imports resolve from the root, as stdin's do: the helper on disk frees (FT007)
    other = "untitled:Untitled-2"
    _open(pusher, other, SENTINEL_CALLS_HELPER)
    published = pusher.wait(lambda m: m.get("method") == PUBLISH and m["params"]["uri"] == other)
    assert [d["code"] for d in published["params"]["diagnostics"]] == ["FT007"]


def test_an_untitled_buffer_is_pulled_too(puller: RawClient):
    uri = "untitled:Untitled-1"
    _open(puller, uri, SENTINEL_DROPS_FRAME)
    assert [d["code"] for d in _pulled(puller, 1, uri)["items"]] == ["FT001"]


def test_a_document_of_another_scheme_is_skipped_and_the_client_told_once(puller: RawClient):
    uri = "gitfs:/repo/pkg/sentinel.py"
    _open(puller, uri, SENTINEL_DROPS_FRAME)
    _open(puller, "gitfs:/repo/pkg/other.py", SENTINEL_DROPS_FRAME)
    logged = puller.wait(lambda m: m.get("method") == "window/logMessage")
    assert "`gitfs:`" in logged["params"]["message"] and "not linted" in logged["params"]["message"]
    assert _pulled(puller, 1, uri) == {"kind": "full", "items": []}
    diagnostic = {"range": {"start": {"line": 5, "character": 0}, "end": {"line": 5, "character": 1}}, "message": "x"}
    assert _code_actions(puller, 2, uri, diagnostic) == []
    told = [m for m in puller.seen if m.get("method") == "window/logMessage" and "gitfs" in m["params"]["message"]]
    assert len(told) == 1


def test_a_configuration_change_asks_the_client_to_pull_again(puller: RawClient, project: Path):
    uri = write_file(project, "pkg/sentinel.py", SENTINEL_DROPS_FRAME).as_uri()
    _open(puller, uri, SENTINEL_DROPS_FRAME)
    first = _pulled(puller, 1, uri)
    assert [d["code"] for d in first["items"]] == ["FT001"]

    config = project / "pyproject.toml"
    config.write_text('[tool.ftlint]\nignore = ["FT001"]\n')
    puller.write(
        frame(
            {
                "method": "workspace/didChangeWatchedFiles",
                "params": {"changes": [{"uri": config.as_uri(), "type": 1}]},
            }
        )
    )
    puller.wait(lambda m: m.get("method") == REFRESH)
    assert _pulled(puller, 2, uri, first["resultId"])["items"] == []
