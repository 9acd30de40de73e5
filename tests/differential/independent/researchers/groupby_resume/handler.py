# Intended: correct. Builds (group, block id) records for each running request's unconfirmed tail, groups them per KV-cache group with itertools.groupby, evicts each group's ids, then zeroes num_in_flight_tokens before preempting every request.
# Idioms: list of record dicts, sorted + itertools.groupby, operator.itemgetter, per-request try/except, logging progress
import itertools
import logging
import operator
import time

log = logging.getLogger("ft.resume")


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.history = []  # one entry per fault, for post-mortem

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        groups = kv.coordinator.single_type_managers

        records = []
        for req in sched.running:
            try:
                boundary = req.num_computed_tokens - req.num_in_flight_tokens
                for g, mgr in enumerate(groups):
                    blist = mgr.req_to_blocks.get(req.request_id, [])
                    for pos in range(boundary // mgr.block_size, len(blist)):
                        blk = blist[pos]
                        if blk.is_null:
                            continue
                        records.append({"group": g, "block": blk.block_id, "req": req.request_id, "pos": pos})
            except Exception:  # keep going: one bad request must not stop recovery
                log.exception("could not collect tail of %s", req.request_id)
                raise

        records.sort(key=operator.itemgetter("group"))
        for g, rows in itertools.groupby(records, key=operator.itemgetter("group")):
            ids = {row["block"] for row in rows}
            log.info("group %d: evicting %d tail blocks", g, len(ids))
            kv.evict_blocks(ids)

        now = time.monotonic()
        victims = list(sched.running)
        sched.running = []
        for req in victims:
            # clear first: _preempt_request copies in-flight into the stale counter
            req.num_in_flight_tokens = 0
            sched._preempt_request(req, now)
            assert req.num_stale_output_tokens == 0
        self.history.append({"exc": repr(exc), "n": len(victims), "evicted": len(records)})
        print(f"resume: {len(victims)} requests back to waiting, {len(records)} tail blocks evicted")
