"""The README's pre-commit snippet, as written (only the marked path filled in), blocks a
commit of a bad fault handler with the real pre-commit."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import GIT_IDENTITY, ROOT, copy_checkout, git

PLACEHOLDER = "/path/to/ftlint"
BAD = """class EngineCoreSentinel:
    def on_fault(self, exc):
        self.engine.scheduler.reset_prefix_cache()
"""

pytestmark = pytest.mark.slow


def readme_snippet() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## pre-commit\n", 1)[1].split("\n## ", 1)[0]
    (snippet,) = re.findall(r"```yaml\n(.*?)```", section, re.S)
    return snippet


def test_snippet_marks_what_to_fill_in_and_invents_no_address():
    snippet = readme_snippet()
    assert "repo: local" in snippet and "language: python" in snippet
    assert "# FILL IN:" in snippet and snippet.count(PLACEHOLDER) == 1
    assert "rev:" not in snippet and "://" not in snippet


def test_snippet_blocks_a_bad_commit(tmp_path: Path):
    source = copy_checkout(tmp_path / "ftlint-checkout")  # pip builds in the source tree
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "home"), "FTLINT_NO_CACHE": "1", **GIT_IDENTITY}
    git("init", "-q", cwd=repo)
    (repo / ".pre-commit-config.yaml").write_text(readme_snippet().replace(PLACEHOLDER, str(source)), encoding="utf-8")
    (repo / "bad.py").write_text(BAD, encoding="utf-8")
    git("add", ".", cwd=repo)
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--files", "bad.py"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert "Failed" in output and "bad.py:3:9: FT005" in output
