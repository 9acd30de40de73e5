"""Tables of shapes for FT002-FT004 that would be too many for the rules' own examples:
which comparisons are range checks (FT003), and which eviction arguments are a whole
block list (FT004), each linted through the real engine (`lint_paths`) inside a handler's
helper."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ftlint.core.config import load_config
from ftlint.lint.engine import lint_paths
from ftlint.lint.registry import known_codes


@pytest.mark.parametrize(
    "code",
    [
        "0 <= x < len(y)",
        "x < len(y)",
        "len(y) > x",
        "x >= len(y)",
        "len(y) <= bid",
        "blk.block_id >= len(pool.blocks)",
        "x > len(y) - 1",
        "i + 1 < len(blocks)",
        "confirmed // block_size < len(blocks)",
        "x in range(len(y))",
        "x not in range(0, len(y))",
        "len(y) > x >= 0",
    ],
)
def test_range_checks(tmp_path, code):
    """Each is reported once, at the comparison (line 14 of the file: `if` is at column 9)."""
    assert [(f.line, f.column) for f in _findings(tmp_path, f"if {code}:\n    pass", "FT003")] == [(14, 12)]


@pytest.mark.parametrize(
    "code",
    [
        "inflight <= 0",
        "x >= 0",
        "len(y) > 0",
        "len(a) < len(b)",
        "req.num_computed_tokens < len(req.all_token_ids)",
        "num_tokens >= len(blocks)",
        "len(self._sessions) >= max_peers",
        "len(heap) < max(64, 2 * len(evictable))",
        "x == len(y) - 1",
        "x in blocks",
        "x in range(first, len(y))",
    ],
)
def test_not_range_checks(tmp_path, code):
    assert _findings(tmp_path, f"if {code}:\n    pass", "FT003") == []


HANDLER = """
class EngineCoreSentinel:
    def on_fault(self, exc):
        for req in list(self.engine.scheduler.running):
            self._evict(req)
        self.engine.scheduler.finish_requests(None, "aborted")

    def _evict(self, req):
        kv = self.engine.scheduler.kv_cache_manager
        pool = kv.block_pool
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        first = confirmed // kv.block_size
        blocks = kv.coordinator.single_type_managers[0].req_to_blocks[req.request_id]
{body}
"""


def _findings(tmp_path: Path, body: str, code: str) -> list:
    """The findings of `code` when `body` ends the handler's helper `_evict` (line 14 of the file on)."""
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    (tmp_path / "sentinel.py").write_text(HANDLER.format(body=textwrap.indent(textwrap.dedent(body), " " * 8)))
    result = lint_paths([Path("sentinel.py")], load_config(tmp_path), set(known_codes()), cwd=tmp_path)
    assert not result.internal_errors, result.internal_errors
    assert not [f for f in result.findings if f.code == "FT000"]
    return [f for f in result.findings if f.code == code]


def _ft004(tmp_path: Path, body: str) -> list:
    return _findings(tmp_path, body, "FT004")


@pytest.mark.parametrize(
    "body",
    [
        "kv.evict_blocks({b.block_id for b in blocks})",
        "kv.evict_blocks({b.block_id for b in blocks if not b.is_null})",
        "kv.evict_blocks({b.block_id for b in blocks[:]})",
        "kv.evict_blocks({b.block_id for b in blocks[0:]})",
        "kv.evict_blocks({b.block_id for b in blocks[:first]})",
        "ids = [b.block_id for b in blocks]\nkv.evict_blocks(set(ids))",
        "ids = set()\nfor b in blocks:\n    ids.add(b.block_id)\nkv.evict_blocks(ids)",
        "ids = []\nfor b in blocks:\n    ids += [b.block_id]\nkv.evict_blocks(ids)",
        "for i in range(len(blocks)):\n    pool._maybe_evict_cached_block(blocks[i])",
        "n = len(blocks)\nfor i in range(n):\n    pool._maybe_evict_cached_block(blocks[i])",
        "for i, b in enumerate(blocks):\n    pool._maybe_evict_cached_block(b)",
        "kv.evict_blocks(set(kv.get_block_ids(req.request_id)[0]))",
        "(group,) = kv.get_block_ids(req.request_id)\nkv.evict_blocks(set(group))",
        "kv.evict_blocks(set(req.block_ids))",
        "for bid in req.block_ids:\n    pool._maybe_evict_cached_block(pool.blocks[bid])",
        "kv.evict_blocks({b.block_id for m in kv.coordinator.single_type_managers for b in m.req_to_blocks.get(req.request_id, [])})",
        "kv.record_blocks_for_zeroing(req.request_id, 0)",
        "kv.record_blocks_for_zeroing(req.request_id, start_token=0)",
        "start = 0\nkv.record_blocks_for_zeroing(req.request_id, start)",
        "for rid, bl in kv.coordinator.single_type_managers[0].req_to_blocks.items():\n    kv.evict_blocks({b.block_id for b in bl})",
    ],
)
def test_broad_eviction(tmp_path, body):
    assert len(_ft004(tmp_path, body)) == 1


@pytest.mark.parametrize(
    "body",
    [
        "kv.evict_blocks({b.block_id for b in blocks[first:]})",
        "kv.evict_blocks({b.block_id for b in blocks[first:] if not b.is_null})",
        "tail = blocks[confirmed // kv.block_size:]\nkv.evict_blocks({b.block_id for b in tail})",
        "ids = [b.block_id for b in blocks]\nkv.evict_blocks(set(ids[first:]))",
        "kv.evict_blocks({b.block_id for i, b in enumerate(blocks) if i >= first})",
        "for i, b in enumerate(blocks):\n    if i < first:\n        continue\n    pool._maybe_evict_cached_block(b)",
        "for i in range(first, len(blocks)):\n    pool._maybe_evict_cached_block(blocks[i])",
        "for i in range(len(blocks)):\n    if i >= first:\n        pool._maybe_evict_cached_block(blocks[i])",
        "for i, b in enumerate(blocks):\n    if i == len(blocks) - 1:\n        pool._maybe_evict_cached_block(b)",
        "pool._maybe_evict_cached_block(blocks[first])",
        "kv.evict_blocks(set(kv.get_block_ids(req.request_id)[0][first:]))",
        "kv.evict_blocks(set(req.block_ids[first:]))",
        "kv.record_blocks_for_zeroing(req.request_id, confirmed - confirmed % kv.block_size)",
        "print(len(blocks), [b.block_id for b in blocks])",
    ],
)
def test_tail_bounded_eviction(tmp_path, body):
    assert _ft004(tmp_path, body) == []
