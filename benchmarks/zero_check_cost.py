"""What `assert_blocks_zeroed` costs beside a plain fused read of the same pages.

Pages in vLLM's layout: LAYERS tensors of [2, NUM_BLOCKS, 16, HEADS, HEAD_SIZE]; CHECKED
blocks are zeroed and checked.  Prints ms per check for the check and for one plain
gather-and-reduce of the same pages (torch), and their ratio.  Runs on cuda when torch
sees a GPU, else cpu; the default size finishes in seconds on CPU.

    python benchmarks/zero_check_cost.py [--layers N] [--blocks N] [--checked N] [--device cpu|cuda]
"""

from __future__ import annotations

import argparse
import time

import torch

from ftlint.runtime.device import assert_blocks_zeroed


def _time(fn, device: str, repeat: int) -> float:
    fn()  # warm up
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    if device == "cuda":
        torch.cuda.synchronize()
    return (time.perf_counter() - start) / repeat * 1e3


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--blocks", type=int, default=512)
    p.add_argument("--checked", type=int, default=128)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--head-size", type=int, default=128)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--device", choices=("cpu", "cuda"), default="cuda" if torch.cuda.is_available() else "cpu")
    a = p.parse_args(argv)
    dtype = torch.bfloat16
    layers = [torch.randn(2, a.blocks, 16, a.heads, a.head_size, dtype=dtype, device=a.device) for _ in range(a.layers)]
    ids = list(range(0, a.blocks, max(a.blocks // a.checked, 1)))[: a.checked]
    for t in layers:
        t[:, ids] = 0
    index = torch.tensor(ids, device=a.device)

    def plain() -> None:  # one fused gather-and-reduce per layer, one sync
        total = sum(t.index_select(1, index).ne(0).sum() for t in layers)
        int(total)  # type: ignore[call-overload]

    check_ms = _time(lambda: assert_blocks_zeroed(layers, ids, block_dim=1), a.device, a.repeat)
    plain_ms = _time(plain, a.device, a.repeat)
    page_bytes = 2 * 16 * a.heads * a.head_size * layers[0].element_size()
    mb = len(ids) * a.layers * page_bytes / 1e6
    print(f"device {a.device}: {a.layers} layers x {len(ids)} blocks checked ({mb:.1f} MB of pages)")
    print(f"  assert_blocks_zeroed  {check_ms:8.2f} ms")
    print(f"  plain fused read      {plain_ms:8.2f} ms")
    print(f"  ratio                 {check_ms / plain_ms:8.2f} x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
