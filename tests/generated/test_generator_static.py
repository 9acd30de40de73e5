"""The handler generator without vLLM: deterministic per seed, every handler compiles,
the fixed slice of test_generated.py covers every value of every axis and both API
generations, and the injected static-only truth follows the axes."""

from __future__ import annotations

import pytest

from tests.generated import generator as gen
from tests.generated.fixed_slice import SEED, SIZE


def test_same_seed_same_handlers_and_other_seed_other_handlers():
    a = [gen.render(s) for s in gen.generate(SEED, 50)]
    b = [gen.render(s) for s in gen.generate(SEED, 50)]
    c = [gen.render(s) for s in gen.generate(SEED + 1, 50)]
    assert a == b
    assert sum(x != y for x, y in zip(a, c, strict=True)) > 40


def test_a_handler_is_regenerated_alone_from_seed_and_index():
    whole = gen.generate(SEED, 40)
    assert [gen.draw(SEED, i) for i in (39, 7, 0)] == [whole[39], whole[7], whole[0]]
    assert gen.generate(SEED, 10, start=30) == whole[30:]


def test_every_handler_of_the_slice_compiles_and_has_the_corpus_shape():
    for spec in gen.generate(SEED, SIZE):
        files = gen.render(spec)
        for name, text in files.items():
            compile(text, f"{spec.name}/{name}", "exec")  # also catches what ast.parse lets through
        handler = files["handler.py"]
        assert handler.startswith("# Intended: generated handler")
        assert "class FaultHandler" in handler and "def on_fault(self, exc):" in handler
        assert ("# switch: resume" in handler) == (spec.mode == "switch")
        assert ("# vllm: 0.26" in handler) == (spec.api == "0.26")
        assert gen.normalize(spec) == spec


def test_the_slice_covers_every_axis_value():
    specs = gen.generate(SEED, SIZE)
    for axis, values in gen.AXES.items():
        seen = {getattr(s, axis) for s in specs}
        assert seen == set(values), f"{axis}: {sorted(set(values) - seen)} never drawn"


@pytest.mark.parametrize(
    ("changes", "truth"),
    [
        ({"site": "inline", "defect": "none"}, {"FT002"}),
        ({"site": "closure", "defect": "ft007_none"}, set()),
        ({"site": "helper", "defect": "ft003_range_check"}, {"FT003"}),
        ({"site": "lambda_local", "defect": "ft005_reset_prefix_cache"}, {"FT002", "FT005"}),
        ({"site": "decorator_before", "defect": "none"}, set()),
    ],
)
def test_static_only_truth_comes_from_what_was_injected(changes, truth):
    spec = gen.normalize(gen.Spec(seed=0, index=0, **{**gen.SIMPLEST, **changes}))
    assert gen.static_truth(spec) == truth
    text = "\n".join(gen.render(spec).values())
    assert ("reset_prefix_cache" in text) == ("FT005" in truth)
    assert ("0 <= b.block_id < len(" in text) == ("FT003" in truth)


def test_shrink_candidates_move_one_axis_to_its_simplest_value():
    spec = gen.draw(SEED, 3)
    for cand in gen.shrink_candidates(spec):
        moved = [a for a in gen.AXES if getattr(cand, a) != getattr(spec, a)]
        assert moved and any(getattr(cand, a) == gen.SIMPLEST[a] for a in moved)
