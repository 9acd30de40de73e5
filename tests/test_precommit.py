"""The real pre-commit, running this repository's hook on a staged bad and good file."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, git

BAD = """class EngineCoreSentinel:
    def on_fault(self, exc):
        self.engine.scheduler.reset_prefix_cache()
"""
GOOD = """class EngineCoreSentinel:
    def on_fault(self, exc):
        return None
"""


@pytest.fixture(scope="module")
def hook_env(tmp_path_factory):
    """A shared PRE_COMMIT_HOME so the hook's environment is built once for the module."""
    return tmp_path_factory.mktemp("pre-commit-home")


def _try_repo(repo: Path, home: Path, name: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "FTLINT_NO_CACHE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "ftlint", "--files", name, "--verbose"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.mark.parametrize("name, text, expected", [("bad.py", BAD, 1), ("good.py", GOOD, 0)])
def test_pre_commit_hook(tmp_path, hook_env, name, text, expected):
    assert shutil.which("git")
    repo = tmp_path / "repo"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    (repo / name).write_text(text)
    git("add", name, cwd=repo)
    proc = _try_repo(repo, hook_env, name)
    output = proc.stdout + proc.stderr
    assert proc.returncode == expected, output
    if expected:
        assert "Failed" in output
        assert "bad.py:3:9: FT005" in output
    else:
        assert "Passed" in output
