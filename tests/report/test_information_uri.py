"""SARIF ``tool.driver.informationUri`` (and rdjson ``source.url``): emitted when ftlint's home is
known, from ``[tool.ftlint] information-uri`` or the installed distribution's Project-URL, and
never made up otherwise (issue 23: the multitool's SARIF2005 warning)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.helpers import SENTINEL_DROPS_FRAME, run_ftlint, write_file
from tests.report.official_schemas import multitool_validate

HOME = "https://ftlint.example/home"
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def project(tmp_path: Path, config: str = "") -> Path:
    root = tmp_path / "project"
    write_file(root, "pyproject.toml", "[tool.ftlint]\n" + config)
    write_file(root, "sentinel.py", SENTINEL_DROPS_FRAME)
    return root


def report(root: Path, fmt: str = "sarif", env: dict[str, str | None] | None = None) -> str:
    run = run_ftlint("check", "--format", fmt, "sentinel.py", cwd=root, env=env)
    assert run.returncode == 1 and run.stderr == "", run.stderr
    return run.stdout


def fake_distribution(tmp_path: Path, *project_urls: str) -> dict[str, str | None]:
    """An `ftlint` distribution found first on the path, whose metadata holds `project_urls`."""
    site = tmp_path / "site"
    lines = ["Metadata-Version: 2.4", "Name: ftlint", "Version: 0.1.0", *(f"Project-URL: {u}" for u in project_urls)]
    write_file(site, "ftlint-0.1.0.dist-info/METADATA", "\n".join(lines) + "\n")
    return {"PYTHONPATH": str(site)}


def test_configured_home_is_the_driver_information_uri_and_satisfies_the_multitool(tmp_path: Path):
    text = report(project(tmp_path, f'information-uri = "{HOME}"\n'))
    assert json.loads(text)["runs"][0]["tool"]["driver"]["informationUri"] == HOME
    problems = multitool_validate(text, tmp_path)
    assert problems == [], problems


def test_without_a_known_home_no_address_is_made_up(tmp_path: Path):
    text = report(project(tmp_path), env=fake_distribution(tmp_path))
    assert "informationUri" not in json.loads(text)["runs"][0]["tool"]["driver"]
    assert set(re.findall(r"[a-z]+://[^\"\s]*", text)) == {SCHEMA}
    assert [rule for rule, _, _ in multitool_validate(text, tmp_path)] == ["SARIF2005"]  # the advice, unfollowed
    assert "url" not in json.loads(report(project(tmp_path), "rdjson", fake_distribution(tmp_path)))["source"]


def test_the_distributions_project_url_is_used_when_set(tmp_path: Path):
    env = fake_distribution(
        tmp_path, "Bug Tracker, https://ftlint.example/issues", "Source, not-a-url", "Home-Page, " + HOME
    )
    root = project(tmp_path)
    assert json.loads(report(root, env=env))["runs"][0]["tool"]["driver"]["informationUri"] == HOME
    assert json.loads(report(root, "rdjson", env))["source"]["url"] == HOME
    configured = "https://elsewhere.example/ftlint"  # the configuration wins
    write_file(root, "pyproject.toml", f'[tool.ftlint]\ninformation-uri = "{configured}"\n')
    assert json.loads(report(root, env=env))["runs"][0]["tool"]["driver"]["informationUri"] == configured


def test_a_bad_information_uri_names_the_file_and_key(tmp_path: Path):
    root = project(tmp_path, 'information-uri = "ftlint.example"\n')
    run = run_ftlint("check", "--format", "sarif", "sentinel.py", cwd=root)
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr == (
        f"ftlint: error: {root / 'pyproject.toml'}: [tool.ftlint] information-uri: "
        "expected an absolute URL (scheme://...), got 'ftlint.example'\n"
    )
