"""The official schemas and validators the reporter tests check outputs against.

They come from npm packages pinned in ``tools/npm/package-lock.json``, which
``scripts/bootstrap-env`` installs with ``npm ci`` and links from the venv as
``<venv>/ftlint-tools`` (``FTLINT_TOOLS_DIR`` overrides the place):

* SARIF 2.1.0: ``@microsoft/sarif-multitool`` ships Microsoft's SARIF multitool (a
  self-contained binary, no network needed) and the OASIS schema it validates against
  (``sarif-2.1.0.json``). :func:`multitool_validate` runs ``Sarif.Multitool validate``.
* GitHub's review request: ``@octokit/openapi`` is GitHub's REST description; the request
  body schema of ``pulls/create-review`` (POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews).

reviewdog publishes its Diagnostic JSON schema only in its GitHub repository
(``proto/rdf/jsonschema/``), in no PyPI or npm package; ``reviewdog-rdf-schema.json`` beside
this file is written from ``proto/rdf/reviewdog.proto`` instead (see its description).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from functools import cache
from pathlib import Path

import jsonschema
import pytest

HERE = Path(__file__).parent
REVIEW_OPERATION = ("/repos/{owner}/{repo}/pulls/{pull_number}/reviews", "post")


def tools_dir() -> Path:
    explicit = os.environ.get("FTLINT_TOOLS_DIR")
    base = Path(explicit) if explicit else Path(sys.prefix) / "ftlint-tools"
    modules = base / "node_modules"
    if not modules.is_dir():
        pytest.fail(
            f"the official validators are not installed ({modules} is missing): run "
            "`bash scripts/bootstrap-env` (it runs `npm ci` in tools/npm) or set FTLINT_TOOLS_DIR"
        )
    return modules


def _multitool_package() -> Path:
    system = {"Linux": "linux", "Darwin": "darwin", "Windows": "win32"}[platform.system()]
    return tools_dir() / "@microsoft" / f"sarif-multitool-{system}"


@cache
def sarif_schema() -> dict:
    """The SARIF 2.1.0 schema (JSON Schema 2020-12) shipped with the multitool."""
    return json.loads((_multitool_package() / "sarif-2.1.0.json").read_text(encoding="utf-8"))


def sarif_schema_validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(sarif_schema())


def multitool_validate(sarif_text: str, workdir: Path) -> list[tuple[str, str, str]]:
    """Run ``Sarif.Multitool validate`` on ``sarif_text``: (rule id, level, message) of every
    problem it reports (JSON schema errors are JSON1xxx, SARIF rule errors SARIFnnnn)."""
    exe = _multitool_package() / ("Sarif.Multitool.exe" if os.name == "nt" else "Sarif.Multitool")
    log = workdir / "input.sarif"
    log.write_text(sarif_text, encoding="utf-8")
    out = workdir / "validation.sarif"
    env = dict(os.environ, DOTNET_CLI_TELEMETRY_OPTOUT="1")
    proc = subprocess.run(
        [str(exe), "validate", str(log), "--output", str(out), "--log", "ForceOverwrite", "--level", "Error;Warning"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0 and out.is_file(), proc.stdout + proc.stderr
    run = json.loads(out.read_text(encoding="utf-8-sig"))["runs"][0]
    notes = [
        n
        for inv in run.get("invocations", ())
        for n in (*inv.get("toolExecutionNotifications", ()), *inv.get("toolConfigurationNotifications", ()))
        if n.get("level", "warning") == "error"
    ]
    assert not notes, notes  # the validator itself failed (bad input path, unreadable file)
    strings = {
        rule["id"]: {k: v["text"] for k, v in rule.get("messageStrings", {}).items()}
        for rule in run["tool"]["driver"].get("rules", ())
    }

    def text(result: dict) -> str:
        message = result["message"]
        if "text" in message:
            return message["text"]
        template = strings.get(result["ruleId"], {}).get(message.get("id", ""), str(message))
        for i, arg in enumerate(message.get("arguments", ())):
            template = template.replace("{" + str(i) + "}", arg)
        return template

    return [(r["ruleId"], r.get("level", "warning"), text(r)) for r in run.get("results", ())]


@cache
def github_rest_description() -> dict:
    path = tools_dir() / "@octokit" / "openapi" / "generated" / "api.github.com.json"
    return json.loads(path.read_text(encoding="utf-8"))


def review_request_schema() -> dict:
    """The request body schema of "Create a review for a pull request", as GitHub publishes it."""
    route, method = REVIEW_OPERATION
    operation = github_rest_description()["paths"][route][method]
    assert operation["operationId"] == "pulls/create-review"
    return operation["requestBody"]["content"]["application/json"]["schema"]


def review_request_validator() -> jsonschema.Draft7Validator:
    # OpenAPI 3.0 schema objects are a JSON Schema draft-4/7 dialect; this one uses only
    # type/properties/items/required/enum, which every draft reads alike.
    return jsonschema.Draft7Validator(review_request_schema())


@cache
def reviewdog_schema() -> dict:
    return json.loads((HERE / "reviewdog-rdf-schema.json").read_text(encoding="utf-8"))


def reviewdog_validator(definition: str) -> jsonschema.Draft7Validator:
    schema = reviewdog_schema()
    return jsonschema.Draft7Validator({"$ref": f"#/definitions/{definition}", "definitions": schema["definitions"]})
