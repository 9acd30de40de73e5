# Intended: correct. A tracker records every running request's unconfirmed tail as columns, evicts those blocks in every KV-cache group, then aborts all requests.
# Idioms: tracker class holding state across calls, defaultdict(list) column frame, zip over parallel lists, f-string progress prints, helper module
import time

from vllm.v1.request import RequestStatus

from tail_columns import add_row, empty_frame, n_rows


class TailTracker:
    """Records (req_id, group, block ids) rows, then evicts them in one go."""

    def __init__(self, kv_manager):
        self.kv = kv_manager
        self.frame = empty_frame()

    def record(self, request):
        managers = self.kv.coordinator.single_type_managers
        # tokens [confirmed, computed) were scheduled but never confirmed
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        for gidx, mgr in enumerate(managers):
            first_dirty = confirmed // mgr.block_size
            blocks = mgr.req_to_blocks.get(request.request_id, [])
            tail = blocks[first_dirty:]
            ids = [b.block_id for b in tail if not b.is_null]
            add_row(self.frame, req_ids=request.request_id, groups=gidx, starts=first_dirty, ids=ids)

    def flush(self):
        total = 0
        to_evict = set()
        for rid, g, start, ids in zip(
            self.frame["req_ids"], self.frame["groups"], self.frame["starts"], self.frame["ids"]
        ):
            print(f"[tracker] {rid} group={g} first_dirty_block={start} n={len(ids)}")
            to_evict.update(ids)
            total += len(ids)
        if to_evict:
            self.kv.evict_blocks(to_evict)
        print(f"[tracker] evicted {len(to_evict)} blocks over {n_rows(self.frame)} rows ({total} listed)")
        self.frame = empty_frame()
        return to_evict


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.started = time.time()

    def on_fault(self, exc):
        sched = self.engine.scheduler
        print(f"fault after {time.time() - self.started:.1f}s: {exc!r}")
        tracker = TailTracker(sched.kv_cache_manager)
        for req in list(sched.running):
            tracker.record(req)
        tracker.flush()
        # now the blocks can go, with their dirty hashes already dropped
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        print(f"aborted {len(aborted)} requests")
