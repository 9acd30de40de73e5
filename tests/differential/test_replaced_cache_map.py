"""The runtime checks read the prefix cache the pool holds after the handler, not the one it
held before: vLLM 0.26.0's ``BlockPool.reset_prefix_cache`` binds a new
``BlockHashToBlockMap`` (0.34 clears the old one in place), so a view taken on entry still
held every hash. On 0.26 a handler that frees every request and then resets the prefix cache
was judged as if the reset had done nothing: no FTR02 for the clean blocks it drops, and an
FTR01 for dirty tails it did drop."""

from __future__ import annotations

import textwrap

from tests.differential import oracle

_ABORT_ALL_THEN_RESET = """\
# vllm: 0.26
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        ids = [req.request_id for req in sched.running]
        {evict}
        aborted = sched.finish_requests(ids, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        sched.reset_prefix_cache()

    def _evict_tails(self, kv, reqs):
        ids = set()
        for req in reqs:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                tail = mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]
                ids |= {{b.block_id for b in tail if not b.is_null}}
        kv.evict_blocks(ids)
"""


def _write(root, name: str, evict: str) -> None:
    (root / name).mkdir()
    (root / name / "handler.py").write_text(textwrap.dedent(_ABORT_ALL_THEN_RESET.format(evict=evict)))


def test_a_prefix_cache_reset_on_vllm_026_is_seen(tmp_path):
    _write(tmp_path, "evicts_tails", "self._evict_tails(sched.kv_cache_manager, list(sched.running))")
    _write(tmp_path, "evicts_nothing", "pass")
    runs = oracle.run_oracle("0.26", [tmp_path])[str(tmp_path)]
    for name in ("evicts_tails", "evicts_nothing"):
        scenarios = runs[name]
        # Decode: the requests had confirmed (clean, cached) blocks; the reset dropped them.
        assert all("FTR02" in codes for s, codes in scenarios.items() if s.startswith("decode")), (name, scenarios)
        # The reset dropped the dirty tails too: nothing dirty is left cached.
        assert all("FTR01" not in codes for codes in scenarios.values()), (name, scenarios)
