"""`ftlint verify --demo` (ftlint.runtime.demo.main)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ftlint.runtime import demo

# These tests run bad fault handlers on purpose: opt out of --ftlint-verify.
pytestmark = pytest.mark.ftlint_verify(False)


def test_demo_prints_a_table_per_handler(vllm_ready, capsys):
    assert demo.main([]) == 0
    out = capsys.readouterr().out
    upstream, correct = out.split("(b) ")
    assert "EngineCoreSentinel.on_fault" in upstream
    # (a): dirty blocks left in the cache, a 32-token hit on never-computed KV
    assert "failed prefill step  2             2" in upstream
    assert "32 tokens" in upstream and "FAIL FTR01" in upstream
    assert "FTR01 dirty-block-cached: request 'req-0'" in upstream
    # (b): nothing dirty left, clean prefix still hit after a decode fault
    assert "FAIL" not in correct
    assert "failed prefill step  2             0" in correct
    assert "32 tokens" in correct


def test_demo_without_vllm_says_how_to_install(tmp_path):
    (tmp_path / "vllm").mkdir()
    (tmp_path / "vllm" / "__init__.py").write_text("raise ImportError('hidden')\n")
    proc = subprocess.run(
        [sys.executable, "-m", "ftlint.runtime.demo"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert proc.returncode == 2
    from ftlint.runtime.install_hint import install_commands

    for command in install_commands(sys.executable):  # what a pip user runs: torch CPU, the lists, --no-deps vllm
        assert command in proc.stderr
