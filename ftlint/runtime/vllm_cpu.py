"""A CPU harness around vLLM's *real* scheduler: no GPU, no network, no model.

Builds a real ``vllm.v1.core.sched.scheduler.Scheduler`` (and, for the
sentinel, a stand-in engine holding it), drives steps that succeed or fail,
and measures prefix hits.  Shared by ``ftlint verify --demo``, the tests and
the benchmark.  Importing this module imports nothing; the first call of
:func:`setup` imports vLLM (about 10 s).
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import shutil
import tempfile
from collections.abc import Sequence
from typing import Any

from ftlint.core import vocabulary as V

_READY = False
_MODEL_DIR: str | None = None
_CONFIGS: dict[tuple[Any, ...], Any] = {}

_TINY_MODEL = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 64,
    "num_attention_heads": 1,
    "num_key_value_heads": 1,
    "num_hidden_layers": 1,
    "intermediate_size": 64,
    "vocab_size": 32000,
    "max_position_embeddings": 4096,
}


class VllmUnavailable(RuntimeError):
    """vLLM (CPU build) is not importable here."""


def setup() -> None:
    """Prepare the process for vLLM on CPU (idempotent)."""
    global _READY, _MODEL_DIR
    if _READY:
        return
    for key, value in (("VLLM_TARGET_DEVICE", "cpu"), ("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1")):
        os.environ.setdefault(key, value)
    try:
        import vllm
        from vllm.platforms import current_platform
        from vllm.utils.hashing import sha256
        from vllm.v1.core.kv_cache_utils import init_none_hash
    except ImportError as exc:
        import sys

        from .install_hint import install_hint

        raise VllmUnavailable(f"{exc}; {install_hint(sys.executable)}") from exc
    # The CPU platform's config hook demands triton-cpu; the scheduler does not.
    type(current_platform).check_and_update_config = classmethod(lambda cls, cfg: None)
    init_none_hash(sha256)
    # Import every vLLM module the harness uses now, once: some register torch
    # ops at import and cannot be imported twice in a process (which a
    # sys.modules snapshot/restore, e.g. pytester's, would otherwise cause).
    import vllm.v1.core.sched.async_scheduler
    import vllm.v1.core.sched.scheduler
    import vllm.v1.fault_tolerance.engine_core_sentinel
    import vllm.v1.kv_cache_interface
    import vllm.v1.outputs
    import vllm.v1.request
    import vllm.v1.structured_output  # noqa: F401

    _MODEL_DIR = tempfile.mkdtemp(prefix="ftlint-tiny-model-")
    atexit.register(shutil.rmtree, _MODEL_DIR, True)  # vLLM reads it only while building configs
    with open(os.path.join(_MODEL_DIR, "config.json"), "w") as f:
        json.dump(_TINY_MODEL, f)
    _READY = True


def _vllm_config(max_num_seqs: int, max_num_batched_tokens: int, max_model_len: int, async_scheduling: bool) -> Any:
    key = (max_num_seqs, max_num_batched_tokens, max_model_len, async_scheduling)
    if key not in _CONFIGS:
        from vllm.config import (
            CacheConfig,
            DeviceConfig,
            ModelConfig,
            SchedulerConfig,
            VllmConfig,
        )

        model = ModelConfig(model=_MODEL_DIR, skip_tokenizer_init=True, max_model_len=max_model_len)
        sched = SchedulerConfig(
            max_num_seqs=max_num_seqs,
            max_num_batched_tokens=max_num_batched_tokens,
            max_model_len=max_model_len,
            is_encoder_decoder=False,
            async_scheduling=async_scheduling,
        )
        cache = CacheConfig(block_size=16, enable_prefix_caching=True)
        _CONFIGS[key] = VllmConfig(
            model_config=model, cache_config=cache, scheduler_config=sched, device_config=DeviceConfig(device="cpu")
        )
    return _CONFIGS[key]


def build_scheduler(
    *,
    num_blocks: int = 256,
    block_size: int = 16,
    groups: Sequence[str] = ("full",),
    zeroing: bool = False,
    max_num_seqs: int = 64,
    max_num_batched_tokens: int = 8192,
    max_model_len: int = 2048,
    async_scheduling: bool = False,
    sliding_window: int = 32,
) -> Any:
    """A real vLLM Scheduler (AsyncScheduler with ``async_scheduling``).

    ``groups``: one KV-cache group per entry, ``"full"`` (full attention) or
    ``"sliding"`` (sliding-window attention, window ``sliding_window``).
    ``zeroing``: ``needs_kv_cache_zeroing`` (normally derived from the model).
    """
    setup()
    import torch
    from vllm.v1.core.sched.async_scheduler import AsyncScheduler
    from vllm.v1.core.sched.scheduler import Scheduler
    from vllm.v1.kv_cache_interface import (
        FullAttentionSpec,
        KVCacheConfig,
        KVCacheGroupSpec,
        SlidingWindowSpec,
    )
    from vllm.v1.structured_output import StructuredOutputManager

    vllm_config = _vllm_config(max_num_seqs, max_num_batched_tokens, max_model_len, async_scheduling)
    vllm_config.cache_config.num_gpu_blocks = num_blocks
    vllm_config.cache_config.block_size = block_size
    specs = []
    for i, kind in enumerate(groups):
        common = dict(block_size=block_size, num_kv_heads=1, head_size=1, dtype=torch.float32)
        if kind == "full":
            spec = FullAttentionSpec(**common)
        elif kind == "sliding":
            spec = SlidingWindowSpec(**common, sliding_window=sliding_window)
        else:
            raise ValueError(f"unknown KV-cache group kind {kind!r}")
        specs.append(KVCacheGroupSpec([f"layer{i}"], spec))
    kv_cache_config = KVCacheConfig(num_blocks=num_blocks, kv_cache_tensors=[], kv_cache_groups=specs)
    kv_cache_config.needs_kv_cache_zeroing = zeroing
    cls = AsyncScheduler if async_scheduling else Scheduler
    return cls(
        vllm_config=vllm_config,
        kv_cache_config=kv_cache_config,
        block_size=block_size,
        log_stats=True,
        structured_output_manager=StructuredOutputManager(vllm_config),
    )


def make_request(request_id: str, prompt: Sequence[int], *, max_tokens: int = 64, block_size: int = 16) -> Any:
    setup()
    from vllm.sampling_params import SamplingParams
    from vllm.utils.hashing import sha256
    from vllm.v1.core.kv_cache_utils import get_request_block_hasher
    from vllm.v1.request import Request

    return Request(
        request_id,
        prompt_token_ids=list(prompt),
        sampling_params=SamplingParams(max_tokens=max_tokens, ignore_eos=True),
        pooling_params=None,
        block_hasher=get_request_block_hasher(block_size, sha256),
    )


def prompt_tokens(seed: int, length: int) -> list[int]:
    """A deterministic prompt, distinct per seed (no shared prefix)."""
    return [(seed * 7919 + i * 31) % 30000 + 1 for i in range(length)]


def complete_step(scheduler: Any, out: Any) -> Any:
    """Deliver the output frame of a scheduled step (the step succeeded):
    one sampled token for every request past its prefill."""
    from vllm.v1.outputs import ModelRunnerOutput

    req_ids = list(out.num_scheduled_tokens)
    sampled: list[list[int]] = []
    for rid in req_ids:
        req = scheduler.requests.get(rid)
        done_prefill = req is not None and req.num_computed_tokens >= req.num_prompt_tokens
        sampled.append([100 + (req.num_tokens % 997)] if done_prefill else [])
    mro = ModelRunnerOutput(req_ids=req_ids, sampled_token_ids=sampled)
    return scheduler.update_from_output(out, mro)


def step(scheduler: Any, *, fail: bool = False) -> Any:
    """Schedule one step; unless ``fail``, deliver its output.  A failed step
    leaves its blocks cached (vLLM caches at schedule time) and its output lost."""
    out = scheduler.schedule()
    if not fail:
        complete_step(scheduler, out)
    return out


def prefill_fault(scheduler: Any, prompts: dict[str, Sequence[int]], *, max_tokens: int = 64) -> Any:
    """Add requests; their (first) prefill step fails."""
    bs = scheduler.block_size
    for rid, prompt in prompts.items():
        scheduler.add_request(make_request(rid, prompt, max_tokens=max_tokens, block_size=bs))
    return step(scheduler, fail=True)


def decode_fault(
    scheduler: Any, prompts: dict[str, Sequence[int]], *, max_tokens: int = 64, max_steps: int = 64
) -> Any:
    """Add requests, prefill them successfully, then decode until a step makes
    a block full; that step fails (its freshly cached block is dirty)."""
    bs = scheduler.block_size
    reqs = []
    for rid, prompt in prompts.items():
        req = make_request(rid, prompt, max_tokens=max_tokens, block_size=bs)
        reqs.append(req)
        scheduler.add_request(req)
    for _ in range(max_steps):
        out = scheduler.schedule()
        decoding = [r for r in reqs if r.num_computed_tokens > r.num_prompt_tokens]
        if any(r.num_computed_tokens % bs == 0 for r in decoding):
            return out  # this step filled a block: it fails
        complete_step(scheduler, out)
    raise RuntimeError("no decode step filled a block")


def prefix_hit(scheduler: Any, prompt: Sequence[int], request_id: str = "probe") -> int:
    """Tokens of ``prompt`` a new request gets from the prefix cache (schedules
    it, so call it last)."""
    req = make_request(request_id, prompt, block_size=scheduler.block_size)
    scheduler.add_request(req)
    out = scheduler.schedule()
    return int(req.num_computed_tokens - out.num_scheduled_tokens.get(request_id, 0))


def resume_hit(scheduler: Any, request_id: str) -> int:
    """Schedule the next step; tokens the resumed request ``request_id`` got
    from the prefix cache (0 if it was not scheduled)."""
    out = scheduler.schedule()
    req = scheduler.requests.get(request_id)
    if req is None or request_id not in out.num_scheduled_tokens:
        return 0
    return int(req.num_computed_tokens - out.num_scheduled_tokens[request_id])


def cached_tokens(scheduler: Any, prompt: Sequence[int]) -> int:
    """Prefix hit of ``prompt`` read without scheduling anything (read-only).

    ``KVCacheManager.get_computed_blocks`` returns ``(blocks, num_tokens)`` in
    older vLLM and ``(blocks, num_tokens, shared_prefix_boundary)`` in 0.34:
    the hit is the second item in both."""
    req = make_request("lookup", prompt, block_size=scheduler.block_size)
    result = scheduler.kv_cache_manager.get_computed_blocks(req)
    return int(result[1])


# -- a stand-in engine for vLLM's own EngineCoreSentinel -------------------


class _StandInExecutor:
    is_failed = False

    def collective_rpc(
        self, method: str, args: tuple[Any, ...] = (), kwargs: Any = None, timeout: Any = None
    ) -> list[dict[str, Any]]:
        return [{"mask": [0]}]


class StandInEngine:
    """What ``EngineCoreSentinel.on_fault`` touches of an engine core, holding
    the real scheduler."""

    def __init__(self, scheduler: Any) -> None:
        self.engine_index = 0
        self.scheduler = scheduler
        self.batch_queue = None
        self.output_queue: queue.Queue[Any] = queue.Queue()
        self.model_executor = _StandInExecutor()
        self.aborted: list[str] = []

    def _send_abort_outputs(self, aborted_reqs: list[Any]) -> None:
        self.aborted.extend(r.request_id for r in aborted_reqs)


def make_sentinel(scheduler: Any) -> Any:
    """vLLM's real ``EngineCoreSentinel`` over a stand-in engine."""
    setup()
    from vllm.v1.fault_tolerance.engine_core_sentinel import EngineCoreSentinel

    engine = StandInEngine(scheduler)
    return EngineCoreSentinel(engine, scheduler.vllm_config.parallel_config)


# -- a full read of the scheduler's state, to prove the verifier writes nothing --

_REQUEST_FIELDS = (
    V.REQUEST_ID,
    V.REQUEST_STATUS,
    *V.TAIL_BOUNDARY,
    V.CURRENT.counters[1],  # num_stale_output_tokens
    V.DROP_STALE_OUTPUT,
    V.NUM_OUTPUT_PLACEHOLDERS,
    *V.REQUEST_BOOKKEEPING_FIELDS,
)


def state_fingerprint(scheduler: Any) -> dict[str, Any]:
    """Everything the verifier could touch, as plain values: request fields,
    block-pool maps, block metadata, free-queue order, manager bookkeeping."""
    pool = scheduler.kv_cache_manager.block_pool
    cmap = pool.cached_block_hash_to_block
    fp: dict[str, Any] = {
        "running": [r.request_id for r in scheduler.running],
        "waiting": [r.request_id for r in scheduler.waiting],
        "requests": {
            rid: {f: repr(getattr(r, f, None)) for f in _REQUEST_FIELDS} for rid, r in scheduler.requests.items()
        },
        "cache": dict(cmap._cache),
        "cache_dups": {k: list(v) for k, v in cmap._dup_ids.items()},
        "secondary": {k: sorted(v) for k, v in pool.cached_block_hashes_by_block.items()},
        "blocks": [(b.block_id, b.ref_cnt, b.block_hash, b.block_hash_num_tokens, b.is_null) for b in pool.blocks],
        "free_queue": [b.block_id for b in pool.free_block_queue.get_all_free_blocks()],
        "num_free": pool.free_block_queue.num_free_blocks,
        "managers": [
            {
                "req_to_blocks": {k: [b.block_id for b in v] for k, v in m.req_to_blocks.items()},
                "num_cached_block": dict(m.num_cached_block),
                "new_block_ids": list(m.new_block_ids),
            }
            for m in scheduler.kv_cache_manager.coordinator.single_type_managers
        ],
    }
    return fp
