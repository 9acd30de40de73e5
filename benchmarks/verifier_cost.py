"""What the runtime verifier costs around a fault handler, at 1,000 running requests.

Not a test: prints figures.  Run with the project's venv:

    V=$(bash scripts/bootstrap-env); $V/bin/python benchmarks/verifier_cost.py

For each fault kind, two identical real vLLM schedulers (CPU) are driven into
the same failed step; the handler runs alone on one and inside
``observe_fault_handling`` on the other.  Reported: the handler's time, the
verifier's extra time (snapshot + checks), and their ratio (median of runs), in wall
time and in this thread's CPU time (``time.thread_time``): on a shared, busy host the
wall figures of a few milliseconds are mostly waits for a CPU, the CPU figures are not.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")

from ftlint.runtime import handlers, observe_fault_handling
from ftlint.runtime import vllm_cpu as h


def build(n: int, fault: str, prompt_len: int):
    sched = h.build_scheduler(
        num_blocks=n * (prompt_len // 16 + 3) + 16,
        max_num_seqs=n,
        max_num_batched_tokens=n * prompt_len + n,
        max_model_len=2048,
    )
    prompts = {f"r{i}": h.prompt_tokens(i, prompt_len) for i in range(n)}
    (h.prefill_fault if fault == "prefill" else h.decode_fault)(sched, prompts)
    assert len(sched.running) == n
    return sched


HANDLERS = {
    "abort (tail eviction)": handlers.abort_all_evicting_tail,
    "resume (tail eviction)": handlers.resume_all_evicting_tail,
    "vLLM on_fault": lambda s: h.make_sentinel(s).on_fault(RuntimeError("bench")),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=1000, help="running requests")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--prompt-len", type=int, default=47)
    args = parser.parse_args()
    h.setup()
    print(f"{args.n} running requests, prompt {args.prompt_len} tokens, block size 16, median of {args.runs} runs")
    print(
        f"{'fault':8} {'handler':24} {'handler ms':>10} {'verifier ms':>11} "
        f"{'ratio':>6} {'CPU: handler':>12} {'verifier':>8} {'ratio':>6} {'dirty':>6} {'clean':>6}"
    )
    for fault in ("prefill", "decode"):
        for name, handler in HANDLERS.items():
            plain_t, extra_t, plain_c, extra_c = [], [], [], []
            for _ in range(args.runs):
                plain, watched = build(args.n, fault, args.prompt_len), build(args.n, fault, args.prompt_len)
                t0, c0 = time.perf_counter(), time.thread_time()
                handler(plain)
                t1, c1 = time.perf_counter(), time.thread_time()
                with observe_fault_handling(watched) as report:
                    handler(watched)
                t2, c2 = time.perf_counter(), time.thread_time()
                plain_t.append(t1 - t0)
                extra_t.append((t2 - t1) - (t1 - t0))
                plain_c.append(c1 - c0)
                extra_c.append((c2 - c1) - (c1 - c0))
            hp, ve = statistics.median(plain_t), statistics.median(extra_t)
            hc, vc = statistics.median(plain_c), statistics.median(extra_c)
            print(
                f"{fault:8} {name:24} {hp * 1e3:10.2f} {ve * 1e3:11.2f} "
                f"{ve / hp:6.2f} {hc * 1e3:12.2f} {vc * 1e3:8.2f} {vc / hc:6.2f} "
                f"{report.dirty_total:6} {report.clean_total:6}"
            )


if __name__ == "__main__":
    main()
