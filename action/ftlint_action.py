"""The GitHub Action's runner: review a pull request with ftlint and post one review per head commit.

Run by ``action.yml`` (a composite action) with the Python that ftlint is installed in.
Everything comes from the environment the runner sets:

* the event: ``GITHUB_EVENT_PATH`` (a ``pull_request`` / ``pull_request_target`` event),
  ``GITHUB_REPOSITORY``, ``GITHUB_API_URL`` (``https://api.github.com`` on github.com),
  ``GITHUB_OUTPUT`` and ``RUNNER_TEMP``;
* the action's inputs: ``FTLINT_TOKEN``, ``FTLINT_PATHS`` (newline-separated; a path may hold
  spaces), ``FTLINT_FILTER_MODE``, ``FTLINT_SARIF`` (``true`` writes a SARIF file for upload),
  ``FTLINT_POST`` (``false`` only writes the payload), ``FTLINT_CONFIG``.

Steps: ``ftlint review --base=<base sha> --merge-base --format=github-review`` with the PR's
title and description (so PR001-PR004 run). Every value goes in ``--option=value`` form and
the paths after ``--``: no title, description, branch or path can become an option. Then the
review is posted, one per head commit: the review body ends with a hidden marker
(``<!-- ftlint-review head=SHA digest=HEX -->``, the digest of the review's text and inline
comments). An earlier ftlint review with the same digest means nothing changed: nothing is
posted. An earlier one on the same head commit is updated in place (``PUT``; inline comments
it lacks are added one by one). Otherwise ``POST /repos/{owner}/{repo}/pulls/{number}/reviews``
with ``commit_id`` = the head, leaving out inline comments already on the pull request (same
path, line and text). If GitHub rejects the inline comments (422: a line outside the diff it
knows), each is posted on its own (``POST .../pulls/{number}/comments``): those GitHub accepts
stay inline, ```suggestion blocks included, and only the rejected ones are listed in the
review body (their suggestions shown as code, since GitHub renders suggestions only inline).

The token goes to ``GITHUB_API_URL`` only: redirects are not followed, and plain ``http`` is
accepted only for a loopback address (tests). The step's outputs: ``findings`` (count),
``review-file``, ``sarif-file``, ``posted`` (``true``/``false``). Exit codes: 0 done (findings
or not: failing on findings is the next step's job, so the SARIF upload still runs), 2 a
usage, git, ftlint or API error (one ``ftlint-action: error: ...`` line).

Standard library only: the linter never talks to the network; this script is the one place
that does, and only for the Action.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import os
import re
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
            # a command-line argument cannot hold NUL: drop it (the title is only read for words)
            "title": str(pr.get("title") or "").replace("\0", ""),
            "body": str(pr.get("body") or ""),
        }
    except (KeyError, TypeError, ValueError) as err:
        raise ActionError(f"the pull_request event lacks {err}") from None


# --- the review --------------------------------------------------------------------------


def run_review(event: dict[str, Any], env: dict[str, str], workdir: Path) -> tuple[int, Path, Path | None]:
    """``ftlint review`` on the PR: (the number of findings, the payload file, the SARIF file).

    Values go as ``--option=value`` and the paths after ``--``, so a title such as ``--help``
    or a path such as ``--exit-zero`` is text, never an option."""
    body_file = workdir / "ftlint-pr-body.md"
    body_file.write_text(event["body"], encoding="utf-8")
    review_file = workdir / "ftlint-review.json"
    common = [f"--base={event['base_sha']}", "--merge-base"]
    if env.get("FTLINT_CONFIG"):
        common.append(f"--config={_no_nul('config', env['FTLINT_CONFIG'])}")
    paths = ["--", *split_paths(env.get("FTLINT_PATHS", ""))]
    mode = env.get("FTLINT_FILTER_MODE") or "added"
    pr_args = [f"--title={event['title']}", f"--body-file={body_file}"]
    status = _ftlint(
        "review",
        *common,
        f"--filter={mode}",
        *pr_args,
        "--format=github-review",
        f"--output-file={review_file}",
        *paths,
    )
    count = 0
    if status == 1:
        counted = workdir / "ftlint-review-findings.json"
        _ftlint(
            "review",
            *common,
            f"--filter={mode}",
            *pr_args,
            "--format=json",
            f"--output-file={counted}",
            "--exit-zero",
            *paths,
        )
        count = len(json.loads(counted.read_text(encoding="utf-8")))
    sarif_file = None
    if _flag(env, "FTLINT_SARIF", False):
        sarif_file = workdir / "ftlint.sarif"
        # Code scanning filters alerts to the diff itself: hand it every finding of the changed files.
        _ftlint(
            "review", *common, "--filter=file", "--format=sarif", f"--output-file={sarif_file}", "--exit-zero", *paths
        )
    return count, review_file, sarif_file


def split_paths(value: str) -> list[str]:
    """The ``paths`` input: one path per line (spaces are part of a path; blank lines and the
    whitespace around a line are dropped)."""
    return [_no_nul("paths", line.strip()) for line in value.splitlines() if line.strip()]


def _no_nul(what: str, value: str) -> str:
    if "\0" in value:
        raise ActionError(f"{what}: {value!r} holds a NUL character")
    return value


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

    def _pages(self, path: str, what: str) -> list[Any]:
        """Every item of a paginated list endpoint (up to MAX_PAGES pages)."""
        items: list[Any] = []
        for page in range(1, MAX_PAGES + 1):
            status, data = self.request("GET", f"{path}?per_page={PAGE_SIZE}&page={page}")
            if status != 200 or not isinstance(data, list):
                raise ActionError(f"listing {what}: HTTP {status}{_api_message(data)}")
            items += [item for item in data if isinstance(item, dict)]
            if len(data) < PAGE_SIZE:
                break
        return items

    def existing_comments(self, number: int) -> set[tuple[str, Any, str]]:
        """(path, line, body) of the review comments already on the pull request."""
        comments = self._pages(f"/repos/{self.repo}/pulls/{number}/comments", "the pull request's review comments")
        return {(c.get("path"), c.get("line"), c.get("body")) for c in comments}

    def login(self) -> str | None:
        """The token's account (a personal token); None for an app or workflow token
        (``GET /user`` answers 403 to those)."""
        status, data = self.request("GET", "/user")
        login = data.get("login") if status == 200 and isinstance(data, dict) else None
        return login if isinstance(login, str) and login else None

    def reviews(self, number: int) -> list[dict[str, Any]]:
        return self._pages(f"/repos/{self.repo}/pulls/{number}/reviews", "the pull request's reviews")

    def create_review(self, number: int, review: dict[str, Any]) -> tuple[int, Any]:
        return self.request("POST", f"/repos/{self.repo}/pulls/{number}/reviews", review)

    def update_review(self, number: int, review_id: int, body: str) -> tuple[int, Any]:
        return self.request("PUT", f"/repos/{self.repo}/pulls/{number}/reviews/{review_id}", {"body": body})

    def create_comment(self, number: int, comment: dict[str, Any]) -> tuple[int, Any]:
        return self.request("POST", f"/repos/{self.repo}/pulls/{number}/comments", comment)


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


#: The hidden line that ends every review this action posts: which head commit it reviewed
#: and the digest of what it said, so the next run finds it instead of posting a copy.
MARKER_PREFIX = "<!-- ftlint-review "
_MARKER = re.compile(r"<!-- ftlint-review head=([0-9A-Za-z]+) digest=([0-9a-f]{64}) -->")


def review_digest(review: dict[str, Any]) -> str:
    """What a review says: its body and its inline comments (path, lines, text)."""
    keys = ("path", "start_line", "line", "side", "body")
    comments = sorted(json.dumps([c.get(k) for k in keys], ensure_ascii=False) for c in review.get("comments", []))
    text = json.dumps([review.get("body", ""), comments], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def marked(body: str, head_sha: str, digest: str) -> str:
    return f"{body.rstrip()}\n\n{MARKER_PREFIX}head={head_sha} digest={digest} -->\n"


def earlier_review(reviews: list[dict[str, Any]], me: str | None) -> tuple[dict[str, Any], str, str] | None:
    """The latest review this action posted: (the review, its head commit, its digest). Only
    a review by the token's account counts (``me``; a bot account when the token cannot say
    who it is, as the workflow's GITHUB_TOKEN cannot): anyone can review a pull request, and
    a copied marker must not silence this one."""
    for review in reversed(reviews):  # GitHub lists reviews oldest first
        user = review.get("user") if isinstance(review.get("user"), dict) else {}
        mine = user.get("login") == me if me else user.get("type") == "Bot"
        match = _MARKER.search(str(review.get("body") or ""))
        if mine and match and isinstance(review.get("id"), int):
            return review, match.group(1), match.group(2)
    return None


def post_review(api: GitHub, number: int, head_sha: str, review: dict[str, Any]) -> bool:
    """Post ``review`` (the ``github-review`` payload), once per head commit: False when an
    earlier ftlint review already says the same."""
    digest = review_digest(review)
    me = api.login()
    earlier = earlier_review(api.reviews(number), me)
    if earlier is not None and earlier[2] == digest:
        print(f"ftlint-action: review {earlier[0]['id']} already says this; nothing posted")
        return False
    seen = api.existing_comments(number)
    comments = review.get("comments", [])
    fresh = [c for c in comments if (c.get("path"), c.get("line"), c.get("body")) not in seen]
    if len(comments) > len(fresh):
        print(
            f"ftlint-action: {len(comments) - len(fresh)} inline comment(s) already on the pull request, not posted again"
        )
    if earlier is not None and earlier[1] == head_sha:
        # The same head reviewed before (a re-run, another config): one review, updated.
        rejected = _post_one_by_one(api, number, head_sha, fresh)
        body = marked(_with_rejected(review["body"], rejected), head_sha, digest)
        status, data = api.update_review(number, earlier[0]["id"], body)
        _check(status, data, "updating the review")
        print(f"ftlint-action: review {earlier[0]['id']} updated")
        return True
    payload = {**review, "commit_id": head_sha, "comments": fresh, "body": marked(review["body"], head_sha, digest)}
    status, data = api.create_review(number, payload)
    if status == 422 and fresh:
        # GitHub could not place an inline comment (a diff it computed differently). Each
        # comment on its own: the ones it takes stay inline (suggestions stay suggestions).
        print(f"ftlint-action: GitHub rejected the inline comments{_api_message(data)}; posting them one by one")
        rejected = _post_one_by_one(api, number, head_sha, fresh)
        body = marked(_with_rejected(review["body"], rejected), head_sha, digest)
        status, data = api.create_review(number, {**payload, "comments": [], "body": body})
    _check(status, data, "creating the review")
    return True


def _post_one_by_one(api: GitHub, number: int, head_sha: str, comments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Post each comment alone; return those GitHub rejected (422)."""
    rejected = []
    for comment in comments:
        status, data = api.create_comment(number, {**comment, "commit_id": head_sha})
        if status == 422:
            rejected.append(comment)
        else:
            _check(status, data, "creating a review comment")
    if rejected:
        print(f"ftlint-action: {len(rejected)} inline comment(s) rejected by GitHub; listed in the review body")
    return rejected


_SUGGESTION_FENCE = re.compile(r"^(`{3,}|~{3,})suggestion[ \t]*$", re.M)


def _with_rejected(body: str, rejected: list[dict[str, Any]]) -> str:
    """The review body, with the comments GitHub would not place inline listed after it. Their
    suggestions become plain code: GitHub renders a suggestion only on a diff line."""
    if not rejected:
        return body
    parts = []
    for c in rejected:
        where = f"lines {c['start_line']}-{c['line']}" if c.get("start_line") else f"line {c['line']}"
        text, suggestions = _SUGGESTION_FENCE.subn(r"\1python", str(c.get("body", "")))
        note = " (the suggested replacement of those lines is shown as code)" if suggestions else ""
        parts.append(f"**{_code(str(c.get('path', '')))} {where}**{note}\n\n{text}")
    heading = "### Comments GitHub could not place on the diff"
    return body.rstrip("\n") + f"\n\n{heading}\n\n" + "\n\n".join(parts) + "\n"


def _code(text: str) -> str:
    """``text`` as one markdown code span, whatever backticks or newlines it holds."""
    text = " ".join(text.splitlines())
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _check(status: int, data: Any, what: str) -> None:
    if status == 403:
        raise ActionError(
            f"HTTP 403 {what}: the token cannot write pull requests "
            "(`permissions: pull-requests: write`; on pull requests from forks the token is read-only)"
            + _api_message(data)
        )
    if status not in (200, 201):
        raise ActionError(f"{what}: HTTP {status}{_api_message(data)}")


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
