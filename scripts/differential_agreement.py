#!/usr/bin/env python3
"""Print how far the static rules agree with the runtime verifier on the
differential corpus (tests/differential/): per handler, per scenario, and
precision/recall per rule family.

    $V/bin/python scripts/differential_agreement.py            # committed runtime labels
    $V/bin/python scripts/differential_agreement.py --rerun    # rerun vLLM first (~1 min)
    $V/bin/python scripts/differential_agreement.py --corpus DIR   # handlers of your own

A corpus of your own is a directory of handler directories laid out as
tests/differential/README.md describes (`DIR/<name>/handler.py`, header comment,
optional `# switch:` / `# vllm:`); it is linted with the `[tool.ftlint]` of the
pyproject.toml it holds (defaults when it has none) and always run on vLLM (it has no
committed labels).

The runtime side is the committed labels.json (the test suite checks it is
current) unless --rerun.  Figures, not a test: exit 0 whatever they are.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repository root: the corpus lives in the tests package

from tests.differential import agreement, oracle  # noqa: E402
from tests.differential.disagreements import KNOWN_DISAGREEMENTS, LEGITIMATE_DIFFERENCES  # noqa: E402


def pct(x: float | None) -> str:
    return "  n/a" if x is None else f"{100 * x:5.1f}%"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rerun", action="store_true", help="rerun the runtime oracle")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every handler")
    ap.add_argument("--corpus", type=Path, help="a directory of handler directories of your own (implies --rerun)")
    args = ap.parse_args(argv)

    corpus = args.corpus.resolve() if args.corpus else oracle.CORPUS
    if not corpus.is_dir():
        print(f"differential_agreement.py: {args.corpus}: not a directory", file=sys.stderr)
        return 2
    cases = oracle.load_cases(corpus)
    if not cases:
        print(f"differential_agreement.py: {args.corpus}: no <name>/handler.py in it", file=sys.stderr)
        return 2
    labels = oracle.runtime_labels([corpus])[str(corpus)] if args.corpus or args.rerun else oracle.read_labels()
    results = agreement.lint_corpus(cases, corpus=corpus)
    # the documented exceptions name handlers of the project's corpus only
    legitimate = {} if args.corpus else LEGITIMATE_DIFFERENCES
    known = {} if args.corpus else KNOWN_DISAGREEMENTS
    static = {n: r.verdict for n, r in results.items()}
    runtime = {n: labels[n]["verdict"] for n in static}

    agree = [n for n in static if static[n] == runtime[n]]
    s_agree, s_total = agreement.scenario_agreement(static, labels)
    correct = [n for n in runtime if not runtime[n]]
    flagged_correct = [n for n in correct if static[n]]
    print(
        f"differential corpus {corpus}: {len(cases)} handlers "
        f"({sum(c.vllm == '0.26' for c in cases)} on vLLM 0.26), "
        f"{sum(len(c.scenarios()) for c in cases)} runtime scenarios"
    )
    print(f"handlers where static == runtime: {len(agree)}/{len(static)} ({pct(len(agree) / len(static)).strip()})")
    truth = {n: legitimate[n][0] if n in legitimate else runtime[n] for n in static}
    expected = [n for n in static if static[n] == truth[n]]
    print(
        f"handlers where static == runtime, legitimate differences counted as agreeing: "
        f"{len(expected)}/{len(static)}; known disagreements: {len(known)}"
    )
    print(f"scenarios where static == runtime: {s_agree}/{s_total} ({pct(s_agree / s_total).strip()})")
    print(f"runtime-correct handlers flagged by a static rule: {len(flagged_correct)}/{len(correct)}")
    blind = [n for n in static if n in agreement.WRITTEN_BLIND] if not args.corpus else []
    if blind:
        overall = agreement.overall({n: static[n] for n in blind}, {n: runtime[n] for n in blind})
        print(
            f"of them written blind (never shown the rules): static == runtime on "
            f"{sum(static[n] == runtime[n] for n in blind)}/{len(blind)}, "
            f"precision {pct(overall.precision).strip()}, recall {pct(overall.recall).strip()}"
        )
    print()
    print(f"{'family':46} {'TP':>3} {'FP':>3} {'FN':>3} {'TN':>3} {'precision':>9} {'recall':>7}")
    for family, c in agreement.confusion(static, runtime).items():
        print(
            f"{family + ' ' + agreement.FAMILIES[family]:46} {c.tp:3} {c.fp:3} {c.fn:3} "
            f"{c.tn:3} {pct(c.precision):>9} {pct(c.recall):>7}"
        )
    overall = agreement.overall(static, runtime)
    print(
        f"{'all families':46} {overall.tp:3} {overall.fp:3} {overall.fn:3} {'':3} "
        f"{pct(overall.precision):>9} {pct(overall.recall):>7}"
    )
    print()
    print("disagreements (static -> runtime):")
    for n in static:
        if static[n] != runtime[n] or args.verbose:
            tag = (
                "known" if n in known else "legitimate" if n in legitimate else "" if static[n] == runtime[n] else "NEW"
            )
            print(f"  {n:46} {','.join(static[n]) or '-':12} -> {','.join(runtime[n]) or '-':12} {tag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
