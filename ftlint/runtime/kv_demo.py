"""KV-content mode: the verifier's FTR01 claim checked on KV memory.

vLLM's real scheduler (CPU) assigns the blocks; :mod:`ftlint.runtime.kv_model`
computes a small attention model's K/V into those pages and reads them back
through the block table.  A step fails (its forward does not run, or runs for
only part of the layers), a fault handler runs under the verifier, then a new
request with the same prompt prefix is served through the prefix cache.  Its
logits are compared with a run where the same step did not fail (same
handler, same weights, same initial page contents).  The verifier's FTR01
("a later request would reuse KV that was never computed") and "outputs
differ" must agree in every scenario.

``ftlint verify --demo --kv`` prints the table (:func:`run_kv_demo`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

PROMPT_LEN = 47  # two full blocks of 16 tokens, plus 15
TOLERANCE = 1e-5  # logits this close count as identical


@dataclass(frozen=True)
class KVResult:
    fault: str  # "prefill" | "decode"
    cut: str  # how the failed step's forward was cut short
    handler: str
    expect_differ: bool  # what the handler is known to do
    ftr01: bool  # the verifier's verdict
    verified: bool
    prefix_hit: int  # tokens the new request took from the prefix cache
    max_diff: float  # max |logit - logit without the fault|, last position

    @property
    def differ(self) -> bool:
        return not self.max_diff <= TOLERANCE  # NaN differs

    @property
    def agree(self) -> bool:
        return self.ftr01 == self.differ


class KVEngine:
    """Drives a real vLLM scheduler and runs the model on what it scheduled."""

    def __init__(self, h: Any, scheduler: Any, model: Any, cache: Any) -> None:
        self.h, self.s, self.model, self.cache = h, scheduler, model, cache

    def forward(self, out: Any, *, num_layers: int | None = None) -> dict[str, Any]:
        """The model runner's part of a step: every scheduled request's tokens,
        at the slots of the blocks vLLM's KVCacheManager holds for it."""
        starts = {r.req_id: r.num_computed_tokens for r in out.scheduled_new_reqs}
        cached = out.scheduled_cached_reqs
        starts.update(zip(cached.req_ids, cached.num_computed_tokens, strict=True))
        logits: dict[str, Any] = {}
        if num_layers == 0:
            return logits  # the forward never ran
        for rid, start in starts.items():
            n = out.num_scheduled_tokens[rid]
            tokens = self.s.requests[rid].all_token_ids[start : start + n]
            table = self.s.kv_cache_manager.get_block_ids(rid)[0]
            logits[rid] = self.model.forward(self.cache, tokens, start, table, num_layers=num_layers)
        return logits

    def step(self) -> tuple[Any, dict[str, Any]]:
        """A step that succeeds: schedule, forward, deliver the output."""
        out = self.s.schedule()
        logits = self.forward(out)
        self.h.complete_step(self.s, out)
        return out, logits

    def add(self, rid: str, prompt: list[int]) -> Any:
        req = self.h.make_request(rid, prompt, block_size=self.s.block_size)
        self.s.add_request(req)
        return req


# -- the failed step ---------------------------------------------------------

#: how a failed step's forward is cut short: layers it ran (None: all, no fault)
CUTS: dict[str, int] = {"no forward": 0, "1 of 2 layers": 1}


def _fail_or_finish(eng: KVEngine, out: Any, cut: int | None) -> None:
    if cut is None:  # the run without the fault
        eng.forward(out)
        eng.h.complete_step(eng.s, out)
    else:  # the output frame is lost
        eng.forward(out, num_layers=cut)


def _prefill(eng: KVEngine, prompt: list[int], cut: int | None) -> list[int]:
    eng.add("req-0", prompt)
    _fail_or_finish(eng, eng.s.schedule(), cut)
    return prompt


def _decode(eng: KVEngine, prompt: list[int], cut: int | None) -> list[int]:
    req = eng.add("req-0", prompt)
    bs = eng.s.block_size
    for _ in range(64):
        out = eng.s.schedule()
        if req.num_computed_tokens > req.num_prompt_tokens and req.num_computed_tokens % bs == 0:
            probe = [*req.all_token_ids[: req.num_computed_tokens], 5]
            _fail_or_finish(eng, out, cut)  # this step fills a block
            return probe
        eng.forward(out)
        eng.h.complete_step(eng.s, out)
    raise RuntimeError("no decode step filled a block")


FAULTS: dict[str, Callable[[KVEngine, list[int], int | None], list[int]]] = {
    "prefill": _prefill,
    "decode": _decode,
}


# -- the handlers ------------------------------------------------------------


def resume_keeping_tail(scheduler: Any) -> None:
    """A resume that preempts every running request (counters reset) but
    leaves the failed step's blocks in the prefix cache: wrong."""
    while scheduler.running:
        request = scheduler.running.pop()
        scheduler._preempt_request(request, time.monotonic())
        request.num_in_flight_tokens = 0
        request.num_stale_output_tokens = 0
        request.drop_stale_output = False


def handlers(h: Any) -> list[tuple[str, Callable[[Any], Any], bool]]:
    """(name, handler, outputs expected to differ)."""
    from .handlers import abort_all_evicting_tail, resume_all_evicting_tail

    def upstream(s: Any) -> None:
        h.make_sentinel(s).on_fault(RuntimeError("collective failed"))

    return [
        ("vLLM on_fault (abort)", upstream, True),
        ("abort, tail evicted", abort_all_evicting_tail, False),
        ("resume, tail kept", resume_keeping_tail, True),
        ("resume, tail evicted", resume_all_evicting_tail, False),
    ]


def _serve(
    h: Any, model: Any, fault: str, cut: int | None, handler: Callable[[Any], Any], seed: int
) -> tuple[Any, int, Any]:
    """One run: the scenario, the handler under the verifier, then a resumed
    request's step (if any) and a new request with the same prompt prefix.
    Returns (verifier report, the new request's prefix hit, its last logits)."""
    from .verify import observe_fault_handling

    sched = h.build_scheduler()
    eng = KVEngine(h, sched, model, model.new_cache(sched.kv_cache_manager.block_pool.num_gpu_blocks, seed=seed))
    probe = FAULTS[fault](eng, h.prompt_tokens(1, PROMPT_LEN), cut)
    with observe_fault_handling(sched) as report:
        handler(sched)
    if sched.running or sched.waiting:  # a resumed request runs again first
        eng.step()
    eng.add("probe", probe)
    out, logits = eng.step()
    req = sched.requests["probe"]
    hit = req.num_computed_tokens - out.num_scheduled_tokens["probe"]
    if req.num_computed_tokens > len(probe):  # completed: a decode token counted
        hit -= 1
    return report, hit, logits["probe"][-1]


def run_kv_scenarios(device: str | None = None, *, seed: int = 0) -> list[KVResult]:
    """Every (fault, cut, handler): the verifier's FTR01 and the logit difference."""
    from . import vllm_cpu as h
    from .kv_model import TinyAttentionModel

    h.setup()
    model = TinyAttentionModel(device=device, seed=seed)
    results = []
    for fault in FAULTS:
        for name, handler, expect in handlers(h):
            _, _, reference = _serve(h, model, fault, None, handler, seed + 1)
            for cut_name, cut in CUTS.items():
                report, hit, logits = _serve(h, model, fault, cut, handler, seed + 1)
                ftr01 = any(v.code == "FTR01" for v in report.failing())
                diff = float((logits - reference).abs().max().item())
                results.append(KVResult(fault, cut_name, name, expect, ftr01, report.verified, hit, diff))
    return results


def format_table(results: list[KVResult], device: str) -> str:
    head = ("failed step", "forward", "handler", "FTR01", "prefix hit", "max |dlogit|", "outputs", "agree")
    rows = [
        (
            r.fault,
            r.cut,
            r.handler,
            "yes" if r.ftr01 else "no" if r.verified else "cannot verify",
            f"{r.prefix_hit} tokens",
            f"{r.max_diff:.3g}",
            "differ" if r.differ else "identical",
            "yes" if r.agree else "NO",
        )
        for r in results
    ]
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]
    lines = [f"KV-content mode on {device}: a new request with the same prompt, logits against a run without the fault"]
    lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in [head]]
    lines.append("  " + "  ".join("-" * w for w in widths))
    lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    agree = sum(r.agree for r in results)
    lines.append(f"FTR01 and the model agree in {agree} of {len(results)} scenarios (identical: within {TOLERANCE:g}).")
    return "\n".join(lines)


def run_kv_demo(out: Any = None, device: str | None = None) -> int:
    """Print the table; 0 when the verifier and the model agree everywhere."""
    from .kv_model import default_device

    out = sys.stdout if out is None else out
    device = device or default_device()
    results = run_kv_scenarios(device)
    print(format_table(results, device), file=out)
    return 0 if all(r.agree for r in results) else 1
