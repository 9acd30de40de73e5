"""Generated handlers, both ways: the runtime oracle's verdict and ftlint's, compared.

Used by ``scripts/generated_agreement.py`` (any seed, any size, with shrinking) and by
``test_generated.py`` (a fixed-seed slice).  The runtime side is the differential
oracle (tests/differential/oracle.py: a failed prefill and decode step, one and two
KV-cache groups, abort and resume paths, one process per vLLM version and shard); the
static side is one ``ftlint check --format json`` over the whole tree.

Families compared: the runtime codes FTR01-FTR05 against the static codes mapped onto
them (tests/differential/agreement.py: FT006/FT007 = FTR01, FT004 = FTR02,
FT001/FT008 = FTR03, FT009 = FTR04; FTR05 has no static rule), and the static-only codes
FT002, FT003, FT005 against what the generator injected (generator.static_truth).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tests.differential import oracle
from tests.differential.agreement import RULE_TO_RUNTIME, Confusion
from tests.generated import generator as gen

SELECT = ("FT001", "FT002", "FT003", "FT004", "FT005", "FT006", "FT007", "FT008", "FT009")
RUNTIME_FAMILIES = ("FTR01", "FTR02", "FTR03", "FTR04", "FTR05")
STATIC_ONLY = ("FT002", "FT003", "FT005")
CODES = RUNTIME_FAMILIES + STATIC_ONLY
FAMILY_RULES = {
    "FTR01": "FT006/FT007",
    "FTR02": "FT004",
    "FTR03": "FT001/FT008",
    "FTR04": "FT009",
    "FTR05": "(no rule)",
}


def write_tree(specs: Iterable[gen.Spec], root: Path, shards: int = 1) -> dict[str, Path]:
    """Each handler's directory under ``root/shard-K/<name>`` (shards round-robin per
    vLLM version); ``root/pyproject.toml`` holds an empty ``[tool.ftlint]`` (defaults,
    nothing excluded), as the differential corpus does.  ``{name: directory}``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("# Generated handlers, linted as a user project.\n[tool.ftlint]\n")
    out: dict[str, Path] = {}
    counts: dict[str, int] = {}
    for spec in specs:
        k = counts.get(spec.api, 0)
        counts[spec.api] = k + 1
        d = root / f"shard-{spec.api}-{k % shards}" / spec.name
        d.mkdir(parents=True, exist_ok=True)
        for name, text in gen.render(spec).items():
            (d / name).write_text(text)
        out[spec.name] = d
    return out


def runtime_verdicts(root: Path, jobs: int = 1, python: str | None = None) -> dict[str, dict[str, list[str]]]:
    """``{name: {scenario: codes}}`` for every handler under ``root``: one oracle process
    per shard directory (each holds one vLLM version's handlers), ``jobs`` at a time."""
    shards = sorted(p for p in root.iterdir() if p.is_dir() and p.name.startswith("shard-"))

    def one(shard: Path) -> dict[str, dict[str, list[str]]]:
        version = shard.name.split("-")[1]
        return oracle.run_oracle(version, [shard], python)[str(shard)]

    out: dict[str, dict[str, list[str]]] = {}
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for result in pool.map(one, shards):
            out.update(result)
    return out


def static_findings(root: Path, python: str | None = None) -> dict[str, list[dict]]:
    """``{name: findings}`` from one ``ftlint check --format json`` over ``root``."""
    env = {**os.environ, "FTLINT_NO_CACHE": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(oracle.ROOT), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [
            python or sys.executable,
            "-m",
            "ftlint",
            "check",
            "--no-cache",
            "--format",
            "json",
            "--select",
            ",".join(SELECT),
            ".",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if proc.returncode not in (0, 1) or "Traceback" in proc.stderr:
        raise RuntimeError(f"ftlint check over {root} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
    out: dict[str, list[dict]] = {}
    for finding in json.loads(proc.stdout or "[]"):
        out.setdefault(Path(finding["path"]).parts[1], []).append(finding)
    return out


@dataclass
class Result:
    """One handler, both ways."""

    spec: gen.Spec
    path: Path  # the handler's directory
    scenarios: dict[str, list[str]]
    findings: list[dict]

    @property
    def runtime(self) -> set[str]:
        return {c for codes in self.scenarios.values() for c in codes}

    @property
    def errors(self) -> list[str]:
        """``raised:``/``import-error:`` codes: the generated handler itself is broken."""
        return sorted(c for c in self.runtime if ":" in c)

    @property
    def rule_codes(self) -> set[str]:
        return {f["code"] for f in self.findings}

    def truth(self) -> set[str]:
        return {c for c in self.runtime if c in RUNTIME_FAMILIES} | gen.static_truth(self.spec)

    def said(self) -> set[str]:
        codes = self.rule_codes
        return {RULE_TO_RUNTIME[c] for c in codes if c in RULE_TO_RUNTIME} | (codes & set(STATIC_ONLY))

    def disagreements(self) -> list[tuple[str, str]]:
        """``[(code, "FN" | "FP")]``: a false negative is a code in the truth the static
        side does not give, a false positive the reverse."""
        truth, said = self.truth(), self.said()
        return sorted([(c, "FN") for c in truth - said] + [(c, "FP") for c in said - truth])


def _child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run(specs: list[gen.Spec], root: Path, jobs: int = 1, python: str | None = None) -> tuple[list[Result], dict]:
    """Write, run on the oracle and lint ``specs``; ``(results, timings)``: wall seconds
    of each side and of the whole, and the CPU seconds of the child processes."""
    t0 = time.monotonic()
    cpu0 = _child_cpu()
    dirs = write_tree(specs, root, shards=max(1, jobs))
    t_write = time.monotonic() - t0
    timings: dict[str, float] = {"write_s": t_write}

    def timed(label: str, fn, *args):  # type: ignore[no-untyped-def]
        t = time.monotonic()
        value = fn(*args)
        timings[label] = time.monotonic() - t
        return value

    with ThreadPoolExecutor(max_workers=2) as pool:
        rt = pool.submit(timed, "runtime_s", runtime_verdicts, root, jobs, python)
        st = pool.submit(timed, "static_s", static_findings, root, python)
        scenarios, findings = rt.result(), st.result()
    timings["total_s"] = time.monotonic() - t0
    timings["cpu_s"] = _child_cpu() - cpu0
    results = [Result(s, dirs[s.name], scenarios[s.name], findings.get(s.name, [])) for s in specs]
    return results, timings


def confusion(results: Iterable[Result]) -> dict[str, Confusion]:
    out = {c: Confusion() for c in CODES}
    for r in results:
        if r.errors:
            continue
        truth, said = r.truth(), r.said()
        for code, c in out.items():
            t, s = code in truth, code in said
            if t and s:
                c.tp += 1
            elif s:
                c.fp += 1
                c.false_positives.append(r.spec.name)
            elif t:
                c.fn += 1
                c.false_negatives.append(r.spec.name)
            else:
                c.tn += 1
    return out


def _pct(x: float | None) -> str:
    return "   -  " if x is None else f"{100 * x:5.1f}%"


def format_table(conf: dict[str, Confusion]) -> str:
    lines = [f"{'code':7} {'rules':12} {'TP':>5} {'FP':>5} {'FN':>5} {'TN':>6} {'precision':>10} {'recall':>8}"]
    for code, c in conf.items():
        rules = FAMILY_RULES.get(code, code + " (injected)")
        lines.append(
            f"{code:7} {rules:12} {c.tp:5} {c.fp:5} {c.fn:5} {c.tn:6} {_pct(c.precision):>10} {_pct(c.recall):>8}"
        )
    return "\n".join(lines)
