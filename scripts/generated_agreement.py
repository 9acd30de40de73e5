#!/usr/bin/env python3
"""Generate fault handlers, run each on vLLM's real scheduler and through ftlint, and
print how far the static rules agree with the runtime truth (issue 21).

    $V/bin/python scripts/generated_agreement.py --seed 1 --n 500 --jobs 2

Handlers come from the seeded grammar of tests/generated/generator.py (handler i of
seed S is always the same).  Truth: the runtime oracle of tests/differential (FTR01-FTR05
over a failed prefill and decode step, one and two KV-cache groups, abort and resume),
and, for the static-only codes FT002, FT003 and FT005, what the generator injected.
Prints recall and precision per code, then, for each kind of disagreement (code x FN/FP),
how many handlers show it and the smallest one, shrunk: one axis at a time is moved to
its simplest value while the disagreement holds (--shrink-rounds rounds, each one more
oracle and lint run).  The handlers are written under --out (kept), the shrunk ones
under OUT/smallest/<code>-<FN|FP>/.  Figures, not a test: exit 0 whatever they are
(2 when a generated handler fails to import or raises: a generator bug).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repository root: the generator lives in the tests package

from tests.generated import agreement as ag  # noqa: E402
from tests.generated import generator as gen  # noqa: E402

Kind = tuple[str, str]


def _shrink(
    best: dict[Kind, ag.Result], out: Path, rounds: int, jobs: int, python: str, seed: int
) -> tuple[dict[Kind, ag.Result], float]:
    """Move one axis at a time to its simplest value while the kind still shows."""
    spent = 0.0
    for round_ in range(rounds):
        cands: list[tuple[Kind, gen.Spec]] = []
        seen: set[tuple[str, ...]] = set()
        for kind, r in sorted(best.items()):
            for c in gen.shrink_candidates(r.spec):
                key = (*kind, *c.axes().values())
                if key not in seen:
                    seen.add(key)
                    cands.append((kind, c))
        if not cands:
            break
        base = 1_000_000 + round_ * 100_000
        specs = [gen.spec_from_axes(seed, base + i, c.axes()) for i, (_, c) in enumerate(cands)]
        t = time.monotonic()
        results, _ = ag.run(specs, out / f"shrink-{round_}", jobs, python)
        spent += time.monotonic() - t
        improved = False
        for (kind, _), r in zip(cands, results, strict=True):
            if r.errors or kind not in r.disagreements():
                continue
            if gen.size(gen.render(r.spec)) < gen.size(gen.render(best[kind].spec)):
                best[kind] = r
                improved = True
        if not improved:
            break
    return best, spent


def parse_only(values: list[str]) -> dict[str, set[str]]:
    """``--only AXIS=V1,V2`` options as ``{axis: values}``; ValueError names a bad one."""
    only: dict[str, set[str]] = {}
    for item in values:
        axis, sep, vals = item.partition("=")
        if not sep or axis not in gen.AXES:
            raise ValueError(f"--only {item!r}: expected AXIS=VALUE[,VALUE...] with AXIS one of {', '.join(gen.AXES)}")
        wanted = {v for v in vals.split(",") if v}
        unknown = sorted(wanted - set(gen.AXES[axis]))
        if not wanted or unknown:
            raise ValueError(f"--only {item!r}: {axis} takes {', '.join(gen.AXES[axis])}")
        only.setdefault(axis, set()).update(wanted)
    return only


def select(seed: int, n: int, start: int, only: dict[str, set[str]]) -> list[gen.Spec]:
    """The first ``n`` handlers of ``seed`` from index ``start`` holding any value of
    ``only`` (all of them when ``only`` is empty); each keeps its index, so it is still
    ``generator.draw(seed, index)``.  Gives up after ``1000 * n`` indices."""
    if not only:
        return gen.generate(seed, n, start)
    out: list[gen.Spec] = []
    for i in range(start, start + 1000 * n):
        spec = gen.draw(seed, i)
        if any(getattr(spec, axis) in vals for axis, vals in only.items()):
            out.append(spec)
            if len(out) == n:
                break
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n", type=int, default=300, help="handlers to generate (default 300)")
    ap.add_argument("--start", type=int, default=0, help="index of the first handler (default 0)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="oracle processes at a time")
    ap.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="AXIS=V1,V2",
        help="keep only handlers holding one of these axis values (repeatable: any of them); "
        "--n counts the kept ones, each keeps its index",
    )
    ap.add_argument("--out", type=Path, help="where the handlers go (default build/generated-agreement/seed-S)")
    ap.add_argument("--shrink-rounds", type=int, default=4, help="shrinking rounds (0: pick the shortest only)")
    ap.add_argument("--json", type=Path, help="write every handler's axes, truth and static codes here")
    ap.add_argument("--python", default=sys.executable, help="interpreter with vLLM and ftlint (default: this one)")
    args = ap.parse_args(argv)
    if args.n < 1 or args.jobs < 1:
        ap.error("--n and --jobs must be at least 1")
    try:
        only = parse_only(args.only)
    except ValueError as exc:
        ap.error(str(exc))
    out = args.out or HERE.parent / "build" / "generated-agreement" / f"seed-{args.seed}"
    if out.exists():
        shutil.rmtree(out)
    specs = select(args.seed, args.n, args.start, only)
    if not specs:
        ap.error(f"no handler of seed {args.seed} holds {args.only}")
    results, t = ag.run(specs, out / "handlers", args.jobs, args.python)
    apis = {v: sum(1 for s in specs if s.api == v) for v in gen.APIS}
    if only:
        held = "; ".join(a + "=" + ",".join(sorted(v)) for a, v in sorted(only.items()))
        print(f"only handlers holding any of: {held}")
    print(
        f"seed {args.seed}, {len(specs)} handlers ({', '.join(f'{n} on vLLM {v}' for v, n in apis.items())}), "
        f"{sum(len(r.scenarios) for r in results)} scenarios, --jobs {args.jobs}"
    )
    print(
        f"time: {t['total_s']:.1f} s wall ({len(specs) / t['total_s']:.1f} handlers/s; runtime oracle "
        f"{t['runtime_s']:.1f} s, ftlint {t['static_s']:.1f} s, side by side), "
        f"{t['cpu_s']:.1f} s CPU in child processes ({t['cpu_s'] / len(specs):.3f} s per handler)"
    )
    broken = [r for r in results if r.errors]
    for r in broken:
        print(f"GENERATOR BUG: {r.path} {r.errors}")
    print()
    print(ag.format_table(ag.confusion(results)))
    kinds: dict[Kind, list[ag.Result]] = defaultdict(list)
    for r in results:
        if not r.errors:
            for kind in r.disagreements():
                kinds[kind].append(r)
    agree = sum(1 for r in results if not r.errors and not r.disagreements())
    print(f"\nhandlers where static == truth on every code: {agree}/{len(results) - len(broken)}")
    best = {k: min(rs, key=lambda r: (gen.size(gen.render(r.spec)), r.spec.index)) for k, rs in kinds.items()}
    spent = 0.0
    if best and args.shrink_rounds:
        best, spent = _shrink(best, out, args.shrink_rounds, args.jobs, args.python, args.seed)
    if best:
        print(f"\nkinds of disagreement ({len(best)}), smallest handler of each (shrunk in {spent:.0f} s):")
    for kind, r in sorted(best.items()):
        dest = out / "smallest" / f"{kind[0]}-{kind[1]}"
        shutil.copytree(r.path, dest, ignore=shutil.ignore_patterns("__pycache__"))
        n = len(kinds[kind])
        print(f"  {kind[0]} {kind[1]}: {n} handler(s); smallest ({gen.size(gen.render(r.spec))} lines): {dest}")
        print(f"      {gen.intended(r.spec)}")
        print(
            f"      runtime {sorted(r.runtime)}, static {sorted(r.rule_codes)}, examples: "
            + ", ".join(x.spec.name for x in kinds[kind][:5])
        )
    if args.json:
        rows = [
            {
                "name": r.spec.name,
                "axes": r.spec.axes(),
                "runtime": r.scenarios,
                "static": sorted(r.rule_codes),
                "truth": sorted(r.truth()),
                "disagreements": [list(k) for k in r.disagreements()],
            }
            for r in results
        ]
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 2 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
