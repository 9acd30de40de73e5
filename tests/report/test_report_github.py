"""github: workflow commands, @actions/core escaping, parsed back with a regex."""

from __future__ import annotations

import re

from ftlint.core.finding import Severity
from ftlint.report import render
from ftlint.report.github import escape_data, escape_property
from tests.helpers import ft001, ft002, make_ctx, pr001

# ::command key=value,key=value::data   (properties optional)
COMMAND_RE = re.compile(r"^::(?P<cmd>error|warning|notice)(?: (?P<props>[^:]*))?::(?P<data>.*)$")


def unescape_data(value: str) -> str:
    return value.replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")


def unescape_property(value: str) -> str:
    return unescape_data(value.replace("%3A", ":").replace("%2C", ","))


def parse(line: str) -> tuple[str, dict[str, str], str]:
    m = COMMAND_RE.match(line)
    assert m, line
    props = {}
    if m["props"]:
        for item in m["props"].split(","):
            key, _, value = item.partition("=")
            props[key] = unescape_property(value)
    return m["cmd"], props, unescape_data(m["data"])


def test_exact_line(ctx):
    out = render("github", [ft002()], ctx)
    assert out == (
        "::warning title=ftlint (FT002),file=vllm/v1/core/block_pool.py,line=40,col=9,endLine=40,endColumn=26::"
        "vllm/v1/core/block_pool.py:40:9: FT002 evict_blocks() in except-handler without holding the block-pool lock\n"
    )


def test_severity_commands(ctx):
    findings = [ft001(), ft002(), ft002(line=50, severity=Severity.INFO)]
    lines = render("github", findings, ctx).splitlines()
    by_line = {parse(line)[1]["line"]: parse(line)[0] for line in lines}
    assert by_line == {"12": "error", "40": "warning", "50": "notice"}


def test_escaping_roundtrip():
    nasty_path = "dir, with: comma/a%b.py"
    f = ft002(path=nasty_path, message="first line\nsecond: 100% done\r\nthird, end")
    out = render("github", [f], make_ctx(root=None, cwd=None))
    assert out.count("\n") == 1  # one command, newlines escaped
    line = out.rstrip("\n")
    assert "%0A" in line and "%0D" in line and "%25" in line
    # ',' and ':' are escaped in properties, so splitting on them is safe
    assert "file=dir%2C with%3A comma/a%25b.py," in line
    cmd, props, data = parse(line)
    assert cmd == "warning"
    assert props["file"] == nasty_path
    assert props["title"] == "ftlint (FT002)"
    assert (props["line"], props["col"], props["endLine"], props["endColumn"]) == (
        "40",
        "9",
        "40",
        "26",
    )
    assert data == f"{nasty_path}:40:9: FT002 first line\nsecond: 100% done\r\nthird, end"


def test_escape_functions():
    assert escape_data("a%b\rc\nd:e,f") == "a%25b%0Dc%0Ad:e,f"
    assert escape_property("a%b\rc\nd:e,f") == "a%25b%0Dc%0Ad%3Ae%2Cf"


def test_pr_level_has_no_file(ctx):
    line = render("github", [pr001()], ctx).rstrip("\n")
    cmd, props, data = parse(line)
    assert cmd == "warning"
    assert props == {"title": "ftlint (PR001)"}
    assert data.startswith("PR001 This pull request")


def test_columns_are_code_points(ctx):
    _cmd, props, _ = parse(render("github", [ft001()], ctx).rstrip("\n"))
    assert props["col"] == "16"


def test_file_is_repo_relative(ctx):
    from pathlib import Path

    out = render("github", [ft002(path="/repo/vllm/x.py")], make_ctx(root=Path("/repo")))
    assert ",file=vllm/x.py," in out


def test_multi_line_finding_has_no_columns(ctx):
    """GitHub's annotation docs: omit col/endColumn when line and endLine differ."""
    f = ft002(line=40, end_line=43, end_line_text="        )", end_column=10)
    _, props, _ = parse(render("github", [f], ctx).rstrip("\n"))
    assert props == {"title": "ftlint (FT002)", "file": "vllm/v1/core/block_pool.py", "line": "40", "endLine": "43"}
    _, one_line, _ = parse(render("github", [ft002()], ctx).rstrip("\n"))
    assert (one_line["col"], one_line["endColumn"]) == ("9", "26")
