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
# Scheduler.reset_prefix_cache's flag (keyword, positional index) that preempts every
# running request (with drop_stale_output=True) before the whole-cache reset.
RESET_RUNNING_REQUESTS = ("reset_running_requests", 0)

# Stale-output bookkeeping (two API generations).
ASYNC_DISCARD_FIELD = "async_tokens_to_discard"  # vLLM <= 0.26
DROP_STALE_OUTPUT = "drop_stale_output"  # vLLM >= 0.27
NUM_COMPUTED_TOKENS = "num_computed_tokens"  # Request: tokens computed, the failed step's included
NUM_IN_FLIGHT_TOKENS = "num_in_flight_tokens"  # Request: tokens the failed step was writing
NUM_STALE_OUTPUT_TOKENS = "num_stale_output_tokens"  # Request (vLLM >= 0.27)
EVICT_BLOCKS = "evict_blocks"  # KVCacheManager.evict_blocks(ids)
#: vllm/v1/serial_utils.py: `run_method(obj, method, args, kwargs)` calls `obj.method(*args, **kwargs)`
#: (a method name) or `method(obj, *args, **kwargs)` (a callable); engine-core RPCs dispatch through it
RUN_METHOD = "run_method"
COUNTER_FIELDS = (NUM_IN_FLIGHT_TOKENS, NUM_STALE_OUTPUT_TOKENS)

# Where a request's blocks are listed (collecting from these is "collecting block ids").
REQ_TO_BLOCKS = "req_to_blocks"
# The unconfirmed-tail boundary is num_computed_tokens - num_in_flight_tokens (the runtime
# verifier's snapshot and checks read the two fields by these names).
TAIL_BOUNDARY = (NUM_COMPUTED_TOKENS, NUM_IN_FLIGHT_TOKENS)
BLOCK_LIST_CALLS = frozenset({"get_blocks", "get_block_ids"})
BLOCK_LIST_ATTRS = frozenset({"block_ids"})
#: KVCacheManager.get_block_ids_for_computed_tokens(request_id, n): per group, the block ids
#: holding the request's tokens [0, n)
BLOCK_IDS_FOR_TOKENS = "get_block_ids_for_computed_tokens"
BLOCK_ID_ATTR = "block_id"  # KVCacheBlock.block_id
#: vllm/utils/math_utils.py `cdiv(a, b)`: division rounding up (a block count from a token count)
CEIL_DIVIDE = "cdiv"


# -- Effect tables per stale-output API generation (ftlint/analysis reads these) -------------


class Generation:
    """What a resumed request's bookkeeping looks like in one vLLM API generation."""

    def __init__(
        self,
        name: str,
        counters: tuple[str, ...],
        preempt_copies_in_flight: bool,
        fields: frozenset[str],
        *,
        in_flight: bool = True,
    ) -> None:
        self.name = name
        #: whether `Request` has num_in_flight_tokens (messages name only fields that exist)
        self.in_flight = in_flight
        #: counters a request preempted for resume must have at 0 afterwards
        self.counters = counters
        #: `_preempt_request` sets num_stale_output_tokens = num_in_flight_tokens (and
        #: num_output_placeholders = 0): zeroing num_in_flight_tokens before it leaves both at 0
        self.preempt_copies_in_flight = preempt_copies_in_flight
        #: the `Request` fields that tell this generation apart
        self.fields = fields

    def __repr__(self) -> str:
        return f"<vLLM API {self.name}>"


# vLLM >= 0.27: num_stale_output_tokens / drop_stale_output.
CURRENT = Generation(
    "0.27",
    COUNTER_FIELDS,
    preempt_copies_in_flight=True,
    fields=frozenset({NUM_STALE_OUTPUT_TOKENS}),
)
# vLLM <= 0.26 and forks built on it: async_tokens_to_discard / num_output_placeholders;
# the preempt leaves num_in_flight_tokens and num_output_placeholders set.
LEGACY = Generation(
    "0.26",
    (NUM_IN_FLIGHT_TOKENS, "num_output_placeholders"),
    preempt_copies_in_flight=False,
    fields=frozenset({ASYNC_DISCARD_FIELD}),
)
# vLLM 0.25 and forks built on it (vllm/v1/request.py of 0.25.1, the fangyuchu/vllm fork's
# busy-loop wrapper era): num_output_placeholders but no num_in_flight_tokens, so no in-flight
# counter a resumed request must have reset; nothing for FT008 to ask.
EARLY = Generation(
    "0.25",
    (),
    preempt_copies_in_flight=False,
    fields=frozenset({ASYNC_DISCARD_FIELD, "num_output_placeholders"}),
    in_flight=False,
)
GENERATIONS = {"0.27": CURRENT, "0.26": LEGACY, "0.25": EARLY}
# Every counter field of either generation (a reset of any is recognised; which ones
# are required depends on the generation).
ALL_COUNTER_FIELDS = frozenset(CURRENT.counters + LEGACY.counters)

# Primitive effects, by called name (calls through aliases, partials and bound methods
# kept in a dict or attribute are classified by the name of the method they stand for).
EFFECTS = {
    "evict_blocks": "evict",
    "_maybe_evict_cached_block": "evict",
    "record_blocks_for_zeroing": "zero",  # zeroes KV, keeps the hashes: not an eviction
    "get_zeroing_block_ids_in_range": "zero-ids",
    "_preempt_request": "preempt",
    "preempt_request": "preempt",
    "finish_requests": "finish",
    "_free_request": "free",
    "_free_request_blocks": "free",
    "reset_prefix_cache": "reset-prefix-cache",
}
# Attributes that hold the whole block pool (evicting from these is broad).
WHOLE_POOL_ATTRS = frozenset(
    {"blocks", "cached_block_hash_to_block", "cached_block_hashes_by_block", "free_block_queue"}
)


# -- What the runtime verifier reads (ftlint/runtime/snapshot.py and checks.py) ---------------
# Attributes of vLLM objects, by owner.  The verifier's fast paths read some of these as
# plain attributes; tests/runtime/test_runtime_vocabulary.py keeps them equal to these names.
SCHEDULER_RUNNING = "running"  # Scheduler.running: the running requests
SCHEDULER_WAITING = "waiting"  # Scheduler.waiting: a request appended there by hand is requeued
SCHEDULER_REQUESTS = "requests"  # Scheduler.requests: request id -> Request
SCHEDULER_KV_CACHE_MANAGER = KV_MANAGER_FREE[0]  # Scheduler.kv_cache_manager
NEEDS_KV_CACHE_ZEROING = "needs_kv_cache_zeroing"  # Scheduler / KVCacheConfig flag
KV_CACHE_CONFIG = "kv_cache_config"  # KVCacheManager.kv_cache_config
KV_COORDINATOR = "coordinator"  # KVCacheManager.coordinator
SINGLE_TYPE_MANAGERS = "single_type_managers"  # KVCacheCoordinator.single_type_managers
BLOCK_POOL = "block_pool"  # KVCacheManager.block_pool (or the coordinator's)
CACHED_BLOCK_MAP = "cached_block_hash_to_block"  # BlockPool: hash key -> cached block(s)
SECONDARY_HASHES = "cached_block_hashes_by_block"  # BlockPool: block id -> its other hash keys
CACHE_MAP_CONTAIN = "contain"  # BlockHashToBlockMap.contain(key, block_id)
KV_CACHE_GROUP_ID = "kv_cache_group_id"  # SingleTypeKVCacheManager
MANAGER_BLOCK_SIZE = "block_size"  # SingleTypeKVCacheManager.block_size
NEW_BLOCK_IDS = "new_block_ids"  # SingleTypeKVCacheManager: blocks recorded for zeroing
RECORDS_NEW_BLOCK_IDS = ("records_new_block_ids", "_record_new_block_ids")  # whether it records them
REQUEST_ID = "request_id"  # Request.request_id
REQUEST_STATUS = "status"  # Request.status (a RequestStatus; its .name is read)
NUM_OUTPUT_PLACEHOLDERS = "num_output_placeholders"  # Request
BLOCK_HASH_ATTR = "block_hash"  # KVCacheBlock.block_hash
BLOCK_IS_NULL = "is_null"  # KVCacheBlock.is_null
BLOCK_REF_CNT = "ref_cnt"  # KVCacheBlock.ref_cnt
# RequestStatus names of a request that sits in a waiting queue.
WAITING_STATUSES = frozenset(
    {
        "WAITING",
        "PREEMPTED",
        "WAITING_FOR_FSM",
        "WAITING_FOR_REMOTE_KVS",
        "WAITING_FOR_STREAMING_REQ",
        "WAITING_FOR_STRUCTURED_OUTPUT_GRAMMAR",
    }
)
# Other Request fields the runtime's state fingerprint compares (ftlint/runtime/vllm_cpu.py).
REQUEST_BOOKKEEPING_FIELDS = ("num_preemptions", "spec_token_ids", "num_tokens", "is_prefill_chunk")

# vLLM's own fault handler, which the pytest plugin wraps ("module:Class.method").
SENTINEL_HANDLER = "vllm.v1.fault_tolerance.engine_core_sentinel:EngineCoreSentinel.on_fault"
# Where a fault handler's object keeps the scheduler: itself, .scheduler, .engine.scheduler.
SCHEDULER_PATHS = ((), ("scheduler",), ("engine", "scheduler"))
# Scheduler methods an engine's busy loop calls: one called from another thread during a
# verified fault-handler call means the engine was not paused (the verifier reports it).
SCHEDULER_MUTATORS = ("add_request", "schedule", "update_from_output", "finish_requests")


# -- What code must name to change what the rules judge ------------------------------------------
#: Every name through which code reaches the state the analysis models: the primitives, the
#: `Request` fields it reads and writes, the prefix-cache reset, the waiting queue. Code that
#: names none of these (in a name, an attribute or a string), nor calls `super()` into vLLM's
#: own methods, has no effect the analysis follows: a step guard whose branches reach none is
#: no fault path (ftlint/analysis/reach.py, `StateScreen`).
STATE_NAMES = frozenset(
    {
        *EFFECTS,
        *EVICT_PRIMITIVES,
        *PREEMPT_PRIMITIVES,
        *FREE_PRIMITIVES,
        KV_MANAGER_FREE[0],
        RESET_PREFIX_CACHE,
        ASYNC_DISCARD_FIELD,
        DROP_STALE_OUTPUT,
        NUM_COMPUTED_TOKENS,
        NUM_OUTPUT_PLACEHOLDERS,
        *ALL_COUNTER_FIELDS,
        SCHEDULER_WAITING,
    }
)
