"""A small real attention model over a paged KV cache, for KV-content mode.

Fixed random weights (a seeded ``torch.Generator``), a few attention layers
with a small head size, and paged K/V tensors in vLLM's per-layer layout
``[2, num_blocks, block_size, num_heads, head_size]``.  A forward writes the
K/V of the tokens it computes at the slots of the blocks vLLM's scheduler
assigned (``slot = block_id * block_size + position % block_size``) and reads
every earlier position back through the block table, so a token served from
the prefix cache uses whatever its page holds.  Pages are never cleared: a
block taken from the free pool keeps what its previous owner wrote (the cache
starts filled with seeded random values standing for those owners).

Imports torch when a model or cache is built, never vLLM.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


def default_device() -> str:
    """``cuda`` when torch sees a GPU, else ``cpu``."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


@dataclass(frozen=True)
class ModelShape:
    num_layers: int = 2
    num_heads: int = 2
    head_size: int = 8
    vocab_size: int = 32768  # input ids (vLLM harness prompts stay below 30001)
    num_logits: int = 64  # output classes compared between runs
    max_positions: int = 2048

    @property
    def hidden(self) -> int:
        return self.num_heads * self.head_size


class PagedKVCache:
    """Per-layer K/V pages, ``[2, num_blocks, block_size, num_heads, head_size]``."""

    def __init__(self, shape: ModelShape, num_blocks: int, block_size: int = 16, *, device: str, seed: int = 1) -> None:
        import torch

        gen = torch.Generator().manual_seed(seed)
        self.block_size = block_size
        self.num_blocks = num_blocks
        # What earlier owners of each page left there: never zeroed on allocation.
        self.layers = [
            torch.randn(2, num_blocks, block_size, shape.num_heads, shape.head_size, generator=gen).to(device)
            for _ in range(shape.num_layers)
        ]

    def slots(self, block_table: Sequence[int], positions: Any) -> Any:
        import torch

        table = torch.as_tensor(list(block_table), dtype=torch.long, device=positions.device)
        return table[positions // self.block_size] * self.block_size + positions % self.block_size

    def write(self, layer: int, slots: Any, k: Any, v: Any) -> None:
        kv = self.layers[layer]
        flat = kv.view(2, -1, kv.shape[-2], kv.shape[-1])
        flat[0, slots] = k
        flat[1, slots] = v

    def read(self, layer: int, slots: Any) -> tuple[Any, Any]:
        kv = self.layers[layer]
        flat = kv.view(2, -1, kv.shape[-2], kv.shape[-1])
        return flat[0, slots], flat[1, slots]


class TinyAttentionModel:
    """Embedding plus learned positions, ``num_layers`` residual attention
    layers (no MLP), a linear head.  Float32, deterministic."""

    def __init__(self, shape: ModelShape | None = None, *, device: str | None = None, seed: int = 0) -> None:
        import torch

        self.shape = shape or ModelShape()
        self.device = device or default_device()
        s = self.shape
        gen = torch.Generator().manual_seed(seed)

        def rand(*dims: int, scale: float = 1.0) -> Any:
            return (torch.randn(*dims, generator=gen) * scale).to(self.device)

        self.embed = rand(s.vocab_size, s.hidden)
        self.pos = rand(s.max_positions, s.hidden, scale=0.5)
        w = 1.0 / math.sqrt(s.hidden)
        self.layers = [tuple(rand(s.hidden, s.hidden, scale=w) for _ in range(4)) for _ in range(s.num_layers)]
        self.head = rand(s.hidden, s.num_logits, scale=w)

    def new_cache(self, num_blocks: int, block_size: int = 16, *, seed: int = 1) -> PagedKVCache:
        return PagedKVCache(self.shape, num_blocks, block_size, device=self.device, seed=seed)

    def forward(
        self,
        cache: PagedKVCache,
        token_ids: Sequence[int],
        start: int,
        block_table: Sequence[int],
        *,
        num_layers: int | None = None,
    ) -> Any:
        """Compute positions ``start .. start+len(token_ids)-1`` of one request.

        Writes their K/V into ``cache`` at the request's slots and attends to
        positions ``0 ..`` each query's own through the block table.  With
        ``num_layers`` below the model's, the forward stops after that many
        layers (a step cut short): later layers write nothing and no logits
        come out (``None``).  Returns logits ``[len(token_ids), num_logits]``.
        """
        import torch

        s = self.shape
        n = len(token_ids)
        positions = torch.arange(start, start + n, device=self.device)
        ids = torch.as_tensor(list(token_ids), dtype=torch.long, device=self.device)
        x = self.embed[ids % s.vocab_size] + self.pos[positions]
        new_slots = cache.slots(block_table, positions)
        ctx = torch.arange(0, start + n, device=self.device)
        ctx_slots = cache.slots(block_table, ctx)
        mask = ctx[None, :] <= positions[:, None]  # causal
        run = s.num_layers if num_layers is None else num_layers
        for layer, (wq, wk, wv, wo) in enumerate(self.layers[:run]):
            q = (x @ wq).view(n, s.num_heads, s.head_size)
            k = (x @ wk).view(n, s.num_heads, s.head_size)
            v = (x @ wv).view(n, s.num_heads, s.head_size)
            cache.write(layer, new_slots, k, v)
            keys, values = cache.read(layer, ctx_slots)  # [ctx, heads, head_size]
            scores = torch.einsum("qhd,khd->hqk", q, keys) / math.sqrt(s.head_size)
            scores = scores.masked_fill(~mask[None], float("-inf"))
            attn = torch.einsum("hqk,khd->qhd", scores.softmax(dim=-1), values)
            x = x + attn.reshape(n, s.hidden) @ wo
        if run < s.num_layers:
            return None
        return x @ self.head
