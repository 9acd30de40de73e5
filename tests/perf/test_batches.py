"""pre-commit's batches (issue 15): `pre-commit run --all-files` passes every file explicitly,
split by pre-commit's own `xargs` partitioning into several processes. Each process scans the
project for handlers itself, so the union of the batches' findings is the whole run's, even
when a handler and the helper holding the finding land in different batches; and files that
cannot hold a handler are not parsed (a syntax error there is FT000 only with --exhaustive).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from pre_commit.xargs import partition

from tests.helpers import run_ftlint

HANDLER = """\
from {pkg}.helpers import drop_all, evict_dirty_tails

class Sentinel{n}:
    def on_fault(self, exc):
        if exc is None:  # a path that empties the whole prefix cache (FT005, in the helper)
            drop_all(self.scheduler)
            return
        self.scheduler.finish_requests(None, "aborted")  # aborts with the dirty tails cached (FT007)
"""
HELPERS = """\
def drop_all(s):
    s.reset_prefix_cache()

def evict_dirty_tails(s):
    s.kv_cache_manager.evict_blocks(set())
"""
PLAIN = "def add(a, b):\n    return a + b\n"
BROKEN_PLAIN = "def add(a, b)\n    return a + b\n"  # cannot hold a handler: FT000 only with --exhaustive


def _generated_project(root: Path, packages: int = 4, plain: int = 30) -> list[str]:
    (root / ".git").mkdir()
    files: dict[str, str] = {}
    for p in range(packages):
        pkg = f"pkg{p}"
        files[f"{pkg}/__init__.py"] = ""
        files[f"{pkg}/helpers.py"] = HELPERS
        files[f"{pkg}/sentinel.py"] = HANDLER.format(pkg=pkg, n=p)
        for i in range(plain):
            files[f"{pkg}/mod{i:02d}.py"] = BROKEN_PLAIN if i == 7 else PLAIN
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return sorted(files)


def _findings(proc: subprocess.CompletedProcess) -> list[tuple]:
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 1), proc.stderr
    return [(f["path"], f["line"], f["column"], f["code"], f["message"]) for f in json.loads(proc.stdout or "[]")]


def _batches(files: list[str], max_length: int) -> list[list[str]]:
    """pre-commit's own split (require_serial: one partition at a time, cut by length)."""
    cmd = ("ftlint", "check", "--force-exclude", "--format", "json")
    return [list(part[len(cmd) :]) for part in partition(cmd, files, 1, max_length)]


def _run_batches(root: Path, batches, *extra: str, env=None, parallel: bool = False) -> list[tuple]:
    def one(batch):
        return _findings(run_ftlint("check", "--force-exclude", "--format", "json", *extra, *batch, cwd=root, env=env))

    if parallel:
        with ThreadPoolExecutor(len(batches)) as pool:
            results = list(pool.map(one, batches))
    else:
        results = [one(batch) for batch in batches]
    union = [finding for result in results for finding in result]
    assert len(union) == len(set(union)), "a finding reported by two batches"
    return sorted(union)


def test_handler_and_its_helper_in_different_calls(tmp_path):
    """The finding in the helper's file is reported by the call given that file, and only by it."""
    _generated_project(tmp_path, packages=1, plain=0)
    whole = sorted(_findings(run_ftlint("check", "--format", "json", ".", cwd=tmp_path)))
    assert [(f[0], f[3]) for f in whole] == [("pkg0/helpers.py", "FT005"), ("pkg0/sentinel.py", "FT007")]
    helper_call = _findings(run_ftlint("check", "--format", "json", "pkg0/helpers.py", cwd=tmp_path))
    handler_call = _findings(run_ftlint("check", "--format", "json", "pkg0/sentinel.py", cwd=tmp_path))
    assert helper_call == [f for f in whole if f[0] == "pkg0/helpers.py"]
    assert handler_call == [f for f in whole if f[0] == "pkg0/sentinel.py"]


def test_union_of_pre_commit_batches_is_the_whole_run(tmp_path):
    files = _generated_project(tmp_path)
    batches = _batches(files, max_length=400)  # small batches: handlers and helpers apart
    assert len(batches) >= 4
    apart = [
        b for b in batches if any(f.endswith("helpers.py") for f in b) and not any(f.endswith("sentinel.py") for f in b)
    ]
    assert apart, "some helper file must land in a batch without its handler"
    whole = sorted(_findings(run_ftlint("check", "--format", "json", ".", cwd=tmp_path)))
    assert sorted({f[3] for f in whole}) == ["FT005", "FT007"]
    assert len(whole) == 8
    explicit = sorted(_findings(run_ftlint("check", "--format", "json", *files, cwd=tmp_path)))
    assert explicit == whole  # the broken plain modules are not parsed: no FT000
    assert _run_batches(tmp_path, batches) == whole
    # with a shared result cache, batches at once (pre-commit without require_serial)
    cache_env = {"FTLINT_NO_CACHE": ""}
    cache = tmp_path / "cache"
    assert _run_batches(tmp_path, batches, "--cache-dir", str(cache), env=cache_env, parallel=True) == whole
    assert _run_batches(tmp_path, batches, "--cache-dir", str(cache), env=cache_env) == whole  # warm
    # --exhaustive parses every file: the same findings plus FT000 for each broken module
    exhaustive = sorted(_findings(run_ftlint("check", "--format", "json", "--exhaustive", ".", cwd=tmp_path)))
    broken = [f for f in exhaustive if f[3] == "FT000"]
    assert sorted(f[0] for f in broken) == [f"pkg{p}/mod07.py" for p in range(4)]
    assert [f for f in exhaustive if f[3] != "FT000"] == whole
    assert _run_batches(tmp_path, batches, "--exhaustive") == exhaustive


@pytest.fixture(scope="module")
def vllm_copy(tmp_path_factory) -> Path:
    """The installed vLLM package's Python files in a git-like project root (so each call
    scans the whole project, as it does in a checkout)."""
    import importlib.util

    spec = importlib.util.find_spec("vllm")
    assert spec is not None and spec.origin, "vLLM must be installed in the test environment"
    root = tmp_path_factory.mktemp("vtree")
    shutil.copytree(
        Path(spec.origin).parent,
        root / "vllm",
        ignore=lambda d, names: [
            n for n in names if not (n.endswith((".py", ".pyi")) or os.path.isdir(os.path.join(d, n)))
        ],
    )
    (root / ".git").mkdir()
    return root


@pytest.mark.slow
@pytest.mark.vllm  # copies the installed vLLM tree (vllm_copy): not in the static venv
def test_vllm_tree_explicit_batched_walk_and_exhaustive_agree(vllm_copy):
    files = sorted(p.relative_to(vllm_copy).as_posix() for p in (vllm_copy / "vllm").rglob("*.py"))
    assert len(files) > 3000
    walk = sorted(_findings(run_ftlint("check", "--format", "json", ".", cwd=vllm_copy)))
    assert [(f[0], f[3]) for f in walk] == [("vllm/v1/fault_tolerance/engine_core_sentinel.py", "FT007")]
    explicit = sorted(_findings(run_ftlint("check", "--format", "json", *files, cwd=vllm_copy)))
    assert explicit == walk
    batches = _batches(files, max_length=2**17)  # pre-commit's limit on Linux
    assert len(batches) >= 2
    assert _run_batches(vllm_copy, batches) == walk
    exhaustive = sorted(_findings(run_ftlint("check", "--format", "json", "--exhaustive", ".", cwd=vllm_copy)))
    assert exhaustive == walk
