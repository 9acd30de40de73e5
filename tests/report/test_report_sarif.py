"""sarif: validated against the official SARIF 2.1.0 schema and Microsoft's SARIF multitool
(both from the npm package ``@microsoft/sarif-multitool``, see official_schemas.py), plus
GitHub code scanning's rules."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

import jsonschema
import pytest

from ftlint.core.finding import Severity
from ftlint.report import render
from ftlint.report.fingerprint import line_hash_value, line_hashes
from tests.helpers import (
    NON_ASCII_LINE,
    ft001,
    ft002,
    make_ctx,
    make_docs,
    pr001,
)
from tests.report.official_schemas import multitool_validate, sarif_schema, sarif_schema_validator

#: The multitool's advice that ftlint cannot follow: no home page exists to name in
#: ``driver.informationUri`` (ftlint invents no addresses; see README "Rule links").
ACCEPTED_MULTITOOL_ADVICE = {"SARIF2005"}


def sarif(findings, ctx=None):
    return json.loads(render("sarif", findings, ctx or make_ctx()))


def validate(log: dict) -> None:
    sarif_schema_validator().validate(log)


def test_official_schema_is_the_oasis_one():
    schema = sarif_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    assert schema["properties"]["version"]["enum"] == ["2.1.0"]


def test_official_schema_rejects_bad_logs(findings):
    log = sarif(findings)
    validate(log)
    bad_level = json.loads(json.dumps(log))
    bad_level["runs"][0]["results"][0]["level"] = "fatal"
    bad_extra = json.loads(json.dumps(log))
    bad_extra["runs"][0]["results"][0]["severity"] = "error"
    bad_col = json.loads(json.dumps(log))
    bad_col["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startColumn"] = 0
    no_msg = json.loads(json.dumps(log))
    del no_msg["runs"][0]["results"][0]["message"]
    bad_version = dict(log, version="2.0.0")
    for bad in (bad_level, bad_extra, bad_col, no_msg, bad_version):
        with pytest.raises(jsonschema.ValidationError):
            validate(bad)


def multitool_problems(log_text: str, tmp_path: Path) -> list[tuple[str, str, str]]:
    return [p for p in multitool_validate(log_text, tmp_path) if p[0] not in ACCEPTED_MULTITOOL_ADVICE]


def test_multitool_accepts_ftlint_logs(findings, tmp_path):
    """Microsoft's validator (schema + SARIF rules): no error and no warning (its notes are
    style advice: message ids instead of text, Pascal-case rule names, snippets)."""
    multi_line = ft002(line=40, end_line=42, end_line_text="        )", end_column=10)
    for case in (findings, [], [multi_line, ft001(path="/elsewhere/x.py")]):
        text = render("sarif", case, make_ctx())
        assert multitool_problems(text, tmp_path) == [], text


def test_multitool_reports_a_broken_log(findings, tmp_path):
    """The validator really runs: a log the schema rejects is reported as an error."""
    log = sarif(findings)
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    problems = multitool_problems(json.dumps(log), tmp_path)
    assert any(level == "error" and rule.startswith("JSON") for rule, level, _ in problems), problems


def test_validates_against_schema(findings):
    validate(sarif(findings))
    validate(sarif([]))
    validate(
        sarif(
            findings,
            make_ctx(information_uri="https://ftlint.example", root=None, cwd=None),
        )
    )


def test_top_level_and_driver(findings):
    log = sarif(findings, make_ctx(information_uri="https://ftlint.example"))
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "ftlint"
    assert driver["semanticVersion"] == "0.1.0"
    assert driver["informationUri"] == "https://ftlint.example"
    assert [r["id"] for r in driver["rules"]] == ["FT001", "FT002"]
    assert run["columnKind"] == "utf16CodeUnits"


def test_github_rule_requirements(findings):
    """GitHub: rules need non-empty shortDescription/fullDescription (<=1024)/help.text."""
    docs = make_docs()
    rules = sarif(findings)["runs"][0]["tool"]["driver"]["rules"]
    for rule in rules:
        doc = docs[rule["id"]]
        assert rule["name"] == doc.name and len(rule["name"]) <= 255
        assert rule["shortDescription"]["text"] == doc.summary
        assert rule["fullDescription"]["text"] == doc.what_it_does
        assert 0 < len(rule["fullDescription"]["text"]) <= 1024
        assert rule["help"]["text"] == rule["help"]["markdown"]
        if doc.url:
            assert rule["help"]["markdown"] == doc.markdown()
        else:  # no docs-url: the rule's whole page inline, and the command that prints it
            assert rule["help"]["markdown"] == doc.markdown() + f"\n`ftlint rule {doc.code}` prints this page.\n"
        assert rule["defaultConfiguration"]["level"] in {"note", "warning", "error"}
        assert "fault-path" in rule["properties"]["tags"]
    assert rules[0]["helpUri"] == "https://ftlint.example/rules/FT001"
    assert "helpUri" not in rules[1]  # doc has no URL
    assert rules[1]["defaultConfiguration"]["level"] == "warning"


def test_long_description_is_truncated():
    from dataclasses import replace

    docs = make_docs()
    docs["FT001"] = replace(docs["FT001"], what_it_does="x" * 5000)
    rule = sarif([ft001()], make_ctx(docs=docs))["runs"][0]["tool"]["driver"]["rules"][0]
    assert len(rule["fullDescription"]["text"]) == 1024


def test_github_result_requirements(findings):
    """GitHub: results need message.text, a location with a 1-based region, partialFingerprints."""
    log = sarif(findings)
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    results = run["results"]
    assert len(results) == 2  # the PR-level finding has no file: not a code-scanning alert
    assert run["properties"] == {"omittedFindings": 1}
    for res in results:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["message"]["text"]
        assert res["level"] in {"note", "warning", "error"}
        (loc,) = res["locations"]
        phys = loc["physicalLocation"]
        assert phys["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert not phys["artifactLocation"]["uri"].startswith(("/", "file:"))
        region = phys["region"]
        assert all(region[k] >= 1 for k in ("startLine", "startColumn", "endLine", "endColumn"))
        assert re.fullmatch(
            r"[0-9a-f]{1,16}:[1-9][0-9]*",
            res["partialFingerprints"]["primaryLocationLineHash"],
        )


def test_levels():
    log = sarif(
        [
            ft002(severity=Severity.INFO),
            ft002(line=41, severity=Severity.ERROR),
            ft002(line=42),
        ]
    )
    assert [r["level"] for r in log["runs"][0]["results"]] == [
        "note",
        "error",
        "warning",
    ]


def test_utf16_columns():
    f = ft001()
    region = sarif([f])["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]

    def utf16(s):
        return len(s.encode("utf-16-le")) // 2

    assert region["startLine"] == region["endLine"] == 12
    assert region["startColumn"] == utf16(NON_ASCII_LINE[: f.column - 1]) + 1 == 17
    assert region["endColumn"] == utf16(NON_ASCII_LINE) + 1 == len(NON_ASCII_LINE) + 2  # 🙂 counts 2


def test_uris_are_repo_relative_posix_and_encoded():
    ctx = make_ctx(root=Path("/repo"), cwd=Path("/repo/vllm"))
    log = sarif(
        [
            ft002(path="v1/my file.py"),
            ft002(path="/repo/a/ü.py"),
            ft002(path="/tmp/out.py"),
        ],
        ctx,
    )
    # results follow Finding.sort_key: "/repo/a/ü.py" < "/tmp/out.py" < "v1/my file.py"
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in log["runs"][0]["results"]]
    uris = [uris[2], uris[0], uris[1]]
    assert uris[0] == {"uri": "vllm/v1/my%20file.py", "uriBaseId": "%SRCROOT%"}
    assert uris[1] == {"uri": "a/%C3%BC.py", "uriBaseId": "%SRCROOT%"}
    assert unquote(uris[1]["uri"]) == "a/ü.py"
    assert uris[2] == {"uri": "file:///tmp/out.py"}
    validate(log)


def test_file_level_finding_sits_on_line_1():
    log = sarif(
        [
            ft002(
                line=0,
                column=0,
                end_line=0,
                end_column=0,
                line_text="",
                end_line_text="",
            )
        ]
    )
    region = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 1
    validate(log)


def test_rule_without_doc_gets_synthesised_descriptor():
    f = ft002(code="FT999", name="mystery", message="something odd")
    log = sarif([f], make_ctx(docs={}))
    (rule,) = log["runs"][0]["tool"]["driver"]["rules"]
    assert rule["id"] == "FT999" and rule["shortDescription"]["text"] == "something odd"
    assert rule["help"]["text"]
    validate(log)


def test_fingerprint_matches_codeql_algorithm_and_counts_occurrences():
    same = "        evict_blocks(ids)"
    findings = [
        ft002(line=40),
        ft002(line=40, code="FT002", message="second on same line"),
        ft002(line=90),
        ft002(path="other.py", line=5),
    ]
    results = sarif(findings)["runs"][0]["results"]
    fps = {
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["message"]["text"],
        ): r["partialFingerprints"]["primaryLocationLineHash"]
        for r in results
    }
    value = line_hash_value(same)
    assert value == line_hashes(same + "\n")[0].split(":")[0]
    by_pos = {(k[0], k[1]): v for k, v in fps.items()}
    assert by_pos[("vllm/v1/core/block_pool.py", 40)] == f"{value}:1"
    assert by_pos[("vllm/v1/core/block_pool.py", 90)] == f"{value}:2"  # identical line later in the file
    assert by_pos[("other.py", 5)] == f"{value}:1"  # counted per file
    # two findings on one line share the line's fingerprint
    assert len({v for k, v in fps.items() if k[1] == 40}) == 1


def test_fingerprint_ignores_indentation_changes():
    a = sarif([ft002(line_text="    evict_blocks(ids)")])
    b = sarif([ft002(line_text="\t\tevict_blocks( ids )")])

    def fp(log):
        return log["runs"][0]["results"][0]["partialFingerprints"]["primaryLocationLineHash"]

    assert fp(a) == fp(b)
    # ... but not other text: the fingerprint is the line's, not a constant
    assert fp(sarif([ft002(line_text="    evict_blocks(other)")])) != fp(a)


def test_pr_only_findings_produce_empty_results():
    log = sarif([pr001()])
    validate(log)
    assert log["runs"][0]["results"] == [] and log["runs"][0]["tool"]["driver"]["rules"] == []
