# Intended: buggy: the first dirty block index is computed by rounding the confirmed boundary up (ceil division) instead of down, so when the boundary falls inside a block (a failed decode step) the block holding the boundary, which the lost step wrote into, is not evicted.
# Idioms: topic constants in a helper module, a broker with subscribe returning an unsubscribe callable, messages as dicts passed from topic to topic (found -> evict -> abort).
"""Abort-on-fault handler on a small broker.

Topic flow: ``kv/tail/found`` per request and group -> ``kv/tail/evict`` once
with every id -> ``requests/abort``.
"""

from vllm.v1.request import RequestStatus

import tail_topics as topics


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.broker = topics.Broker()
        self._batch = set()
        self.broker.subscribe(topics.TAIL_FOUND, self._accumulate)
        self.broker.subscribe(topics.TAIL_EVICT, self._evict)
        self.broker.subscribe(topics.REQUESTS_ABORT, self._abort)

    def _accumulate(self, msg):
        self._batch.update(msg["block_ids"])

    def _evict(self, msg):
        if self._batch:
            self.engine.scheduler.kv_cache_manager.evict_blocks(set(self._batch))
        self._batch.clear()

    def _abort(self, msg):
        sched = self.engine.scheduler
        aborted = sched.finish_requests(msg["request_ids"], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        running = list(sched.running)
        for req in running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for group, mgr in enumerate(sched.kv_cache_manager.coordinator.single_type_managers):
                blocks = mgr.req_to_blocks.get(req.request_id) or []
                first_unconfirmed_block = -(-confirmed // mgr.block_size)
                self.broker.publish(
                    topics.TAIL_FOUND,
                    {
                        "request_id": req.request_id,
                        "group": group,
                        "block_ids": [b.block_id for b in blocks[first_unconfirmed_block:] if not b.is_null],
                    },
                )
        self.broker.publish(topics.TAIL_EVICT, {})
        self.broker.publish(topics.REQUESTS_ABORT, {"request_ids": [r.request_id for r in running]})
