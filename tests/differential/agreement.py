"""The static side of the differential test, and how it is compared with the runtime.

Each corpus handler is linted as its own project, as a user would:
``ftlint check --format json --select FT001,FT004,FT006,FT007,FT008,FT009 .`` run in the
handler's directory (``corpus/pyproject.toml`` holds an empty ``[tool.ftlint]``, so
nothing is excluded).  The codes found are mapped onto the runtime checks they
predict: FT007/FT006 = FTR01 (dirty KV left cached), FT004 = FTR02 (broad
eviction), FT008/FT001 = FTR03 (stale output or counters on resume), FT009 = FTR04
(placeholder underflow).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tests.differential.oracle import CORPUS, ROOT, Case

SELECT = ("FT001", "FT004", "FT006", "FT007", "FT008", "FT009")
RULE_TO_RUNTIME = {
    "FT007": "FTR01",
    "FT006": "FTR01",
    "FT004": "FTR02",
    "FT008": "FTR03",
    "FT001": "FTR03",
    "FT009": "FTR04",
}
# Corpus handlers written by a helper that saw vLLM and the runtime harness but never the
# rules (issue 12's blind round): scripts/differential_agreement.py prints their figures apart.
WRITTEN_BLIND = frozenset(
    {
        "alias_bound_methods",
        "ceil_boundary",
        "collect_then_free_then_evict",
        "dataclass_plan",
        "direct_free_request",
        "drop_stale_true",
        "enumerate_index_check",
        "evict_after_free_reads_blocks",
        "evict_and_zero",
        "evict_only_on_abort",
        "evict_only_on_resume",
        "evict_prefix_instead_of_tail",
        "evict_whole_block_list",
        "first_group_only",
        "generator_tail_ids",
        "getattr_setattr_resume",
        "helper_evict_then_abort",
        "inflight_left_set",
        "match_status_dispatch",
        "mixin_override_skips_evict",
        "mixin_tail_evictor",
        "no_counter_reset",
        "partial_preempt_loop",
        "reset_prefix_cache_handler",
        "skip_zero_inflight",
        "stale_reset_before_preempt",
        "tail_from_computed_only",
        "try_finally_abort",
        "upstream_abort_only",
        "zero_instead_of_evict",
    }
)
FAMILIES = {
    "FTR01": "dirty KV left cached (FT006/FT007)",
    "FTR02": "broad eviction (FT004)",
    "FTR03": "stale output / counters (FT001/FT008)",
    "FTR04": "placeholder underflow (FT009)",
}


@dataclass
class StaticResult:
    findings: list[dict]

    @property
    def rule_codes(self) -> list[str]:
        return sorted({f["code"] for f in self.findings})

    @property
    def verdict(self) -> list[str]:
        return sorted({RULE_TO_RUNTIME[c] for c in self.rule_codes if c in RULE_TO_RUNTIME})


def _ftlint(args: list[str], cwd: Path, python: str | None) -> subprocess.CompletedProcess:
    env = {**os.environ, "FTLINT_NO_CACHE": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [python or sys.executable, "-m", "ftlint", "check", "--no-cache", "--select", ",".join(SELECT), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode not in (0, 1) or "Traceback" in proc.stderr:
        raise RuntimeError(
            f"ftlint check {' '.join(args[:3])} ... in {cwd} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}"
        )
    return proc


def lint_corpus(
    cases: Iterable[Case], python: str | None = None, corpus: Path | None = None
) -> dict[str, StaticResult]:
    """One ``ftlint check`` over every handler directory (each a path argument,
    run from the corpus directory); findings grouped by handler.  Each handler
    resolves its helpers from its own directory (the top-level package parent
    of its files), so this gives the same findings as linting each directory
    alone (checked when the corpus was built) in one process instead of 70."""
    cases = list(cases)
    proc = _ftlint(["--format", "json", *(c.path.name for c in cases)], corpus or CORPUS, python)
    results = {c.name: StaticResult([]) for c in cases}
    for finding in json.loads(proc.stdout or "[]"):
        results[Path(finding["path"]).parts[0]].findings.append(finding)
    return results


def fix_corpus(corpus: Path, python: str | None = None) -> None:
    """``ftlint check --fix`` (the safe fixes) over a copy of the corpus, in place."""
    names = sorted(d.name for d in corpus.iterdir() if (d / "handler.py").is_file())
    _ftlint(["--fix", "--exit-zero", *names], corpus, python)


# -- comparison -------------------------------------------------------------------


@dataclass
class Confusion:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    false_positives: list[str] = field(default_factory=list)
    false_negatives: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None


def confusion(static: dict[str, list[str]], runtime: dict[str, list[str]]) -> dict[str, Confusion]:
    """Per runtime family: does the static verdict predict it, handler by handler."""
    out = {family: Confusion() for family in FAMILIES}
    for name, truth in runtime.items():
        said = static[name]
        for family, c in out.items():
            s, t = family in said, family in truth
            if s and t:
                c.tp += 1
            elif s:
                c.fp += 1
                c.false_positives.append(name)
            elif t:
                c.fn += 1
                c.false_negatives.append(name)
            else:
                c.tn += 1
    return out


def overall(static: dict[str, list[str]], runtime: dict[str, list[str]]) -> Confusion:
    """Every family's counts added up (true negatives left out: they are per family)."""
    total = Confusion()
    for c in confusion(static, runtime).values():
        total.tp, total.fp, total.fn = total.tp + c.tp, total.fp + c.fp, total.fn + c.fn
    return total


def scenario_agreement(static: dict[str, list[str]], labels: dict[str, dict]) -> tuple[int, int]:
    """(scenarios where the static verdict equals that scenario's runtime
    codes, all scenarios).  A static verdict is per handler, so a bug seen only
    in some scenarios (e.g. only with two KV-cache groups) disagrees with the
    scenarios where it does not show."""
    agree = total = 0
    for name, label in labels.items():
        for codes in label["scenarios"].values():
            total += 1
            agree += sorted(codes) == static[name]
    return agree, total
