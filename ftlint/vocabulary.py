"""vLLM's fault-path primitives, by name: the one table to edit when vLLM renames one.

A call is classified by the name of the called function or method; the receiver
is not resolved (``engine.scheduler`` has no static type), except for ``free``,
which is only a free on a ``kv_cache_manager``.
"""

from __future__ import annotations

# Drop the prefix-cache hash of blocks (or record them for zeroing): "eviction".
EVICT_PRIMITIVES = frozenset(
    {
        "evict_blocks",
        "record_blocks_for_zeroing",
        "get_zeroing_block_ids_in_range",  # removed in vLLM 0.32; fork code may still call it
        "_maybe_evict_cached_block",
    }
)
ZEROING_PRIMITIVES = frozenset({"record_blocks_for_zeroing", "get_zeroing_block_ids_in_range"})
# Eviction primitives whose arguments are the blocks (or block ids) to evict.
EVICT_BY_BLOCK = frozenset({"evict_blocks", "_maybe_evict_cached_block"})
# A zeroing primitive's first token (keyword, positional index): 0 means every block.
ZEROING_START_ARG = ("start_token", 1)

# Preempt a request back to waiting: frees its blocks with their hashes intact.
PREEMPT_PRIMITIVES = frozenset({"_preempt_request", "preempt_request"})

# Free (abort/finish) requests' blocks.
FREE_PRIMITIVES = frozenset({"finish_requests", "_free_request", "_free_request_blocks"})
KV_MANAGER_FREE = ("kv_cache_manager", "free")

RESET_PREFIX_CACHE = "reset_prefix_cache"

# Stale-output bookkeeping (two API generations).
ASYNC_DISCARD_FIELD = "async_tokens_to_discard"  # vLLM <= 0.26
DROP_STALE_OUTPUT = "drop_stale_output"  # vLLM >= 0.27
COUNTER_FIELDS = ("num_in_flight_tokens", "num_stale_output_tokens")

# Where a request's blocks are listed (collecting from these is "collecting block ids").
REQ_TO_BLOCKS = "req_to_blocks"
BLOCK_LIST_CALLS = frozenset({"get_blocks", "get_block_ids"})
BLOCK_LIST_ATTRS = frozenset({"block_ids"})
BLOCK_ID_ATTR = "block_id"  # KVCacheBlock.block_id

# The unconfirmed-tail boundary is num_computed_tokens - num_in_flight_tokens.
TAIL_BOUNDARY = ("num_computed_tokens", "num_in_flight_tokens")

DEFAULT_FAULT_HANDLERS = ("on_fault",)
