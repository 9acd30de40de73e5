"""The device checks of issue 22 in one run, with one summary table.

On a machine with CUDA (and vLLM's Python files importable, no vLLM CUDA build
needed; see docs/runtime.md "Checking on a GPU") it runs, in under 8 minutes:
  1. KV-content mode on cuda (``ftlint verify --demo --kv --device cuda``'s scenarios);
  2. benchmarks/zero_check_cost.py at GPU size (32 layers x 1,000 of 8,192 blocks);
  3. ``pytest tests/runtime -n 8``.
With ``--dry-run``, or when torch sees no CUDA device, it prints what it would
check and runs the CPU versions of 1 and 2 at a small size (seconds).

    python scripts/gpu_check.py [--dry-run]
Exit code: 0 when every check passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGET_S = {"kv": 120, "bench": 120, "tests": 240}  # 8 minutes in all
GPU_BENCH = ["--layers", "32", "--blocks", "8192", "--checked", "1000"]
CPU_BENCH = ["--layers", "2", "--blocks", "64", "--checked", "16", "--repeat", "2"]


def _run(cmd: list[str], timeout: int) -> tuple[bool, str]:
    env = dict(os.environ, VLLM_LOGGING_LEVEL="ERROR")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    try:
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return False, f"timed out after {timeout} s"
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    return proc.returncode == 0, "\n".join(lines[-5:]) or proc.stderr.strip()[-500:]


def plan(device: str) -> list[tuple[str, list[str], int]]:
    py = sys.executable
    checks = [
        ("KV-content scenarios", [py, "-m", "ftlint", "verify", "--demo", "--kv", "--device", device], BUDGET_S["kv"]),
        (
            "zero-check benchmark",
            [py, "benchmarks/zero_check_cost.py", "--device", device, *(GPU_BENCH if device == "cuda" else CPU_BENCH)],
            BUDGET_S["bench"],
        ),
    ]
    if device == "cuda":
        checks.append(
            ("tests/runtime", [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "8", "tests/runtime"], 240)
        )
    return checks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="print the CUDA plan, run the CPU versions")
    args = parser.parse_args(argv)
    import torch

    cuda = torch.cuda.is_available() and not args.dry_run
    device = "cuda" if cuda else "cpu"
    if not cuda:
        why = "--dry-run" if args.dry_run else "torch sees no CUDA device"
        print(f"dry run ({why}); on CUDA this would run:")
        for name, cmd, timeout in plan("cuda"):
            print(f"  {name:22s} {' '.join(Path(c).name if c == sys.executable else c for c in cmd)}  (<= {timeout} s)")
        print("running the CPU versions instead:")
    rows = []
    for name, cmd, timeout in plan(device):
        start = time.perf_counter()
        ok, tail = _run(cmd, timeout)
        rows.append((name, device, "pass" if ok else "FAIL", f"{time.perf_counter() - start:.1f} s", tail))
    print("\nsummary")
    print(f"  {'check':22s} {'device':6s} {'result':6s} {'time':>8s}")
    for name, dev, result, took, _ in rows:
        print(f"  {name:22s} {dev:6s} {result:6s} {took:>8s}")
    for name, _, _, _, tail in rows:
        print(f"\n{name}:\n" + "\n".join("  " + ln for ln in tail.splitlines()))
    return 0 if all(r[2] == "pass" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
