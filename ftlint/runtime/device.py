"""Device-side check: were the KV pages of given blocks actually zeroed?"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any


def _tensors(kv_caches: Any) -> list[tuple[str, Any]]:
    if isinstance(kv_caches, Mapping):
        items = list(kv_caches.items())
    elif isinstance(kv_caches, Sequence):
        items = [(str(i), t) for i, t in enumerate(kv_caches)]
    else:
        items = [("0", kv_caches)]
    out: list[tuple[str, Any]] = []
    for name, value in items:
        if isinstance(value, (list, tuple)):  # e.g. (key_cache, value_cache)
            out.extend((f"{name}[{j}]", t) for j, t in enumerate(value))
        else:
            out.append((str(name), value))
    return out


def assert_blocks_zeroed(kv_caches: Any, block_ids: Iterable[int], *, block_dim: int = 0) -> None:
    """Assert that every KV-cache tensor's page for each of ``block_ids`` is all
    zero, on whatever device the tensors live (CUDA, CPU...).

    ``kv_caches``: one tensor, a list/tuple of tensors (per layer, or
    ``(key, value)`` pairs), or a ``{layer_name: tensor}`` mapping.  Block ``b``
    is the slice ``tensor.select(block_dim, b)``; vLLM's attention layouts put
    the block dimension first (pass ``block_dim=1`` for a ``[2, num_blocks, ...]``
    stacked key/value layout).  Raises ``AssertionError`` naming each layer and
    block that holds a non-zero value; one device sync for the whole check.
    """
    import torch  # imported only when a device check is asked for

    ids = sorted(set(int(b) for b in block_ids))
    if not ids:
        return
    tensors = _tensors(kv_caches)
    counts = []
    index_on: dict[Any, Any] = {}  # one index tensor per device
    for name, tensor in tensors:
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"kv_caches[{name}] is {type(tensor).__name__}, not a tensor")
        num_blocks = tensor.shape[block_dim]
        out_of_range = [b for b in ids if not 0 <= b < num_blocks]
        if out_of_range:
            raise IndexError(f"kv_caches[{name}] has {num_blocks} blocks on dim {block_dim}; asked for {out_of_range}")
        if tensor.device not in index_on:
            index_on[tensor.device] = torch.tensor(ids, device=tensor.device)
        pages = tensor.index_select(block_dim, index_on[tensor.device])  # one gather
        other_dims = [d for d in range(pages.dim()) if d != block_dim % pages.dim()]
        # one reduction: NaN counts as non-zero, -0.0 as zero
        per_block = torch.count_nonzero(pages, dim=other_dims) if other_dims else pages.ne(0).long()
        counts.append(per_block.to(tensors[0][1].device, non_blocking=True))
    nonzero = torch.stack(counts).cpu().tolist()  # the one host sync
    bad = [
        f"{name}: block {b}"
        for (name, _), row in zip(tensors, nonzero, strict=True)
        for b, n in zip(ids, row, strict=True)
        if n
    ]
    if bad:
        raise AssertionError("KV cache pages not zeroed: " + ", ".join(bad))
