"""scripts/gpu_check.py's dry run: the CUDA plan printed, the CPU versions run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_gpu_check_dry_run_prints_the_plan_and_passes_on_cpu():
    proc = subprocess.run(
        [sys.executable, "scripts/gpu_check.py", "--dry-run"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "dry run (--dry-run); on CUDA this would run:" in out
    assert "--kv --device cuda" in out and "-n 8 tests/runtime" in out and "--checked 1000" in out
    summary = out.split("summary", 1)[1]
    assert "KV-content scenarios   cpu    pass" in summary
    assert "zero-check benchmark   cpu    pass" in summary
    assert "agree in 16 of 16 scenarios" in summary
    assert "assert_blocks_zeroed" in summary
