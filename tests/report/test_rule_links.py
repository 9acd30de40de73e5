"""Rule links come from the user's `docs-url`; without it no output carries a URL, the
rule's text is inline where there is room, and reports point to `ftlint rule CODE`.
No file of the project names an address or a release tag that does not exist."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import ROOT, run_ftlint, tracked_files

HANDLER = """\
class Sentinel:
    def on_fault(self, exc):
        self.engine.scheduler.finish_requests(None, 5)
"""


def project(tmp_path: Path, table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(f"[tool.ftlint]\n{table}", encoding="utf-8")
    (tmp_path / "sentinel.py").write_text(HANDLER, encoding="utf-8")
    return tmp_path


def outputs(cwd: Path) -> dict[str, str]:
    out = {}
    for fmt in ("sarif", "rdjson", "markdown", "github-review", "github", "json"):
        proc = run_ftlint("check", "--no-cache", "--format", fmt, "sentinel.py", cwd=cwd)
        assert proc.returncode == 1, proc.stderr
        out[fmt] = proc.stdout
    return out


def test_without_docs_url_no_output_has_a_url(tmp_path: Path):
    out = outputs(project(tmp_path, ""))
    for fmt, text in out.items():
        assert "http://" not in text and "https://" not in text.replace(
            "https://json.schemastore.org/sarif-2.1.0.json", ""
        ), fmt
    (rule,) = json.loads(out["sarif"])["runs"][0]["tool"]["driver"]["rules"]
    assert rule["id"] == "FT007" and "helpUri" not in rule
    assert (
        "## Why is this bad?" in rule["help"]["text"]
        and "`ftlint rule FT007` prints this page." in rule["help"]["text"]
    )
    (comment,) = json.loads(out["github-review"])["comments"]
    assert comment["body"].startswith("**FT007: missing-dirty-eviction**")
    assert "**Why is this bad?**" in comment["body"] and "The rule's page: `ftlint rule FT007`." in comment["body"]
    assert json.loads(out["rdjson"])["diagnostics"][0]["code"] == {"value": "FT007"}


def test_docs_url_template_links_every_format(tmp_path: Path):
    out = outputs(project(tmp_path, 'docs-url = "https://docs.example.org/ftlint/{code}.html#{name}"\n'))
    url = "https://docs.example.org/ftlint/FT007.html#missing-dirty-eviction"
    (rule,) = json.loads(out["sarif"])["runs"][0]["tool"]["driver"]["rules"]
    assert rule["helpUri"] == url and "prints this page" not in rule["help"]["text"]
    assert json.loads(out["rdjson"])["diagnostics"][0]["code"] == {"value": "FT007", "url": url}
    assert f"[FT007]({url})" in out["markdown"]
    (comment,) = json.loads(out["github-review"])["comments"]
    assert comment["body"].startswith(f"**[FT007]({url}): missing-dirty-eviction**")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1", "expected a string, got int"),
        ('"https://example.org/rules"', "expected a URL template with {code} or {name}"),
        ('"docs/{code}.md"', "expected an absolute URL (scheme://...)"),
    ],
)
def test_bad_docs_url_is_a_config_error(tmp_path: Path, value: str, message: str):
    proc = run_ftlint("check", "sentinel.py", cwd=project(tmp_path, f"docs-url = {value}\n"))
    assert proc.returncode == 2 and "docs-url" in proc.stderr and message in proc.stderr, proc.stderr


def test_rule_command_knows_pull_request_checks(tmp_path: Path):
    proc = run_ftlint("rule", "PR001", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("# empty-description (PR001)")


def test_no_invented_addresses_in_the_project():
    invented = ("github.com/" + "ftlint/ftlint", "rev: " + "v0.1.0")
    hits = []
    for name in tracked_files():
        path = ROOT / name
        if not path.is_file() or (path.suffix in (".json",) and "node_modules" in name):
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        hits += [f"{name}: {s}" for s in invented if s in text]
    assert hits == []
