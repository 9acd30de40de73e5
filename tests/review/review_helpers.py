"""Helpers for `ftlint review` tests: real git repositories in tmp_path, and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "ftlint tests",
    "GIT_AUTHOR_EMAIL": "tests@ftlint.invalid",
    "GIT_COMMITTER_NAME": "ftlint tests",
    "GIT_COMMITTER_EMAIL": "tests@ftlint.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}

SENTINEL = "vllm/v1/fault_tolerance/engine_core_sentinel.py"

# Upstream-shaped handler: aborts everything. It already holds a bad line (FT005) that the PR
# does not touch, and a stale-output line the PR deletes.
BASE_SENTINEL = '''\
"""A small stand-in for vLLM's engine-core sentinel."""

from vllm.v1.request import RequestStatus


class EngineCoreSentinel:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        scheduler.reset_prefix_cache()
        for request in list(scheduler.running):
            request.async_tokens_to_discard = request.num_output_placeholders
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
'''

# The PR: a resume branch that preempts with drop_stale_output=True (FT001) through a helper,
# an eviction helper, and the stale-output line dropped.
PR_SENTINEL = '''\
"""A small stand-in for vLLM's engine-core sentinel."""

import time

from vllm.v1.request import RequestStatus


class EngineCoreSentinel:
    def __init__(self, engine, resume=False):
        self.engine = engine
        self.resume = resume

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        scheduler.reset_prefix_cache()
        if self.resume:
            self._resume_running(scheduler)
            return
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    def _resume_running(self, scheduler):
        now = time.monotonic()
        for request in list(scheduler.running):
            self._evict_unconfirmed_tail(scheduler, request)
            scheduler._preempt_request(request, now, drop_stale_output=True)

    def _evict_unconfirmed_tail(self, scheduler, request):
        manager = scheduler.kv_cache_manager
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        manager.evict_blocks(set(manager.tail_block_ids(request, confirmed)))
'''

# Line numbers in PR_SENTINEL.
RESET_LINE = 15  # scheduler.reset_prefix_cache()  (unchanged, FT005)
# finish_requests(...)  (unchanged, FT007: the reset before it frees nothing, evicts nothing)
ABORT_LINE = 19
PREEMPT_LINE = 26  # _preempt_request(..., drop_stale_output=True)  (added, FT001)

FILLED_BODY = """\
<!-- markdownlint-disable -->
## Purpose

Resume running requests after a fault instead of aborting them, evicting the unconfirmed tail.

## Test Plan

`pytest tests/v1/fault_tolerance/test_resume.py`

## Test Result

12 passed.
"""


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    proc = subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True)
    return proc.stdout


@dataclass
class Repo:
    path: Path
    base: str = ""

    def write(self, rel: str, text: str) -> Path:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text) if text.startswith("\n") else text, encoding="utf-8")
        return target

    def remove(self, rel: str) -> None:
        (self.path / rel).unlink()

    def commit(self, message: str = "commit") -> str:
        git(self.path, "add", "-A")
        git(self.path, "commit", "-q", "--allow-empty", "-m", message)
        return git(self.path, "rev-parse", "HEAD").strip()


def make_repo(tmp_path: Path) -> Repo:
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    return Repo(root)


def make_pr_repo(repo: Repo) -> Repo:
    """Base commit with the upstream handler, PR commit with the resume branch."""
    repo.write(SENTINEL, BASE_SENTINEL)
    repo.write("vllm/__init__.py", "")
    repo.base = repo.commit("base")
    repo.write(SENTINEL, PR_SENTINEL)
    repo.commit("resume instead of abort")
    return repo


def run_cli(cwd: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """The installed CLI for real, in a subprocess."""
    env = {**os.environ, **GIT_ENV, "FTLINT_NO_CACHE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "ftlint", *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
    )


def run_main(monkeypatch, capsys, cwd: Path, *args: str) -> tuple[int, str, str]:
    """ftlint.cli.main in-process (faster), from ``cwd``."""
    from ftlint.cli import main

    monkeypatch.chdir(cwd)
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def json_findings(text: str) -> list[dict]:
    data = json.loads(text)
    return data if isinstance(data, list) else data.get("findings", data)
