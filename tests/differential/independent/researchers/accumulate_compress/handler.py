# Intended: correct. Computes each block's starting token with itertools.accumulate and keeps, via itertools.compress, the blocks that end after the confirmed boundary, in every KV-cache group, evicts them and aborts everything.
# Idioms: itertools.accumulate for block offsets, itertools.compress with a mask list, map with lambda, sum/max arithmetic on lists, asserts
import itertools

from vllm.v1.request import RequestStatus


def block_mask(n_blocks, block_size, confirmed):
    # start token of every block: 0, bs, 2bs, ...
    starts = list(itertools.accumulate([0] + [block_size] * max(n_blocks - 1, 0)))[:n_blocks]
    ends = list(map(lambda s: s + block_size, starts))
    # a block is dirty if any of its tokens is at or past the confirmed boundary
    mask = [e > confirmed for e in ends]
    assert len(mask) == n_blocks
    return mask


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        s = self.engine.scheduler
        kvm = s.kv_cache_manager
        dirty_ids = []
        for mgr in kvm.coordinator.single_type_managers:
            for req in s.running:
                blocks = mgr.req_to_blocks.get(req.request_id, [])
                confirmed = max(req.num_computed_tokens - req.num_in_flight_tokens, 0)
                mask = block_mask(len(blocks), mgr.block_size, confirmed)
                chosen = list(itertools.compress(blocks, mask))
                dirty_ids += [b.block_id for b in chosen if not b.is_null]
        print(f"evicting {len(set(dirty_ids))} blocks ({sum(1 for _ in dirty_ids)} rows)")
        kvm.evict_blocks(set(dirty_ids))
        out = s.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(out)
