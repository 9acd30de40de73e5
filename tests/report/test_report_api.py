"""The reporter registry and the helpers every format shares."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ftlint.cli import main
from ftlint.core.finding import Edit
from ftlint.report import FORMATS, ReportContext, render
from tests.helpers import NON_ASCII_LINE, ft001, ft002, make_ctx, make_docs

EXPECTED_FORMATS = {
    "text",
    "json",
    "jsonl",
    "github",
    "rdjson",
    "rdjsonl",
    "sarif",
    "markdown",
    "github-review",
}


def test_format_names(capsys):
    """The reporters registered are the documented ones, and the command line offers exactly them."""
    assert set(FORMATS) == EXPECTED_FORMATS
    assert main(["check", "--format", "bogus"]) == 2
    choices = re.search(r"invalid choice: 'bogus' \(choose from (.*)\)", capsys.readouterr().err)
    assert choices is not None
    assert set(re.findall(r"'([a-z-]+)'", choices[1])) == EXPECTED_FORMATS


@pytest.mark.parametrize("name", sorted(EXPECTED_FORMATS))
def test_every_format_is_deterministic_and_order_independent(name, findings, ctx):
    out = render(name, findings, ctx)
    assert out == render(name, list(reversed(findings)), ctx)
    assert out.endswith("\n")


NOTHING_FOUND = {
    "text": lambda out: out == "All checks passed!\n",
    "json": lambda out: json.loads(out) == [],
    "jsonl": lambda out: out == "",
    "github": lambda out: out == "",
    "rdjson": lambda out: json.loads(out)["diagnostics"] == [],
    "rdjsonl": lambda out: out == "",
    "sarif": lambda out: [run["results"] for run in json.loads(out)["runs"]] == [[]],
    "markdown": lambda out: out == "ftlint: no problems found\n",
    "github-review": lambda out: json.loads(out)["comments"] == [] and "no problems" in json.loads(out)["body"],
}


@pytest.mark.parametrize("name", sorted(EXPECTED_FORMATS))
def test_every_format_says_nothing_was_found(name, ctx):
    out = render(name, [], ctx)
    assert NOTHING_FOUND[name](out), out


def test_unknown_format():
    with pytest.raises(ValueError, match="unknown output format"):
        render("xml", [], make_ctx())


def test_context_defaults():
    ctx = ReportContext(docs={}, tool_version="1.2.3")
    assert ctx.root is None and ctx.cwd is None and ctx.diff_lines is None and ctx.title == "ftlint"


def _rdjson(finding, ctx=None) -> dict:
    (diagnostic,) = json.loads(render("rdjson", [finding], ctx or make_ctx()))["diagnostics"]
    return diagnostic


def _sarif_location(finding, ctx=None) -> dict:
    (result,) = json.loads(render("sarif", [finding], ctx or make_ctx()))["runs"][0]["results"]
    return result["locations"][0]["physicalLocation"]


def _review_comment(finding, ctx=None) -> dict:
    (comment,) = json.loads(render("github-review", [finding], ctx or make_ctx()))["comments"]
    return comment


def test_columns_convert_per_unit():
    """One column in code points (text, github), UTF-8 bytes (rdjson), UTF-16 units (sarif)."""
    finding = ft001()
    col = NON_ASCII_LINE.index("y.drop") + 1  # 16 in code points
    assert (finding.column, col) == (16, 16)
    assert "line=12,col=16,endLine=12,endColumn=42::" in render("github", [finding], make_ctx())
    # 4 spaces + 'x = "' + é (2 bytes) + 中 (3) + 🙂 (4) + '"; ' = 21 bytes before y
    assert _rdjson(finding)["location"]["range"] == {
        "start": {"line": 12, "column": 22},
        "end": {"line": 12, "column": 48},
    }
    # é, 中 are 1 UTF-16 unit each, 🙂 is a surrogate pair
    region = _sarif_location(finding)["region"]
    assert region == {"startLine": 12, "startColumn": 17, "endLine": 12, "endColumn": 43}
    # unknown text: code points are the best guess; column 1 is column 1 in every unit
    unknown = ft002(line_text="", end_line_text="", column=7, end_column=9)
    assert _rdjson(unknown)["location"]["range"]["start"] == {"line": 40, "column": 7}
    first = ft001(column=1)
    assert _rdjson(first)["location"]["range"]["start"] == {"line": 12, "column": 1}
    assert _sarif_location(first)["region"]["startColumn"] == 1


def test_a_missing_end_collapses_to_the_start():
    f = ft002(end_line=0, end_column=0)
    assert _rdjson(f)["location"]["range"] == {"start": {"line": 40, "column": 9}, "end": {"line": 40, "column": 9}}


def test_fix_edits_convert_only_on_known_lines():
    # the finding's own line is known: its edit's columns become UTF-8 bytes
    assert _rdjson(ft001())["suggestions"] == [
        {"range": {"start": {"line": 12, "column": 44}, "end": {"line": 12, "column": 48}}, "text": "False"}
    ]
    # an edit on a line the finding does not carry cannot be converted: no suggestion at all
    assert "suggestions" not in _rdjson(ft002(fix=(Edit(13, 5, 13, 9, "x"),)))
    # column 1 is column 1 in every unit, known line or not
    assert _rdjson(ft002(fix=(Edit(30, 1, 31, 1, ""),)))["suggestions"] == [
        {"range": {"start": {"line": 30, "column": 1}, "end": {"line": 31, "column": 1}}, "text": ""}
    ]


def test_paths_are_made_relative_to_the_repository():
    ctx = make_ctx(root=Path("/repo"), cwd=Path("/repo/vllm"))
    inside = {"v1/worker.py": "vllm/v1/worker.py", "/repo/a/b.py": "a/b.py"}
    for path, relative in inside.items():
        assert _sarif_location(ft002(path=path), ctx)["artifactLocation"] == {"uri": relative, "uriBaseId": "%SRCROOT%"}
        assert _review_comment(ft002(path=path), ctx)["path"] == relative
    # outside the repository: an absolute file URI
    assert _sarif_location(ft002(path="/elsewhere/x.py"), ctx)["artifactLocation"] == {"uri": "file:///elsewhere/x.py"}
    assert _sarif_location(ft002(path="../../x.py"), ctx)["artifactLocation"] == {"uri": "file:///x.py"}
    no_root = ReportContext(docs=make_docs(), tool_version="0")
    assert _sarif_location(ft002(path="./a\\b.py"), no_root)["artifactLocation"] == {
        "uri": "a/b.py",
        "uriBaseId": "%SRCROOT%",
    }
    assert _review_comment(ft002(path="./a\\b.py"), no_root)["path"] == "a/b.py"


def _suggestion(finding) -> str:
    """What the review comment suggests: the text of its ```suggestion block, or the edit list."""
    return _review_comment(finding)["body"].split("**Suggested fix:**", 1)[1]


def test_a_fix_on_one_line_is_suggested_as_that_line():
    comment = _review_comment(ft001())
    assert (comment.get("start_line"), comment["line"]) == (None, 12)
    assert comment["body"].endswith("```suggestion\n" + NON_ASCII_LINE.replace("True", "False") + "\n```")


def test_a_whole_line_deletion_is_an_empty_suggestion():
    assert _suggestion(ft002(fix=(Edit(40, 1, 41, 1, ""),))) == "\n\n```suggestion\n```"


def test_a_fix_that_cannot_be_applied_is_listed_as_edits():
    # an edit on a line the finding does not carry
    assert _suggestion(ft002(fix=(Edit(45, 3, 45, 4, "x"),))) == "\n\n- 45:3-45:4: replace with `x`"
    # overlapping edits
    overlapping = ft002(fix=(Edit(40, 9, 40, 15, "a"), Edit(40, 12, 40, 20, "b")))
    assert _suggestion(overlapping) == "\n\n- 40:9-40:15: replace with `a`\n- 40:12-40:20: replace with `b`"


def test_code_spans_handle_backticks():
    fix = (Edit(45, 3, 45, 4, "plain"), Edit(46, 1, 46, 2, "a`b"), Edit(47, 1, 47, 2, "`x`"))
    out = render("markdown", [ft002(fix=fix)], make_ctx())
    assert out.endswith(
        "- 45:3-45:4: replace with `plain`\n- 46:1-46:2: replace with ``a`b``\n- 47:1-47:2: replace with `` `x` ``\n"
    )


def render_codes(findings, ctx):  # the renderer test_a_registered_format_reaches_the_cli registers
    return "".join(f"{f.code}@{f.line}\n" for f in findings)


def test_a_registered_format_reaches_the_cli(tmp_path, monkeypatch, capsys):
    """The report registry is the only place a format is registered: `ftlint check --help`
    offers it and `--format` renders with it."""

    from ftlint.lint.registry import all_rules
    from ftlint.report import format_names, register_format

    monkeypatch.setattr("ftlint.report.FORMATS", dict(FORMATS))  # undone after the test
    register_format("codes", __name__, "render_codes")
    assert "codes" in format_names()

    with pytest.raises(SystemExit) as exit_:
        main(["check", "--help"])
    assert exit_.value.code == 0
    assert "codes" in capsys.readouterr().out.split("--format")[1].split("}")[0]

    example = all_rules()["FT005"].INVALID[0]
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n" + example.config)
    (tmp_path / "example.py").write_text(example.code)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-cache", "--select", "FT005", "--format", "codes", "example.py"]) == 1
    lines = capsys.readouterr().out.splitlines()  # one "CODE@LINE" per finding
    assert lines and all(re.fullmatch(r"FT005@\d+", line) for line in lines), lines
