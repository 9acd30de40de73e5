"""The GitHub Action's runner: review a pull request with ftlint and post one review.

Run by ``action.yml`` (a composite action) with the Python that ftlint is installed in.
Everything comes from the environment the runner sets:

* the event: ``GITHUB_EVENT_PATH`` (a ``pull_request`` / ``pull_request_target`` event),
  ``GITHUB_REPOSITORY``, ``GITHUB_API_URL`` (``https://api.github.com`` on github.com),
  ``GITHUB_OUTPUT`` and ``RUNNER_TEMP``;
* the action's inputs: ``FTLINT_TOKEN``, ``FTLINT_PATHS`` (newline- or space-separated),
  ``FTLINT_FILTER_MODE``, ``FTLINT_SARIF`` (``true`` writes a SARIF file for upload),
  ``FTLINT_POST`` (``false`` only writes the payload), ``FTLINT_CONFIG``.

Steps: ``ftlint review --base <base sha> --merge-base --format github-review`` with the PR's
title and description (so PR001-PR004 run), then ``POST
/repos/{owner}/{repo}/pulls/{number}/reviews`` with that payload (``commit_id`` = the head the
review was made on), leaving out inline comments an earlier run already posted on the same
line with the same text. If GitHub rejects the inline comments (422: a line outside the diff
it knows), the review is posted once more with every comment moved into the body.

The token goes to ``GITHUB_API_URL`` only: redirects are not followed, and plain ``http`` is
accepted only for a loopback address (tests). The step's outputs: ``findings`` (count),
``review-file``, ``sarif-file``, ``posted`` (``true``/``false``). Exit codes: 0 done (findings
or not: failing on findings is the next step's job, so the SARIF upload still runs), 2 a
usage, git, ftlint or API error (one ``ftlint-action: error: ...`` line).

Standard library only: the linter never talks to the network; this script is the one place
that does, and only for the Action.
"""

from __future__ import annotations

import ipaddress
import json
import os
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

USER_AGENT = "ftlint-action"
API_VERSION = "2022-11-28"
PAGE_SIZE = 100
MAX_PAGES = 50  # 5,000 existing review comments: more is not a review we can dedupe against


class ActionError(Exception):
    """A problem the user must fix; printed as one line, exit 2."""


# --- the event ---------------------------------------------------------------------------


def read_event(env: dict[str, str]) -> dict[str, Any]:
    path = env.get("GITHUB_EVENT_PATH")
    if not path:
        raise ActionError("GITHUB_EVENT_PATH is not set: run this inside a GitHub Actions job")
    try:
        event = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ActionError(f"cannot read the event file {path}: {err}") from None
    pr = event.get("pull_request") if isinstance(event, dict) else None
    if not isinstance(pr, dict):
        raise ActionError(
            "the event has no pull_request: use this action on `pull_request` (or `pull_request_target`) events"
        )
    try:
        return {
            "number": int(pr["number"]),
            "base_sha": str(pr["base"]["sha"]),
            "head_sha": str(pr["head"]["sha"]),
            "title": str(pr.get("title") or ""),
            "body": str(pr.get("body") or ""),
        }
    except (KeyError, TypeError, ValueError) as err:
        raise ActionError(f"the pull_request event lacks {err}") from None


# --- the review --------------------------------------------------------------------------


def run_review(event: dict[str, Any], env: dict[str, str], workdir: Path) -> tuple[int, Path, Path | None]:
    """``ftlint review`` on the PR: (the number of findings, the payload file, the SARIF file)."""
    body_file = workdir / "ftlint-pr-body.md"
    body_file.write_text(event["body"], encoding="utf-8")
    review_file = workdir / "ftlint-review.json"
    common = ["--base", event["base_sha"], "--merge-base"]
    if env.get("FTLINT_CONFIG"):
        common += ["--config", env["FTLINT_CONFIG"]]
    paths = env.get("FTLINT_PATHS", "").split()
    mode = env.get("FTLINT_FILTER_MODE") or "added"
    pr_args = ["--title", event["title"], "--body-file", str(body_file)]
    status = _ftlint(
        "review",
        *common,
        "--filter",
        mode,
        *pr_args,
        "--format",
        "github-review",
        "--output-file",
        str(review_file),
        *paths,
    )
    count = 0
    if status == 1:
        counted = workdir / "ftlint-review-findings.json"
        _ftlint(
            "review",
            *common,
            "--filter",
            mode,
            *pr_args,
            "--format",
            "json",
            "--output-file",
            str(counted),
            "--exit-zero",
            *paths,
        )
        count = len(json.loads(counted.read_text(encoding="utf-8")))
    sarif_file = None
    if _flag(env, "FTLINT_SARIF", False):
        sarif_file = workdir / "ftlint.sarif"
        # Code scanning filters alerts to the diff itself: hand it every finding of the changed files.
        _ftlint(
            "review",
            *common,
            "--filter",
            "file",
            "--format",
            "sarif",
            "--output-file",
            str(sarif_file),
            "--exit-zero",
            *paths,
        )
    return count, review_file, sarif_file


def _ftlint(*args: str) -> int:
    proc = subprocess.run([sys.executable, "-m", "ftlint", *args], check=False)
    if proc.returncode not in (0, 1):
        raise ActionError(f"`ftlint {args[0]}` failed with exit status {proc.returncode} (see its message above)")
    return proc.returncode


def _flag(env: dict[str, str], name: str, default: bool) -> bool:
    value = env.get(name, "").strip().lower()
    if not value:
        return default
    if value in ("true", "1", "yes"):
        return True
    if value in ("false", "0", "no"):
        return False
    raise ActionError(f"{name}: expected true or false, got {value!r}")


# --- the API -----------------------------------------------------------------------------


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """The token must reach the API host only: a redirect is an error, never followed."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        raise ActionError(
            f"the API answered {code} with a redirect to {newurl}: not followed (the token stays with {req.host})"
        )


class GitHub:
    """The few REST calls the action makes, with the token sent to ``api_url`` only."""

    def __init__(self, api_url: str, repository: str, token: str) -> None:
        parsed = urllib.parse.urlsplit(api_url)
        if parsed.scheme == "http" and not _is_loopback(parsed.hostname or ""):
            raise ActionError(f"GITHUB_API_URL {api_url!r}: refusing to send the token over plain http")
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ActionError(f"GITHUB_API_URL {api_url!r} is not an http(s) URL")
        if repository.count("/") != 1 or not all(repository.split("/")):
            raise ActionError(f"GITHUB_REPOSITORY {repository!r} is not owner/name")
        if not token:
            raise ActionError("no token: pass `github-token` (the default is the workflow's GITHUB_TOKEN)")
        self.base = api_url.rstrip("/")
        self.repo = repository
        self.token = token
        self.opener = urllib.request.build_opener(_NoRedirect)

    def request(self, method: str, path: str, payload: Any = None) -> tuple[int, Any]:
        url = self.base + path
        data = None if payload is None else json.dumps(payload).encode("utf-8")
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.token}")
        req.add_header("Accept", "application/vnd.github+json")
        req.add_header("X-GitHub-Api-Version", API_VERSION)
        req.add_header("User-Agent", USER_AGENT)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with self.opener.open(req, timeout=60) as resp:
                return resp.status, _json(resp.read())
        except urllib.error.HTTPError as err:
            return err.code, _json(err.read())
        except urllib.error.URLError as err:
            raise ActionError(f"{method} {url}: {err.reason}") from None

    def existing_comments(self, number: int) -> set[tuple[str, Any, str]]:
        """(path, line, body) of the review comments already on the pull request."""
        seen: set[tuple[str, Any, str]] = set()
        for page in range(1, MAX_PAGES + 1):
            status, data = self.request(
                "GET", f"/repos/{self.repo}/pulls/{number}/comments?per_page={PAGE_SIZE}&page={page}"
            )
            if status != 200 or not isinstance(data, list):
                raise ActionError(f"listing the pull request's review comments: HTTP {status}{_api_message(data)}")
            for c in data:
                if isinstance(c, dict):
                    seen.add((c.get("path"), c.get("line"), c.get("body")))
            if len(data) < PAGE_SIZE:
                break
        return seen

    def create_review(self, number: int, review: dict[str, Any]) -> tuple[int, Any]:
        return self.request("POST", f"/repos/{self.repo}/pulls/{number}/reviews", review)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8")) if raw else None
    except ValueError:
        return None


def _api_message(data: Any) -> str:
    return f": {data['message']}" if isinstance(data, dict) and isinstance(data.get("message"), str) else ""


def post_review(api: GitHub, number: int, head_sha: str, review: dict[str, Any]) -> bool:
    """Post ``review`` (the ``github-review`` payload): False when there was nothing new."""
    seen = api.existing_comments(number)
    fresh = [c for c in review.get("comments", []) if (c.get("path"), c.get("line"), c.get("body")) not in seen]
    skipped = len(review.get("comments", [])) - len(fresh)
    if skipped:
        print(f"ftlint-action: {skipped} inline comment(s) already on the pull request, not posted again")
    payload = {**review, "commit_id": head_sha, "comments": fresh}
    status, data = api.create_review(number, payload)
    if status == 422 and fresh:
        # GitHub could not place an inline comment (a diff it computed differently): keep the
        # findings, in the body.
        print(
            f"ftlint-action: GitHub rejected the inline comments{_api_message(data)}; posting them in the review body"
        )
        moved = "\n\n".join(f"**`{c['path']}` line {c['line']}**\n\n{c['body']}" for c in fresh)
        payload = {
            **payload,
            "comments": [],
            "body": payload["body"].rstrip("\n") + "\n\n### Comments\n\n" + moved + "\n",
        }
        status, data = api.create_review(number, payload)
    if status == 403:
        raise ActionError(
            "HTTP 403 creating the review: the token cannot write pull requests "
            "(`permissions: pull-requests: write`; on pull requests from forks the token is read-only)"
            + _api_message(data)
        )
    if status not in (200, 201):
        raise ActionError(f"creating the review: HTTP {status}{_api_message(data)}")
    return True


# --- the step ----------------------------------------------------------------------------


def _set_outputs(env: dict[str, str], outputs: dict[str, str]) -> None:
    target = env.get("GITHUB_OUTPUT")
    if not target:
        return
    with open(target, "a", encoding="utf-8") as out:
        out.writelines(f"{key}={value}\n" for key, value in outputs.items())


def main(env: dict[str, str] | None = None) -> int:
    env = dict(os.environ if env is None else env)
    try:
        event = read_event(env)
        workdir = Path(env.get("RUNNER_TEMP") or os.getcwd())
        count, review_file, sarif_file = run_review(event, env, workdir)
        review = json.loads(review_file.read_text(encoding="utf-8"))
        posted = False
        if count and _flag(env, "FTLINT_POST", True):
            api = GitHub(
                env.get("GITHUB_API_URL") or "https://api.github.com",
                env.get("GITHUB_REPOSITORY", ""),
                env.get("FTLINT_TOKEN", ""),
            )
            posted = post_review(api, event["number"], event["head_sha"], review)
        _set_outputs(
            env,
            {
                "findings": str(count),
                "review-file": str(review_file),
                "sarif-file": str(sarif_file or ""),
                "posted": "true" if posted else "false",
            },
        )
        print(f"ftlint-action: {count} finding(s); review {'posted' if posted else 'not posted'}")
        return 0
    except ActionError as err:
        print(f"ftlint-action: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
