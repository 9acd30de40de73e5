"""Mixin: prefix-cache hygiene after a failed step."""


class UnconfirmedTailMixin:
    """Needs ``self.engine``."""

    def _tail_block_ids(self, request):
        coord = self.engine.scheduler.kv_cache_manager.coordinator
        boundary = request.num_computed_tokens - request.num_in_flight_tokens
        result = set()
        for mgr in coord.single_type_managers:
            for block in mgr.req_to_blocks.get(request.request_id, ())[boundary // mgr.block_size:]:
                if not block.is_null:
                    result.add(block.block_id)
        return result

    def evict_unconfirmed(self, requests):
        kv = self.engine.scheduler.kv_cache_manager
        ids = set()
        for request in requests:
            ids |= self._tail_block_ids(request)
        kv.evict_blocks(ids)
