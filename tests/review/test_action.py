"""The GitHub Action end to end: action.yml's review step runs for real (bash, the real
`ftlint review` on a real git repository) against a stand-in REST API on 127.0.0.1 that
records every request it gets."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.review.review_helpers import ABORT_LINE, GIT_ENV, PREEMPT_LINE, RESET_LINE, SENTINEL, Repo, git

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
TOKEN = "ghs_test-token-0123456789"
OWNER_REPO = "octo-org/vllm-fork"
NUMBER = 42


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any


@dataclass
class FakeAPI:
    """A loopback HTTP server standing in for api.github.com; ``answer`` decides replies."""

    answer: Callable[[str, str, Any], tuple[int, Any, dict[str, str]]]
    requests: list[Recorded] = field(default_factory=list)

    def __post_init__(self) -> None:
        api = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                api.requests.append(
                    Recorded(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                status, payload, headers = api.answer(self.command, self.path, body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = _serve  # noqa: N815 - BaseHTTPRequestHandler's method names

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


BOT = {"login": "github-actions[bot]", "type": "Bot"}


@dataclass
class FakeGitHub:
    """The pull request's state as GitHub keeps it: reviews and review comments. A review or
    comment on a line outside ``accepted`` (path, line) is refused with 422, as GitHub
    refuses a line that is not in the diff it computed; None accepts every line."""

    reviews: list[dict] = field(default_factory=list)
    comments: list[dict] = field(default_factory=list)
    accepted: set[tuple[str, int]] | None = None
    review_status: int = 200
    user: dict | None = None  # GET /user: None answers 403, as for the workflow's GITHUB_TOKEN

    def _placeable(self, comment: dict) -> bool:
        return self.accepted is None or all(
            (comment["path"], n) in self.accepted
            for n in {comment.get("start_line") or comment["line"], comment["line"]}
        )

    def __call__(self, method: str, path: str, body: Any):
        pulls = f"/repos/{OWNER_REPO}/pulls/{NUMBER}"
        route = path.split("?")[0]
        if method == "GET" and route == "/user":
            return (
                (200, self.user, {}) if self.user else (403, {"message": "Resource not accessible by integration"}, {})
            )
        if method == "GET" and route == f"{pulls}/comments":
            return 200, self.comments, {}
        if method == "GET" and route == f"{pulls}/reviews":
            return 200, self.reviews, {}
        if method == "POST" and route == f"{pulls}/reviews":
            if self.review_status != 200:
                return self.review_status, {"message": "Forbidden"}, {}
            if not all(self._placeable(c) for c in body.get("comments", [])):
                return 422, {"message": "Unprocessable Entity", "errors": ["Line could not be resolved"]}, {}
            review = {"id": 100 + len(self.reviews), "user": BOT, "body": body["body"], "commit_id": body["commit_id"]}
            self.reviews.append(review)
            for c in body.get("comments", []):
                self.comments.append({**c, "id": 500 + len(self.comments), "pull_request_review_id": review["id"]})
            return 200, review, {}
        if method == "PUT" and route.startswith(f"{pulls}/reviews/"):
            review_id = int(route.rsplit("/", 1)[1])
            for review in self.reviews:
                if review["id"] == review_id:
                    review["body"] = body["body"]
                    return 200, review, {}
            return 404, {"message": "Not Found"}, {}
        if method == "POST" and route == f"{pulls}/comments":
            if not self._placeable(body):
                return 422, {"message": "Validation Failed", "errors": ["line must be part of the diff"]}, {}
            self.comments.append({**body, "id": 500 + len(self.comments), "user": BOT})
            return 201, self.comments[-1], {}
        return 404, {"message": "Not Found"}, {}


def github_like(existing: list[dict] | None = None, review_status: int = 200) -> FakeGitHub:
    return FakeGitHub(comments=list(existing or []), review_status=review_status)


@pytest.fixture
def api():
    servers: list[FakeAPI] = []

    def start(answer: Callable) -> FakeAPI:
        server = FakeAPI(answer)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


def review_step() -> dict:
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    (step,) = [s for s in action["runs"]["steps"] if s.get("id") == "review"]
    return step


def expand(value: str, inputs: dict[str, str]) -> str:
    """The few expressions action.yml's review step uses: ``inputs.NAME``."""

    def one(match: re.Match) -> str:
        expr = match.group(1).strip()
        assert expr.startswith("inputs."), expr
        return inputs[expr.removeprefix("inputs.")]

    return re.sub(r"\$\{\{(.*?)\}\}", one, value)


def action_inputs(**overrides: str) -> dict[str, str]:
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    inputs["github-token"] = TOKEN  # the default is ${{ github.token }}
    inputs.update(overrides)
    return inputs


def write_event(
    tmp_path: Path,
    repo: Repo,
    title: str = "Resume running requests after a fault",
    body: str = "",
    head_ref: str = "resume",
) -> Path:
    event = {
        "action": "synchronize",
        "number": NUMBER,
        "pull_request": {
            "number": NUMBER,
            "title": title,
            "body": body,
            "base": {"sha": repo.base, "ref": "main"},
            "head": {"sha": git(repo.path, "rev-parse", "HEAD").strip(), "ref": head_ref},
        },
    }
    path = tmp_path / "event.json"
    path.write_text(json.dumps(event), encoding="utf-8")
    return path


def run_action(
    tmp_path: Path, repo: Repo, api_url: str, event: Path, **inputs: str
) -> tuple[subprocess.CompletedProcess, dict[str, str]]:
    """action.yml's review step, as the runner runs it: bash, the step's env, GITHUB_* set."""
    runner_temp = tmp_path / "runner-temp"
    venv_bin = runner_temp / "ftlint-venv" / "bin"
    venv_bin.mkdir(parents=True, exist_ok=True)
    python = venv_bin / "python"  # the install step's venv: this test environment's Python
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    outputs = tmp_path / "github-output"
    outputs.write_text("")
    step = review_step()
    step_inputs = action_inputs(**inputs)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "FTLINT_"))},
        **GIT_ENV,
        "FTLINT_NO_CACHE": "1",
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": OWNER_REPO,
        "GITHUB_API_URL": api_url,
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_WORKSPACE": str(repo.path),
        "GITHUB_ACTION_PATH": str(ROOT),
        "RUNNER_TEMP": str(runner_temp),
        **{k: expand(str(v), step_inputs) for k, v in step["env"].items()},
    }
    proc = subprocess.run(
        ["bash", "-e", "-c", step["run"]], cwd=repo.path, env=env, capture_output=True, text=True, timeout=300
    )
    values = dict(line.split("=", 1) for line in outputs.read_text().splitlines() if "=" in line)
    return proc, values


def test_posts_one_review_with_the_payload_ftlint_wrote(tmp_path, pr_repo, api):
    server = api(github_like())
    proc, outputs = run_action(tmp_path, pr_repo, server.url, write_event(tmp_path, pr_repo))
    assert proc.returncode == 0, proc.stderr
    assert [(r.method, r.path) for r in server.requests] == [
        ("GET", "/user"),
        ("GET", f"/repos/{OWNER_REPO}/pulls/{NUMBER}/reviews?per_page=100&page=1"),
        ("GET", f"/repos/{OWNER_REPO}/pulls/{NUMBER}/comments?per_page=100&page=1"),
        ("POST", f"/repos/{OWNER_REPO}/pulls/{NUMBER}/reviews"),
    ]
    for request in server.requests:
        assert request.headers["authorization"] == f"Bearer {TOKEN}"
        assert request.headers["accept"] == "application/vnd.github+json"
        assert request.headers["x-github-api-version"] == "2022-11-28"
    posted = server.requests[-1].body
    written = json.loads(Path(outputs["review-file"]).read_text(encoding="utf-8"))
    head = git(pr_repo.path, "rev-parse", "HEAD").strip()
    body, marker = posted["body"].rstrip("\n").rsplit("\n\n", 1)
    assert {**posted, "body": body} == {**written, "body": written["body"].rstrip(), "commit_id": head}
    assert re.fullmatch(rf"<!-- ftlint-review head={head} digest=[0-9a-f]{{64}} -->", marker)
    assert posted["event"] == "COMMENT"
    inline = [(c["path"], c["line"]) for c in posted["comments"]]
    assert (SENTINEL, PREEMPT_LINE) in inline  # the FT001 the PR adds, inline
    # filter-mode added: the unchanged FT005 line gets no comment, only the summary's PR005
    assert "FT005" not in json.dumps(posted["comments"]) and "PR005" in posted["body"]
    assert "PR001" in posted["body"]  # the empty description: a pull-request-level finding
    assert outputs["posted"] == "true"
    assert int(outputs["findings"]) == len(
        json.loads(
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "ftlint",
                    "review",
                    "--base",
                    pr_repo.base,
                    "--merge-base",
                    "--title",
                    "Resume running requests after a fault",
                    "--body-file",
                    "/dev/null",
                    "--format",
                    "json",
                    "--exit-zero",
                ],
                cwd=pr_repo.path,
                capture_output=True,
                text=True,
                env={**os.environ, **GIT_ENV, "FTLINT_NO_CACHE": "1"},
                check=True,
            ).stdout
        )
    )
    assert outputs["sarif-file"] == ""


def test_payload_meets_githubs_request_schema(tmp_path, pr_repo, api):
    from tests.report.official_schemas import review_request_validator

    server = api(github_like())
    proc, _ = run_action(tmp_path, pr_repo, server.url, write_event(tmp_path, pr_repo))
    assert proc.returncode == 0, proc.stderr
    posted = server.requests[-1].body
    assert posted["comments"]  # the schema is checked on inline comments too
    assert [e.message for e in review_request_validator().iter_errors(posted)] == []


def test_comments_already_posted_are_not_repeated(tmp_path, pr_repo, api):
    first = api(github_like())
    proc, _outputs = run_action(tmp_path, pr_repo, first.url, write_event(tmp_path, pr_repo))
    assert proc.returncode == 0, proc.stderr
    earlier = first.requests[-1].body["comments"]
    assert earlier
    # A second push: the same comment is on the PR already (GitHub returns more fields).
    existing = [{**earlier[0], "id": 7, "user": {"login": "github-actions[bot]"}}]
    second = api(github_like(existing=existing))
    proc, _ = run_action(tmp_path, pr_repo, second.url, write_event(tmp_path, pr_repo))
    assert proc.returncode == 0, proc.stderr
    assert second.requests[-1].body["comments"] == earlier[1:]
    assert "already on the pull request" in proc.stdout


def test_rejected_inline_comments_only_leave_the_diff_when_github_refuses_them(tmp_path, pr_repo, api):
    """422: the comments GitHub places stay inline (the FT001 suggestion stays a suggestion);
    only the one it refuses (a context line it does not know) is listed in the body."""
    github = FakeGitHub(accepted={(SENTINEL, PREEMPT_LINE)})
    server = api(github)
    proc, outputs = run_action(
        tmp_path, pr_repo, server.url, write_event(tmp_path, pr_repo), **{"filter-mode": "diff-context"}
    )
    assert proc.returncode == 0, proc.stderr
    posts = [r for r in server.requests if r.method == "POST"]
    assert [r.path.rsplit("/", 1)[1] for r in posts] == ["reviews", "comments", "comments", "comments", "reviews"]
    tried = posts[0].body["comments"]
    assert sorted(c["line"] for c in tried) == [RESET_LINE, ABORT_LINE, PREEMPT_LINE]
    (inline,) = [c for c in github.comments]
    assert inline["line"] == PREEMPT_LINE and "```suggestion" in inline["body"]
    assert inline["commit_id"] == git(pr_repo.path, "rev-parse", "HEAD").strip()
    (review,) = github.reviews
    assert "**FT005: " in review["body"] and "**FT001: " not in review["body"]
    assert "```suggestion" not in review["body"]
    assert f"line {RESET_LINE}" in review["body"] and f"line {ABORT_LINE}" in review["body"]
    assert outputs["posted"] == "true"


def test_a_refused_suggestion_is_shown_as_code_in_the_body(tmp_path, pr_repo, api):
    github = FakeGitHub(accepted=set())  # GitHub places nothing
    server = api(github)
    proc, _ = run_action(tmp_path, pr_repo, server.url, write_event(tmp_path, pr_repo))
    assert proc.returncode == 0, proc.stderr
    assert github.comments == []
    (review,) = github.reviews
    assert "**FT001: " in review["body"] and "```suggestion" not in review["body"]
    assert "```python" in review["body"] and "shown as code" in review["body"]


# -- one review per head commit ----------------------------------------------------------------


def test_a_rerun_with_nothing_new_posts_nothing(tmp_path, pr_repo, api):
    github = FakeGitHub()
    server = api(github)
    event = write_event(tmp_path, pr_repo)
    for _ in range(2):
        proc, outputs = run_action(tmp_path, pr_repo, server.url, event)
        assert proc.returncode == 0, proc.stderr
    assert len(github.reviews) == 1
    assert [r.method for r in server.requests].count("POST") == 1
    assert outputs["posted"] == "false" and "nothing posted" in proc.stdout


def test_a_push_that_changes_nothing_ftlint_says_posts_nothing(tmp_path, pr_repo, api):
    github = FakeGitHub()
    server = api(github)
    proc, _ = run_action(tmp_path, pr_repo, server.url, write_event(tmp_path, pr_repo))
    assert proc.returncode == 0, proc.stderr
    pr_repo.write("README.md", "docs only\n")  # a new head commit, the same findings
    pr_repo.commit("docs")
    proc, outputs = run_action(tmp_path, pr_repo, server.url, write_event(tmp_path, pr_repo))
    assert proc.returncode == 0, proc.stderr
    assert len(github.reviews) == 1 and outputs["posted"] == "false"


def test_the_same_head_reviewed_again_updates_its_review(tmp_path, pr_repo, api):
    github = FakeGitHub()
    server = api(github)
    event = write_event(tmp_path, pr_repo)
    proc, _ = run_action(tmp_path, pr_repo, server.url, event)
    assert proc.returncode == 0, proc.stderr
    first = github.reviews[0]["body"]
    # Another filter: the review now also says FT005 (on a context line): same head, one review.
    proc, outputs = run_action(tmp_path, pr_repo, server.url, event, **{"filter-mode": "diff-context"})
    assert proc.returncode == 0, proc.stderr
    assert len(github.reviews) == 1
    assert github.reviews[0]["body"] != first
    assert [r.method for r in server.requests].count("PUT") == 1
    assert sorted(c["line"] for c in github.comments) == [RESET_LINE, ABORT_LINE, PREEMPT_LINE]  # the new ones added
    assert outputs["posted"] == "true"


def test_a_new_head_with_new_findings_gets_its_own_review(tmp_path, pr_repo, api):
    github = FakeGitHub()
    server = api(github)
    proc, _ = run_action(tmp_path, pr_repo, server.url, write_event(tmp_path, pr_repo))
    assert proc.returncode == 0, proc.stderr
    sentinel = pr_repo.path / SENTINEL
    sentinel.write_text(  # a second reset_prefix_cache() (FT005) on an added line
        sentinel.read_text(encoding="utf-8").replace(
            "        aborted = scheduler.finish_requests(",
            "        scheduler.reset_prefix_cache()\n        aborted = scheduler.finish_requests(",
        ),
        encoding="utf-8",
    )
    pr_repo.commit("more")
    proc, _ = run_action(tmp_path, pr_repo, server.url, write_event(tmp_path, pr_repo))
    assert proc.returncode == 0, proc.stderr
    assert len(github.reviews) == 2
    assert github.reviews[0]["commit_id"] != github.reviews[1]["commit_id"]
    # the FT001 comment already on the pull request is not posted again
    assert sum(c["line"] == PREEMPT_LINE for c in github.comments) == 1


def test_a_copied_marker_from_someone_else_does_not_silence_the_review(tmp_path, pr_repo, api):
    github = FakeGitHub()
    server = api(github)
    event = write_event(tmp_path, pr_repo)
    proc, _ = run_action(tmp_path, pr_repo, server.url, event)
    assert proc.returncode == 0, proc.stderr
    # A user (anyone can review) repeats the bot's review, marker and all; the bot's is gone.
    github.reviews = [{**github.reviews[0], "id": 7, "user": {"login": "mallory", "type": "User"}}]
    proc, outputs = run_action(tmp_path, pr_repo, server.url, event)
    assert proc.returncode == 0, proc.stderr
    assert outputs["posted"] == "true" and len(github.reviews) == 2


def test_with_a_personal_token_its_own_reviews_are_found(tmp_path, pr_repo, api):
    github = FakeGitHub(user={"login": "ft-bot", "type": "User"})
    server = api(github)
    event = write_event(tmp_path, pr_repo)
    proc, _ = run_action(tmp_path, pr_repo, server.url, event)
    assert proc.returncode == 0, proc.stderr
    github.reviews[0]["user"] = {"login": "ft-bot", "type": "User"}
    proc, outputs = run_action(tmp_path, pr_repo, server.url, event)
    assert proc.returncode == 0, proc.stderr
    assert outputs["posted"] == "false" and len(github.reviews) == 1


# -- hostile input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "title",
    [
        "--help",
        "-h",
        "--title",
        "--exit-zero",
        "--base=HEAD",
        "--output-file=stolen.json",
        "-",
        "--",
        "$(touch pwned)",
        "`touch pwned`; --format=sarif",
        "Evict\n--help",
        "a\u0000b --select=PR001",
    ],
)
def test_a_hostile_title_still_gets_a_review(tmp_path, pr_repo, api, title):
    github = FakeGitHub()
    server = api(github)
    event = write_event(tmp_path, pr_repo, title=title, body="--help", head_ref="--help;$(touch pwned)")
    proc, outputs = run_action(tmp_path, pr_repo, server.url, event)
    assert proc.returncode == 0, proc.stderr
    assert outputs["posted"] == "true"
    (review,) = github.reviews
    assert "FT001" in json.dumps(github.comments)  # the file findings are all there
    assert "PR003" in review["body"]
    assert not (pr_repo.path / "pwned").exists() and not (pr_repo.path / "stolen.json").exists()


@pytest.mark.parametrize("hostile", ["--base=HEAD", "--output-file={out} --exit-zero", "--exit-zero\n--base=HEAD"])
def test_the_paths_input_never_becomes_options(tmp_path, pr_repo, api, hostile):
    stolen = tmp_path / "redirected.json"
    github = FakeGitHub()
    server = api(github)
    proc, _ = run_action(
        tmp_path, pr_repo, server.url, write_event(tmp_path, pr_repo), paths=hostile.format(out=stolen)
    )
    # Each line is a path that does not exist: a clear error, never a green run on HEAD.
    assert proc.returncode == 2
    assert "no such file or directory" in proc.stderr and "Traceback" not in proc.stderr
    assert not stolen.exists()
    assert github.reviews == []


def test_paths_with_spaces_one_per_line(tmp_path, pr_repo, api):
    spaced = "vllm/my plugins/handler.py"
    pr_repo.write(
        spaced,
        "class H:\n    def on_fault(self, exc):\n        self.scheduler.reset_prefix_cache()\n",
    )
    pr_repo.write("other/ignored.py", "class G:\n    def on_fault(self, exc):\n        self.s.reset_prefix_cache()\n")
    pr_repo.commit("more handlers")
    github = FakeGitHub()
    server = api(github)
    proc, _ = run_action(
        tmp_path,
        pr_repo,
        server.url,
        write_event(tmp_path, pr_repo),
        paths="  vllm/my plugins  \n\nvllm/v1/fault_tolerance\n",
    )
    assert proc.returncode == 0, proc.stderr
    paths = {c["path"] for c in github.comments}
    assert paths == {spaced, SENTINEL}  # both lines reviewed, other/ left out


def test_the_token_never_follows_a_redirect(tmp_path, pr_repo, api):
    elsewhere = api(lambda method, path, body: (200, {}, {}))

    def answer(method, path, body):
        if method == "GET":
            return 200, [], {}
        return 307, {}, {"Location": f"{elsewhere.url}/steal"}

    server = api(answer)
    proc, _ = run_action(tmp_path, pr_repo, server.url, write_event(tmp_path, pr_repo))
    assert proc.returncode == 2
    assert "redirect" in proc.stderr and "not followed" in proc.stderr
    assert elsewhere.requests == []
    assert "Traceback" not in proc.stderr


def test_the_token_is_never_sent_over_plain_http_to_another_host(tmp_path, pr_repo, api):
    proc, _ = run_action(tmp_path, pr_repo, "http://api.github.invalid", write_event(tmp_path, pr_repo))
    assert proc.returncode == 2
    assert "refusing to send the token over plain http" in proc.stderr


def test_a_forks_read_only_token_is_explained(tmp_path, pr_repo, api):
    server = api(github_like(review_status=403))
    proc, _ = run_action(tmp_path, pr_repo, server.url, write_event(tmp_path, pr_repo))
    assert proc.returncode == 2
    assert "pull-requests: write" in proc.stderr and "forks" in proc.stderr


def test_a_clean_pull_request_posts_nothing(tmp_path, repo, api):
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/util.py", "def add(a, b):\n    return a + b\n")
    repo.base = repo.commit("base")
    repo.write("pkg/util.py", "def add(a, b):\n    return b + a\n")
    repo.commit("commute")
    server = api(github_like())
    body = "## Purpose\n\nCommute.\n\n## Test Plan\n\npytest\n\n## Test Result\n\npassed\n"
    proc, outputs = run_action(tmp_path, repo, server.url, write_event(tmp_path, repo, title="Commute add", body=body))
    assert proc.returncode == 0, proc.stderr
    assert server.requests == []
    assert outputs["findings"] == "0" and outputs["posted"] == "false"


def test_sarif_is_written_for_upload(tmp_path, pr_repo, api):
    server = api(github_like())
    proc, outputs = run_action(
        tmp_path, pr_repo, server.url, write_event(tmp_path, pr_repo), sarif="true", **{"post-review": "false"}
    )
    assert proc.returncode == 0, proc.stderr
    assert server.requests == []  # post-review: false
    sarif = json.loads(Path(outputs["sarif-file"]).read_text(encoding="utf-8"))
    rules = {r["ruleId"] for r in sarif["runs"][0]["results"]}
    assert {"FT001", "FT005"} <= rules  # --filter file: the unchanged FT005 too


def test_not_a_pull_request_event(tmp_path, pr_repo, api):
    event = tmp_path / "push.json"
    event.write_text(json.dumps({"ref": "refs/heads/main"}), encoding="utf-8")
    server = api(github_like())
    proc, _ = run_action(tmp_path, pr_repo, server.url, event)
    assert proc.returncode == 2
    assert "use this action on `pull_request`" in proc.stderr
    assert server.requests == []
