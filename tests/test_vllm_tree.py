"""The installed vLLM 0.34.0 package, linted as a user would: exactly one true positive.

Upstream `EngineCoreSentinel.on_fault` aborts every request without evicting the
unconfirmed tail (FT007). Nothing else in vLLM is a fault path: the UMBP connector's
`0 <= block_id < len(pool.blocks)`, the scheduler's KV-load-failure eviction and
`reset_prefix_cache` must stay silent.
"""

import importlib.util
import json
from pathlib import Path

import pytest

from tests.helpers import run_ftlint

pytestmark = pytest.mark.vllm  # the installed vLLM source tree


@pytest.fixture(scope="module")
def vllm_dir() -> Path:
    spec = importlib.util.find_spec("vllm")  # locate without importing (import costs ~10 s)
    assert spec is not None and spec.origin, "vLLM must be installed in the test environment (scripts/bootstrap-env)"
    return Path(spec.origin).parent


def test_vllm_version_is_the_pinned_one(vllm_dir):
    from importlib.metadata import version

    assert version("vllm") == "0.34.0"


def test_installed_vllm_has_exactly_the_upstream_on_fault_finding(vllm_dir, tmp_path):
    proc = run_ftlint("check", "--format", "json", str(vllm_dir), cwd=tmp_path)
    assert "Traceback" not in proc.stderr, proc.stderr
    findings = json.loads(proc.stdout)
    assert proc.returncode == 1, proc.stderr
    assert [(Path(f["path"]).relative_to(vllm_dir).as_posix(), f["code"]) for f in findings] == [
        ("v1/fault_tolerance/engine_core_sentinel.py", "FT007")
    ]
    finding = findings[0]
    assert "finish_requests(" in finding["line_text"]
    source = (vllm_dir / "v1/fault_tolerance/engine_core_sentinel.py").read_text().splitlines()
    defs = [i for i, line in enumerate(source[: finding["line"]], 1) if line.lstrip().startswith("def ")]
    assert source[defs[-1] - 1].strip().startswith("def on_fault("), "the finding must be inside on_fault"


def test_vllm_sites_that_look_alike_are_silent(vllm_dir, tmp_path):
    """The same primitives outside fault paths, linted explicitly."""
    files = [
        vllm_dir / "v1/core/sched/scheduler.py",  # KV-load-failure eviction, reset_prefix_cache
        vllm_dir / "v1/core/kv_cache_manager.py",
        vllm_dir / "v1/engine/core.py",
    ]
    umbp = vllm_dir / "distributed/kv_transfer/kv_connector/v1/umbp/scheduler.py"
    assert "0 <= block_id < len(pool.blocks)" in umbp.read_text()
    proc = run_ftlint("check", "--format", "json", *map(str, files), str(umbp), cwd=tmp_path)
    assert (proc.returncode, json.loads(proc.stdout)) == (0, [])


def test_the_sentinel_alone_as_pre_commit_passes_it(vllm_dir, tmp_path):
    """One file, helpers resolved from the installed tree: its helpers outside the lint set
    are only outlined (ftlint/index/outline.py), and the finding is the whole-tree run's."""
    sentinel = vllm_dir / "v1/fault_tolerance/engine_core_sentinel.py"
    alone = run_ftlint("check", "--format", "json", "--scan-stats", str(sentinel), cwd=tmp_path)
    assert alone.returncode == 1, alone.stderr
    whole = run_ftlint("check", "--format", "json", str(vllm_dir), cwd=tmp_path)
    in_sentinel = [f for f in json.loads(whole.stdout) if f["path"].endswith("engine_core_sentinel.py")]
    strip = lambda fs: [(f["line"], f["column"], f["code"], f["message"]) for f in fs]  # noqa: E731
    assert strip(json.loads(alone.stdout)) == strip(in_sentinel) != []
    parsed = int(alone.stderr.split(" parsed")[0].split()[-1])
    assert parsed >= 2, alone.stderr  # the sentinel and at least the scheduler it reaches
