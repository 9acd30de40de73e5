"""rdjson / rdjsonl: validated against a JSON schema written from reviewdog.proto, byte columns.

reviewdog publishes its generated JSON schema only in its GitHub repository, not in a package
the tests could install (see official_schemas.py), hence the schema written from the proto."""

from __future__ import annotations

import json

import jsonschema
import pytest

from ftlint.core.finding import Edit
from ftlint.report import render
from tests.helpers import NON_ASCII_LINE, ft001, ft002, make_ctx, pr001
from tests.report.official_schemas import reviewdog_schema, reviewdog_validator

SCHEMA = reviewdog_schema()
validator = reviewdog_validator


def test_schema_itself_is_valid():
    jsonschema.Draft7Validator.check_schema(SCHEMA)


def test_schema_has_the_proto_fields_only():
    """Diagnostic's fields are the proto's (1-8): no invented ones, related_locations kept."""
    assert set(SCHEMA["definitions"]["Diagnostic"]["properties"]) == {
        "message",
        "location",
        "severity",
        "source",
        "code",
        "suggestions",
        "original_output",
        "related_locations",
    }
    validator("Diagnostic").validate(
        {
            "message": "m",
            "location": {"path": "a.py"},
            "related_locations": [
                {"message": "freed here", "location": {"path": "b.py", "range": {"start": {"line": 3}}}}
            ],
        }
    )


def test_rdjson_validates(findings, ctx):
    data = json.loads(render("rdjson", findings, make_ctx(information_uri="https://ftlint.example")))
    validator("DiagnosticResult").validate(data)
    assert data["source"] == {"name": "ftlint", "url": "https://ftlint.example"}
    assert data["severity"] == "ERROR"
    assert [d["code"]["value"] for d in data["diagnostics"]] == [
        "PR001",
        "FT002",
        "FT001",
    ]


def test_rdjsonl_validates_each_line(findings, ctx):
    lines = render("rdjsonl", findings, ctx).splitlines()
    assert len(lines) == 3
    v = validator("Diagnostic")
    for line in lines:
        v.validate(json.loads(line))


def test_schema_rejects_bad_shapes():
    v = validator("Diagnostic")
    good = {
        "message": "m",
        "location": {"path": "a.py", "range": {"start": {"line": 1, "column": 1}}},
    }
    v.validate(good)
    with pytest.raises(jsonschema.ValidationError):
        v.validate({**good, "severity": "FATAL"})
    with pytest.raises(jsonschema.ValidationError):
        v.validate(
            {
                **good,
                "location": {
                    "path": "a.py",
                    "range": {"start": {"line": 1, "column": 0}},
                },
            }
        )
    with pytest.raises(jsonschema.ValidationError):
        v.validate({**good, "unknown": 1})


def test_byte_columns_after_non_ascii(ctx):
    f = ft001()
    diag = json.loads(render("rdjsonl", [f], ctx))
    rng = diag["location"]["range"]
    prefix = NON_ASCII_LINE[: f.column - 1]
    assert f.column == 16 and len(prefix.encode("utf-8")) == 21
    assert rng["start"] == {"line": 12, "column": len(prefix.encode("utf-8")) + 1} == {"line": 12, "column": 22}
    assert rng["end"] == {"line": 12, "column": len(NON_ASCII_LINE.encode("utf-8")) + 1}
    # the suggestion replaces exactly the bytes of "True"
    (sugg,) = diag["suggestions"]
    raw = NON_ASCII_LINE.encode("utf-8")
    s, e = sugg["range"]["start"]["column"], sugg["range"]["end"]["column"]
    assert raw[s - 1 : e - 1] == b"True"
    assert sugg["text"] == "False"


def test_diagnostic_fields(ctx):
    diag = json.loads(render("rdjsonl", [ft001()], ctx))
    assert diag["severity"] == "ERROR"
    assert diag["source"] == {"name": "ftlint"}
    assert diag["code"] == {
        "value": "FT001",
        "url": "https://ftlint.example/rules/FT001",
    }
    assert diag["location"]["path"] == "vllm/v1/worker.py"
    assert diag["message"] == "`drop_stale_output=True` discards the output of a failed step"
    diag2 = json.loads(render("rdjsonl", [ft002()], ctx))
    assert diag2["severity"] == "WARNING"
    assert diag2["code"] == {"value": "FT002"}  # doc without URL
    assert "suggestions" not in diag2


def test_suggestion_on_unknown_line_is_omitted(ctx):
    # second edit is on a line whose text the finding does not carry -> no partial fix
    f = ft001(fix=(Edit(12, 38, 12, 42, "False"), Edit(14, 5, 14, 6, "x")))
    diag = json.loads(render("rdjsonl", [f], ctx))
    assert "suggestions" not in diag


def test_suggestion_whole_line_deletion_converts(ctx):
    # column-1 positions are unit-independent, even on other lines
    f = ft002(fix=(Edit(40, 1, 41, 1, ""),))
    diag = json.loads(render("rdjsonl", [f], ctx))
    assert diag["suggestions"] == [
        {
            "range": {
                "start": {"line": 40, "column": 1},
                "end": {"line": 41, "column": 1},
            },
            "text": "",
        }
    ]


def test_pr_level_has_no_range(ctx):
    diag = json.loads(render("rdjsonl", [pr001()], ctx))
    assert diag["location"] == {"path": ""}
    validator("Diagnostic").validate(diag)


def test_empty_result(ctx):
    data = json.loads(render("rdjson", [], ctx))
    validator("DiagnosticResult").validate(data)
    assert data["diagnostics"] == [] and data["severity"] == "UNKNOWN_SEVERITY"
    assert render("rdjsonl", [], ctx) == ""
