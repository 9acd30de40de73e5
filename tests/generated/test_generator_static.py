"""The handler generator without vLLM: deterministic per seed, every handler compiles,
the fixed slice of test_generated.py covers every value of every axis and both API
generations, and the injected static-only truth follows the axes."""

from __future__ import annotations

from dataclasses import replace

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


#: axis values added with the collect / snapshot axes (issue 21 item 1: the grammar was
#: exhausted): each renders its idiom and compiles on top of every handler of the slice
NEW_VALUES = [
    ("evict_call", "options", "kv.evict_blocks(**opts_"),
    ("release_call", "options", 'opts_1["finished_status"] = RequestStatus.FINISHED_ABORTED'),
    ("evict_call", "run_method", 'run_method(kv, "evict_blocks", args=(ids,), kwargs={})'),
    ("release_call", "run_method", 'run_method(sched, "finish_requests", args=(None, '),
    ("defect", "ft007_skip_inflight", "if req.num_in_flight_tokens > 0:\n                continue"),
    ("defect", "la_skip_unknown", "not in kv.coordinator.single_type_managers[0].req_to_blocks:"),
    ("collect", "by_request", "ids = set().union(*by_req.values())"),
    (
        "evict_call",
        "unpacked",
        'method, params = "evict_blocks", {"block_ids": ids}\n        getattr(kv, method)(**params)',
    ),
    ("release_call", "unpacked", "aborted = getattr(sched, method)(**params)"),
    ("snapshot", "slice", "sched.running[:]"),
    ("snapshot", "sorted", "sorted(sched.running, key=lambda r: r.arrival_time)"),
    ("snapshot", "tuple", "tuple(sched.running)"),
]


@pytest.mark.parametrize(("axis", "value", "idiom"), NEW_VALUES, ids=[f"{a}={v}" for a, v, _ in NEW_VALUES])
def test_each_new_value_renders_its_idiom_and_compiles_in_every_combination(axis, value, idiom):
    assert value in gen.AXES[axis]
    simplest = gen.normalize(gen.Spec(seed=0, index=0, **{**gen.SIMPLEST, axis: value}))
    assert getattr(simplest, axis) == value  # writable on the simplest handler as it is
    assert idiom in gen.render(simplest)["handler.py"]
    kept = 0
    for spec in gen.generate(SEED, SIZE):
        cand = gen.normalize(replace(spec, **{axis: value}))
        kept += getattr(cand, axis) == value
        for name, text in gen.render(cand).items():
            compile(text, f"{cand.name}/{name}", "exec")
    assert kept >= SIZE * 0.8  # normalize moves it only where it cannot be written


@pytest.mark.parametrize(
    ("changes", "truth"),
    [
        ({"site": "inline", "defect": "ft007_skip_inflight", "evict_call": "options"}, {"FT002"}),
        ({"site": "lambda_local", "evict_call": "run_method", "collect": "by_request"}, {"FT002"}),
        ({"site": "helper", "defect": "ft003_range_check", "collect": "by_request", "snapshot": "sorted"}, {"FT003"}),
        ({"site": "helper", "defect": "la_skip_unknown", "release_call": "run_method"}, set()),
        ({"site": "inline", "evict_call": "unpacked", "release_call": "unpacked"}, {"FT002"}),
        ({"site": "closure", "defect": "ft005_reset_prefix_cache", "release_call": "options"}, {"FT002", "FT005"}),
    ],
)
def test_static_only_truth_holds_with_the_new_values(changes, truth):
    spec = gen.normalize(gen.Spec(seed=0, index=0, **{**gen.SIMPLEST, **changes}))
    assert {k: getattr(spec, k) for k in changes} == changes
    assert gen.static_truth(spec) == truth
    text = "\n".join(gen.render(spec).values())
    assert ("reset_prefix_cache" in text) == ("FT005" in truth)
    assert ("0 <= b.block_id < len(" in text) == ("FT003" in truth)


def test_the_options_flag_is_off_when_nothing_is_injected_and_on_for_the_drop_flag_defect():
    base = {**gen.SIMPLEST, "mode": "resume", "release_call": "options"}
    plain = gen.render(gen.normalize(gen.Spec(seed=0, index=0, **base)))["handler.py"]
    bad = gen.render(gen.normalize(gen.Spec(seed=0, index=0, **{**base, "defect": "ft001_drop_flag"})))["handler.py"]
    old = gen.render(gen.normalize(gen.Spec(seed=0, index=0, **{**base, "api": "0.26"})))["handler.py"]
    assert "flag = False" in plain and "flag = True" not in plain
    assert "flag = True" in bad and "sched._preempt_request(req, ts, **opts_" in bad
    assert "drop_stale_output" not in old  # vLLM 0.26's preempt has no such keyword
