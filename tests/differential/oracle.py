"""The runtime oracle: what each corpus handler really does to vLLM's scheduler.

Each handler in ``corpus/<name>/handler.py`` (class ``FaultHandler(engine)`` with
``on_fault(self, exc)``) runs on vLLM's real CPU scheduler inside
``observe_fault_handling`` for every scenario: a failed prefill step and a failed
decode step, with one KV-cache group (full attention) and with two (full +
sliding window), and, when its header names a ``# switch:`` attribute, with that
attribute False (abort) and True (resume).  Its runtime verdict is the set of
FTR codes seen over those scenarios.

Handlers whose header says ``# vllm: 0.26`` are written for the older
stale-output API (``async_tokens_to_discard``, no ``num_stale_output_tokens``)
and run on vLLM 0.26.0's Python sources put ahead of the installed 0.34.0 on
``PYTHONPATH`` (see :mod:`vllm026`), with the async scheduler, since the fork
that uses that API runs async scheduling and only there is
``num_output_placeholders`` non-zero.

Run as a script (one process per vLLM version, every handler of that version):
``python tests/differential/oracle.py --vllm 0.34 [--corpus DIR ...]`` prints JSON
``{corpus: {name: {scenario: [codes]}}}``.  :func:`runtime_labels` does that for
both versions from another process.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
LABELS = HERE / "labels.json"
ROOT = HERE.parent.parent

FAULTS = ("prefill", "decode")
GROUPS = {"1group": ("full",), "2groups": ("full", "sliding")}
# Two running requests: 47 tokens (2 full blocks + 15) and 40 (2 full + 8).
PROMPTS = {"r0": (1, 47), "r1": (2, 40)}

_HEADER_KEY = re.compile(r"^#\s*(switch|vllm):\s*(\S+)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Case:
    """One corpus handler and what its header says about how to run it."""

    name: str
    path: Path  # the handler's directory
    switch: str | None  # attribute of the handler set False (abort) / True (resume)
    vllm: str  # "0.34" or "0.26"
    intended: str  # the header's prose: what the handler is meant to do

    @property
    def paths(self) -> tuple[str, ...]:
        return ("abort", "resume") if self.switch else ("only",)

    def scenarios(self) -> list[str]:
        return [f"{f}/{g}/{p}" for f in FAULTS for g in GROUPS for p in self.paths]


def load_cases(corpus: Path | None = None) -> list[Case]:
    cases = []
    for d in sorted((corpus or CORPUS).iterdir()):
        entry = d / "handler.py"
        if not entry.is_file():
            continue
        switch, vllm, intended = None, "0.34", []
        for line in entry.read_text().splitlines():
            if not line.startswith("#"):
                break
            m = _HEADER_KEY.match(line)
            if m and m.group(1).lower() == "switch":
                switch = m.group(2)
            elif m:
                vllm = m.group(2)
            else:
                intended.append(line.lstrip("#").strip())
        if vllm not in ("0.34", "0.26"):
            raise ValueError(f"{entry}: '# vllm: {vllm}' is not 0.34 or 0.26")
        cases.append(Case(d.name, d, switch, vllm, " ".join(intended).strip()))
    return cases


# -- inside the vLLM process ---------------------------------------------------


def _load_handler_class(case: Case):
    """Import ``handler.py`` of ``case`` with its directory first on sys.path,
    then forget every module imported from that directory (helper modules of
    different handlers share names)."""
    import importlib

    sys.path.insert(0, str(case.path))
    try:
        module = importlib.import_module("handler")
        return module.FaultHandler
    finally:
        sys.path.remove(str(case.path))
        for name, mod in list(sys.modules.items()):
            file = getattr(mod, "__file__", None) or ""
            if file.startswith(str(case.path) + os.sep):
                del sys.modules[name]


def run_case(case: Case) -> dict[str, list[str]]:
    """{scenario: sorted FTR codes} for one handler (vLLM already set up).  A
    handler that cannot be imported, or raises, gets ``"import-error:<type>"``
    or ``"raised:<type>"`` among its codes (the corpus has none; a broken
    automatic fix may)."""
    from ftlint.runtime import observe_fault_handling
    from ftlint.runtime import vllm_cpu as h

    try:
        cls = _load_handler_class(case)
    except Exception as exc:  # noqa: BLE001 - any failure to import becomes the case's "import-error:<type>" code
        return {s: [f"import-error:{type(exc).__name__}"] for s in case.scenarios()}
    asynchronous = case.vllm == "0.26"
    out: dict[str, list[str]] = {}
    for scenario in case.scenarios():
        fault, groups, path = scenario.split("/")
        sched = h.build_scheduler(groups=GROUPS[groups], async_scheduling=asynchronous)
        prompts = {rid: h.prompt_tokens(*spec) for rid, spec in PROMPTS.items()}
        (h.prefill_fault if fault == "prefill" else h.decode_fault)(sched, prompts)
        engine = h.StandInEngine(sched)
        handler = cls(engine)
        if case.switch:
            setattr(handler, case.switch, path == "resume")
        raised = []
        try:
            with observe_fault_handling(sched) as report:
                handler.on_fault(RuntimeError("DP collective failed"))
        except Exception as exc:  # noqa: BLE001 - whatever the handler raises becomes a "raised:<type>" code
            raised = [f"raised:{type(exc).__name__}"]
            report = getattr(exc, "ftlint_report", None)
            if report is None:
                out[scenario] = raised
                continue
        if report.cannot_verify:
            raise RuntimeError(f"{case.name} {scenario}: cannot verify: {report.cannot_verify}")
        out[scenario] = sorted({v.code for v in report.violations}) + raised
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vllm", choices=("0.34", "0.26"), default="0.34")
    ap.add_argument(
        "--corpus", type=Path, action="append", help="directory of handler directories (repeatable; default: corpus/)"
    )
    ap.add_argument(
        "--write-labels",
        action="store_true",
        help=f"run every handler on both versions (one process each) and write {LABELS.name}",
    )
    args = ap.parse_args(argv)
    if args.write_labels:
        write_labels(runtime_labels()[str(CORPUS)])
        print(f"wrote {LABELS}")
        return 0
    corpora = args.corpus or [CORPUS]
    # vLLM 0.26 logs to stdout at import: keep stdout for the JSON only.
    out, sys.stdout = sys.stdout, sys.stderr
    if args.vllm == "0.26":
        import vllm026  # beside this file, which is on sys.path

        vllm026.prepare_process()
    import logging

    logging.disable(logging.WARNING)
    from ftlint.runtime import vllm_cpu

    vllm_cpu.setup()
    import vllm

    if not vllm.__version__.startswith(args.vllm + "."):
        print(
            f"oracle.py: --vllm {args.vllm} but imported vllm {vllm.__version__} from {vllm.__file__}", file=sys.stderr
        )
        return 2
    result = {
        str(corpus): {c.name: run_case(c) for c in load_cases(corpus) if c.vllm == args.vllm} for corpus in corpora
    }
    out.write(json.dumps(result, indent=1, sort_keys=True) + "\n")
    out.flush()
    return 0


# -- from any process -------------------------------------------------------------


def run_oracle(
    version: str, corpora: list[Path], python: str | None = None
) -> dict[str, dict[str, dict[str, list[str]]]]:
    """Run every handler of vLLM ``version`` in ``corpora`` in one fresh
    process: ``{corpus: {name: {scenario: codes}}}``."""
    env = {
        **os.environ,
        "VLLM_TARGET_DEVICE": "cpu",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "PYTHONWARNINGS": "ignore",
    }
    if version == "0.26":
        from tests.differential import vllm026

        src = vllm026.python_sources(python or sys.executable)
        env["PYTHONPATH"] = os.pathsep.join([str(src), str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    proc = subprocess.run(
        [
            python or sys.executable,
            str(HERE / "oracle.py"),
            "--vllm",
            version,
            *(arg for c in corpora for arg in ("--corpus", str(c))),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"runtime oracle for vLLM {version} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout)


def verdict(scenarios: dict[str, list[str]]) -> list[str]:
    """The handler's runtime verdict: every code seen in any scenario."""
    return sorted({c for codes in scenarios.values() for c in codes})


def runtime_labels(corpora: list[Path] | None = None, python: str | None = None) -> dict[str, dict[str, dict]]:
    """``{corpus: {name: {"vllm", "verdict", "scenarios"}}}`` for every handler of
    ``corpora`` (default: the corpus), fresh: one process per vLLM version."""
    corpora = corpora or [CORPUS]
    cases = {str(c): load_cases(c) for c in corpora}
    runs: dict[str, dict[str, dict[str, list[str]]]] = {str(c): {} for c in corpora}
    versions = [v for v in ("0.34", "0.26") if any(case.vllm == v for cs in cases.values() for case in cs)]
    # The two processes are independent: run them side by side.
    with ThreadPoolExecutor(max_workers=len(versions) or 1) as pool:
        for done in pool.map(lambda v: run_oracle(v, corpora, python), versions):
            for corpus, result in done.items():
                runs[corpus].update(result)
    return {
        corpus: {
            c.name: {"vllm": c.vllm, "verdict": verdict(runs[corpus][c.name]), "scenarios": runs[corpus][c.name]}
            for c in cs
        }
        for corpus, cs in cases.items()
    }


def read_labels() -> dict[str, dict]:
    """The committed runtime labels (``labels.json``)."""
    return json.loads(LABELS.read_text())


def write_labels(labels: dict[str, dict]) -> None:
    LABELS.write_text(json.dumps(labels, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
