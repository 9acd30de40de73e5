#!/usr/bin/env python3
"""bench_tree.py's `floor` and `no-fault-path` cases alone, in alternating rounds, optionally
against another ftlint (issue 24 item 1: a process whose files hold no fault path).

    python benchmarks/bench_no_fault_path.py /tmp/vllm-0.34.0 [--rounds 7] [--before DIR]

`--before DIR`: a directory holding another version's `ftlint/` package (e.g. from
`git archive COMMIT ftlint | tar x -C DIR`), run with DIR first on PYTHONPATH; each round
runs every case once, the order reversed every other round. Prints the medians and the
load average before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_tree


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree", type=Path)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--before", type=Path, default=None, help="another ftlint's parent directory")
    args = parser.parse_args(argv)
    tree, py = args.tree.resolve(), args.python
    tracked = bench_tree.tracked_python_files(tree)
    if not tracked:
        parser.error(f"{tree}: no tracked Python files (git init and add them first)")
    listed = bench_tree.subprocess.run(
        [py, "-c", bench_tree.FLOOR, "list"], cwd=tree, capture_output=True, text=True, check=True
    )
    candidates = set(listed.stdout.split())
    files = [f for f in tracked[: bench_tree.BATCH] if f not in candidates]
    no_fault = [py, "-m", "ftlint", "check", "--format", "json", "--scan-stats", "--no-cache", *files]
    env = {k: v for k, v in os.environ.items() if k != "FTLINT_NO_CACHE"}
    cases: dict[str, tuple[list[str], dict[str, str]]] = {
        "floor": ([py, "-c", bench_tree.FLOOR], env),
        "no-fault-path": (no_fault, env),
    }
    if args.before is not None:
        before = {**env, "PYTHONPATH": str(args.before.resolve())}
        cases["floor-before"] = ([py, "-c", bench_tree.FLOOR], before)
        cases["no-fault-path-before"] = (no_fault, before)
    walls: dict[str, list[float]] = {name: [] for name in cases}
    print(f"tree: {tree}  no-fault-path files: {len(files)}  rounds: {args.rounds}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for i in range(args.rounds):
        for name in list(cases) if i % 2 == 0 else list(reversed(cases)):
            cmd, case_env = cases[name]
            result = bench_tree.run_reaped(cmd, tree, case_env)
            if result["code"] not in (0, 1):
                print(f"{name}: exit {result['code']}: {result['err'][-800:]}", file=sys.stderr)
                return 2
            walls[name].append(result["wall"])
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for name, values in walls.items():
        print(f"{name:22} median {statistics.median(values):.3f} s  min {min(values):.3f}  max {max(values):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
