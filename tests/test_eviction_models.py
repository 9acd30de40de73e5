"""What the path walk models on the eviction side (issue 21 item 2), each construct both
ways: a handler that evicts the dirty tails through it gets no FT007 / FT004, and its
twin that does not (or that evicts too much) gets the finding. The constructs are the
ones the generated handlers (tests/generated) showed the walk losing track of."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ftlint.core.config import load_config
from ftlint.lint.engine import lint_paths
from ftlint.lint.registry import known_codes

HANDLER = """\
import contextlib
import functools
import operator
from vllm.v1.request import RequestStatus


def tail_ids(kv, reqs):
    ids = set()
    for req in reqs:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks[req.request_id]
            first = confirmed // mgr.block_size
            ids |= {{b.block_id for b in blocks[first:]}}
    return ids
{top}

class FaultHandler:
    resume = False
{attrs}
    def __init__(self, engine):
        self.engine = engine
{decorator}
    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        reqs = list(sched.running)
{body}
"""

ABORT = "sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)"
_FINDINGS: list = []  # the last _codes() call's findings


def _codes(
    tmp_path: Path,
    body: str,
    *,
    top: str = "",
    attrs: str = "",
    decorator: str = "",
    codes: tuple[str, ...] = ("FT004", "FT006", "FT007"),
) -> list[str]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    text = HANDLER.format(
        body=textwrap.indent(textwrap.dedent(body), " " * 8),
        top=textwrap.dedent(top),
        attrs=textwrap.indent(textwrap.dedent(attrs), " " * 4),
        decorator=f"    {decorator}" if decorator else "",
    )
    (tmp_path / "handler.py").write_text(text)
    result = lint_paths([Path("handler.py")], load_config(tmp_path), set(known_codes()), cwd=tmp_path)
    assert not result.internal_errors, result.internal_errors
    _FINDINGS[:] = result.findings
    return sorted(f.code for f in result.findings if f.code in codes)


WHOLE = "{b.block_id for r in reqs for b in r.get_blocks()}"  # every block: broad

LOOP = """\
ids = set()
for req in sched.running:
    confirmed = req.num_computed_tokens - req.num_in_flight_tokens
    for mgr in kv.coordinator.single_type_managers:
        blocks = mgr.req_to_blocks[req.request_id]
        ids |= {{b.block_id for b in blocks[confirmed // mgr.block_size:]}}
{stop}kv.evict_blocks(ids)
"""

# (name, body that evicts the tails through the construct, its twin that does not (or that
# evicts every block through it: FT004), the twin's codes)
PAIRS = [
    (
        "lambda-called",
        f"evict = lambda k, r: k.evict_blocks(tail_ids(k, r))\nevict(kv, reqs)\n{ABORT}",
        f"evict = lambda k, r: k.evict_blocks(tail_ids(k, r))\n{ABORT}",
        ["FT007"],
    ),
    (
        "methodcaller",
        f'operator.methodcaller("evict_blocks", tail_ids(kv, reqs))(kv)\n{ABORT}',
        f'operator.methodcaller("get_num_free_blocks")(kv)\n{ABORT}',
        ["FT007"],
    ),
    (
        "partial",
        f"functools.partial(kv.evict_blocks, tail_ids(kv, reqs))()\n{ABORT}",
        f"functools.partial(kv.evict_blocks, tail_ids(kv, reqs))\n{ABORT}",
        ["FT007"],
    ),
    (
        "dict-literal-key",
        f'ops = {{"evict": kv.evict_blocks}}\nops["evict"](tail_ids(kv, reqs))\n{ABORT}',
        f'ops = {{"evict": kv.evict_blocks}}\n{ABORT}',
        ["FT007"],
    ),
    (
        "dict-computed-key",
        f'ops = {{"do_evict": kv.evict_blocks, "skip": None}}\nops["_".join(("do", "evict"))](tail_ids(kv, reqs))\n{ABORT}',
        'ops = {"do_finish": sched.finish_requests, "skip": None}\n'
        'ops["_".join(("do", "finish"))](None, RequestStatus.FINISHED_ABORTED)',
        ["FT007"],
    ),
    (
        "kwargs",
        f'kv.evict_blocks(**{{"block_ids": tail_ids(kv, reqs)}})\n{ABORT}',
        'sched.finish_requests(**{"request_ids": None, "finished_status": RequestStatus.FINISHED_ABORTED})',
        ["FT007"],
    ),
    (
        "star-union",
        f"parts = [tail_ids(kv, reqs)]\nkv.evict_blocks(set().union(*parts))\n{ABORT}",
        f"parts = [tail_ids(kv, reqs), {WHOLE}]\nkv.evict_blocks(set().union(*parts))\n{ABORT}",
        ["FT004"],
    ),
    (
        "star-unpack",
        f"ids = set()\nids = {{*ids, *tail_ids(kv, reqs)}}\nkv.evict_blocks(ids)\n{ABORT}",
        f"ids = set()\nids = {{*ids, *{WHOLE}}}\nkv.evict_blocks(ids)\n{ABORT}",
        ["FT004"],
    ),
    (
        "unknown-call-given-ids",
        f"self.engine.drop_cached(tail_ids(kv, reqs))\n{ABORT}",
        f"self.engine.drop_cached(reqs)\n{ABORT}",
        ["FT007"],
    ),
    (
        "bool-keyed-dispatch",
        "actions = {True: self._evict_and_abort, False: self._evict_and_abort}\nactions[bool(self.resume)](sched)",
        "actions = {True: self._evict_and_abort, False: self._abort}\nactions[bool(self.resume)](sched)",
        ["FT007"],
    ),
    (
        "loop-without-break",
        LOOP.format(stop="") + ABORT,
        LOOP.format(stop="    break\n") + ABORT,
        ["FT007"],
    ),
    (
        "reset-prefix-cache-after-the-free",
        f"{ABORT}\nsched.reset_prefix_cache()",
        f"sched.reset_prefix_cache()\n{ABORT}",
        ["FT007"],
    ),
]

HELPERS = """\
def _evict_and_abort(self, sched):
    sched.kv_cache_manager.evict_blocks(tail_ids(sched.kv_cache_manager, list(sched.running)))
    sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)

def _abort(self, sched):
    sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
"""


@pytest.mark.parametrize(("name", "good", "bad", "codes"), PAIRS, ids=[p[0] for p in PAIRS])
def test_eviction_through_construct(tmp_path, name, good, bad, codes):
    # reset_prefix_cache after every free evicts the whole pool (FT004 on its own)
    only = ("FT007",) if name.startswith("reset-prefix-cache") else ("FT004", "FT006", "FT007")
    assert _codes(tmp_path / "good", good, attrs=HELPERS, codes=only) == []
    assert _codes(tmp_path / "bad", bad, attrs=HELPERS, codes=only) == codes


def test_lambda_class_attribute(tmp_path):
    """`_evict = staticmethod(lambda ...)` in the class body, called as `self._evict(...)`."""
    attrs = "_evict = staticmethod(lambda kv, reqs: kv.evict_blocks(tail_ids(kv, reqs)))\n"
    assert _codes(tmp_path / "good", f"self._evict(kv, reqs)\n{ABORT}", attrs=attrs) == []
    none = "_evict = staticmethod(lambda kv, reqs: None)\n"
    assert _codes(tmp_path / "bad", f"self._evict(kv, reqs)\n{ABORT}", attrs=none) == ["FT007"]


DECORATOR = """
def evicting_tails(fn):
    @functools.wraps(fn)
    def wrapper(self, exc):
        kv = self.engine.scheduler.kv_cache_manager
        {before}
        result = fn(self, exc)
        {after}
        return result

    return wrapper
"""


@pytest.mark.parametrize("where", ["before", "after"])
def test_decorator_evicts_around_the_body(tmp_path, where):
    """A project decorator's wrapper runs around on_fault: its eviction (ids read before the
    body, evicted before or after it) covers the body's free."""
    evict = "kv.evict_blocks(tail_ids(kv, list(self.engine.scheduler.running)))"
    if where == "before":
        top = DECORATOR.format(before=evict, after="pass")
    else:
        top = DECORATOR.format(
            before="ids = tail_ids(kv, list(self.engine.scheduler.running))", after="kv.evict_blocks(ids)"
        )
    assert _codes(tmp_path / "good", ABORT, top=top, decorator="@evicting_tails") == []
    plain = DECORATOR.format(before="pass", after="pass")
    assert _codes(tmp_path / "bad", ABORT, top=plain, decorator="@evicting_tails") == ["FT007"]


def test_contextmanager_finally_frees(tmp_path):
    """A free inside a `@contextmanager`'s `finally` counts (FT007 without an eviction)."""
    top = """
    @contextlib.contextmanager
    def released(sched):
        try:
            yield
        finally:
            sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
    """
    assert _codes(tmp_path / "bad", "with released(sched):\n    pass", top=top) == ["FT007"]
    good = "kv.evict_blocks(tail_ids(kv, reqs))\nwith released(sched):\n    pass"
    assert _codes(tmp_path / "good", good, top=top) == []


def test_set_difference_is_the_tail(tmp_path):
    """All of a request's ids minus its confirmed prefix's ids is the tail: not broad (no
    FT004), and it covers the tail; all ids minus nothing is the whole list (FT004)."""
    body = """
    ids = set()
    for req in reqs:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks[req.request_id]
            first = confirmed // mgr.block_size
            ids |= {{b.block_id for b in blocks}} - {minus}
    kv.evict_blocks(ids)
    """
    tail = textwrap.dedent(body).format(minus="{b.block_id for b in blocks[:first]}") + ABORT
    whole = textwrap.dedent(body).format(minus="set()") + ABORT
    assert _codes(tmp_path / "good", tail) == []
    assert _codes(tmp_path / "bad", whole) == ["FT004"]


def test_type_self_classmethod(tmp_path):
    """`type(self)._evict(...)` reaches the class's own classmethod."""
    attrs = """
    @classmethod
    def _evict(cls, kv, reqs):
        kv.evict_blocks(tail_ids(kv, reqs))
    """
    assert _codes(tmp_path / "good", f"type(self)._evict(kv, reqs)\n{ABORT}", attrs=attrs) == []
    assert _codes(tmp_path / "bad", f"type(self)._evict\n{ABORT}", attrs=attrs) == ["FT007"]


FILTERED = """\
ids = set()
for req in sched.running:
    confirmed = req.num_computed_tokens - req.num_in_flight_tokens
    for mgr in kv.coordinator.single_type_managers:
        blocks = mgr.req_to_blocks[req.request_id]
        ids |= {{b.block_id for b in blocks[confirmed // mgr.block_size:] if {cond}}}
kv.evict_blocks(ids)
"""


def test_range_filter_that_drops_dirty_ids(tmp_path):
    """`block_id < len(blocks)` compares a pool index with a request's block count: it drops
    the tail's ids (FT007 and FT003); against the pool's length it drops none (FT003 only)."""
    codes = ("FT003", "FT007")
    drop = FILTERED.format(cond="b.block_id < len(blocks)") + ABORT
    keep = FILTERED.format(cond="0 <= b.block_id < len(kv.block_pool.blocks)") + ABORT
    assert _codes(tmp_path / "drop", drop, codes=codes) == ["FT003", "FT007"]
    assert _codes(tmp_path / "keep", keep, codes=codes) == ["FT003"]
    both = FILTERED.format(cond="not b.is_null and b.block_id < len(blocks)") + ABORT
    assert _codes(tmp_path / "and", both, codes=codes) == ["FT003", "FT007"]
    loop = (
        "ids = set()\nfor req in sched.running:\n"
        "    first = (req.num_computed_tokens - req.num_in_flight_tokens) // 16\n"
        "    for mgr in kv.coordinator.single_type_managers:\n"
        "        blocks = mgr.req_to_blocks[req.request_id]\n"
        "        for b in blocks[first:]:\n"
        "            if {cond}:\n"
        "                ids.add(b.block_id)\n"
        "kv.evict_blocks(ids)\n"
    )
    assert _codes(tmp_path / "loop", loop.format(cond="b.block_id < len(blocks)") + ABORT, codes=codes) == [
        "FT003",
        "FT007",
    ]
    assert _codes(tmp_path / "loop-ok", loop.format(cond="not b.is_null") + ABORT, codes=codes) == []


def test_difference_with_a_late_prefix(tmp_path):
    """All ids minus `blocks[:num_computed_tokens // block_size]` starts after the tail: FT007."""
    body = """
    ids = set()
    for req in reqs:
        for mgr in kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks[req.request_id]
            first = {boundary} // mgr.block_size
            ids |= {{b.block_id for b in blocks}} - {{b.block_id for b in blocks[:first]}}
    kv.evict_blocks(ids)
    """
    late = textwrap.dedent(body).format(boundary="req.num_computed_tokens") + ABORT
    tail = textwrap.dedent(body).format(boundary="(req.num_computed_tokens - req.num_in_flight_tokens)") + ABORT
    assert _codes(tmp_path / "late", late) == ["FT007"]
    assert _codes(tmp_path / "tail", tail) == []


def test_modelled_table_names_its_tests():
    """docs/rules.md's "what the analysis models" table (ftlint/analysis/modelled.py): each
    row names a test of this file (a function, a PAIRS or OBJECT_PAIRS case) or a case of
    tests/test_eviction_idioms.py, tests/test_dispatch_and_skip_idioms.py or
    tests/test_class_and_loop_idioms.py showing both verdicts, and
    the page holds the table as generated."""
    from ftlint.analysis import modelled
    from tests.test_class_and_loop_idioms import CASES as CLASSES
    from tests.test_dispatch_and_skip_idioms import CASES as DISPATCH
    from tests.test_eviction_idioms import CASES as IDIOMS

    names = {p[0] for p in PAIRS + OBJECT_PAIRS} | {n for n in globals() if n.startswith("test_")}
    names |= set(IDIOMS) | set(DISPATCH) | set(CLASSES)
    assert [row.test for row in modelled.MODELLED if row.test not in names] == []
    assert {row.status for row in modelled.MODELLED} == {"modelled", "unknown"}
    docs = (Path(__file__).resolve().parent.parent / "docs" / "rules.md").read_text(encoding="utf-8")
    assert modelled.markdown() in docs


def test_gate_inside_the_request_loop(tmp_path):
    """In the loop over the running requests, an eviction behind a test that is not about
    the request's tail (`isinstance(exc, ...)`) covers only the iterations that pass it;
    one behind a test of the request's in-flight tokens covers every request."""
    loop = """\
    for req in list(sched.running):
        if {test}:
            kv.evict_blocks(tail_ids(kv, [req]))
        sched.finish_requests(req.request_id, RequestStatus.FINISHED_ABORTED)
    """
    gated = textwrap.dedent(loop).format(test="isinstance(exc, TimeoutError)")
    skip_idle = textwrap.dedent(loop).format(test="req.num_in_flight_tokens")
    assert _codes(tmp_path / "gated", gated) == ["FT007"]
    assert _codes(tmp_path / "idle", skip_idle) == []


def test_generator_of_ids(tmp_path):
    """A generator function's call gives what it yields: `set(gen(...))` is its block ids."""
    top = """
    def dirty_ids(kv, reqs):
        yield from sorted(tail_ids(kv, reqs))
    """
    good = f"ids = set(dirty_ids(kv, reqs))\nif ids:\n    kv.evict_blocks(ids)\n{ABORT}"
    assert _codes(tmp_path / "good", good, top=top) == []
    whole = """
    def dirty_ids(kv, reqs):
        for r in reqs:
            yield from (b.block_id for b in r.get_blocks())
    """
    assert _codes(tmp_path / "bad", good, top=whole) == ["FT004"]


def test_one_request_list_keeps_the_request(tmp_path):
    """`for r in [req]` iterates the request itself: its block list is that request's (so a
    `block_id < len(blocks)` filter on it is known to drop the tail's ids)."""
    body = """\
    for req in list(sched.running):
        ids = set()
        for r in [req]:
            first = (r.num_computed_tokens - r.num_in_flight_tokens) // 16
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks[r.request_id]
                ids |= {{b.block_id for b in blocks[first:] if {cond}}}
        kv.evict_blocks(ids)
        sched.finish_requests(req.request_id, RequestStatus.FINISHED_ABORTED)
    """
    codes = ("FT007",)
    assert _codes(tmp_path / "drop", textwrap.dedent(body).format(cond="b.block_id < len(blocks)"), codes=codes) == [
        "FT007"
    ]
    assert _codes(tmp_path / "keep", textwrap.dedent(body).format(cond="not b.is_null"), codes=codes) == []


def test_class_attribute_lambda_in_an_outlined_module(tmp_path):
    """A broad eviction inside a class-attribute lambda is reported at the call that runs it
    (the lambda is read from the module's text when the file is outlined): no internal error."""
    attrs = f"_evict = staticmethod(lambda kv, reqs: kv.evict_blocks({WHOLE}))\n"
    assert _codes(tmp_path, f"self._evict(kv, reqs)\n{ABORT}", attrs=attrs) == ["FT004"]
    rows = [f.line for f in _FINDINGS if f.code == "FT004"]
    assert rows and all("self._evict" in (tmp_path / "handler.py").read_text().splitlines()[r - 1] for r in rows)


# Constructs independent handler sets showed the walk losing track of (twelfth session): a
# property for the scheduler, objects of project classes, recursion, callables it cannot
# name, an `except` after the eviction. (name, module-level code, body evicting through the
# construct, its twin that does not, the twin's codes)
EVICTOR = """
class TailEvictor:
    def __init__(self, kv):
        self.kv = kv

    def evict(self, reqs):
        self.kv.evict_blocks(tail_ids(self.kv, reqs))

    def count(self, reqs):
        return len(reqs)

    def __call__(self, req):
        self.kv.evict_blocks(tail_ids(self.kv, [req]))


class Counter:
    def __init__(self, kv):
        self.kv = kv

    def __call__(self, req):
        return req.request_id
"""
RECURSIVE = """
def evict_each(kv, reqs):
    if not reqs:
        return
    head, *rest = reqs
    kv.evict_blocks(tail_ids(kv, [head]))
    evict_each(kv, rest)


def count_each(reqs):
    if not reqs:
        return 0
    return 1 + count_each(reqs[1:])
"""
JANITOR = """
class Janitor:
    def sweep_tails(self, kv, reqs):
        kv.evict_blocks(tail_ids(kv, reqs))
"""
EVICTING = "\ndef evict_tails(kv, reqs):\n    kv.evict_blocks(tail_ids(kv, reqs))\n"
MODE = "def mode(self):\n    return self.engine.mode\n"
PROPERTY = """
@property
def scheduler(self):
    return self.engine.scheduler
"""
OBJECT_PAIRS = [
    (
        "property-for-the-scheduler",
        "",
        f"self.scheduler.kv_cache_manager.evict_blocks(tail_ids(kv, reqs))\nself.{ABORT.replace('sched.', 'scheduler.')}",
        f"self.{ABORT.replace('sched.', 'scheduler.')}",
        ["FT007"],
    ),
    (
        "object-of-a-project-class",
        EVICTOR,
        f"TailEvictor(kv).evict(reqs)\n{ABORT}",
        f"TailEvictor(kv).count(reqs)\n{ABORT}",
        ["FT007"],
    ),
    (
        "callable-object-given-to-an-unknown-call",
        EVICTOR,
        f"list(map(TailEvictor(kv), reqs))\n{ABORT}",
        f"list(map(Counter(kv), reqs))\n{ABORT}",
        ["FT007"],
    ),
    ("recursive-eviction", RECURSIVE, f"evict_each(kv, reqs)\n{ABORT}", f"count_each(reqs)\n{ABORT}", ["FT007"]),
    (
        "method-of-an-unknown-object",
        JANITOR,
        f"self.engine.janitor.sweep_tails(kv, reqs)\n{ABORT}",
        f"self.engine.janitor.report(kv, reqs)\n{ABORT}",
        ["FT007"],
    ),
    (
        "callable-computed-at-run-time",
        EVICTING,
        f"step = self.engine.pick_step()\nstep(kv, reqs)\n{ABORT}",
        f"step = self.engine.pick_step()\n{ABORT}",
        ["FT007"],
    ),
    (
        "walrus-around-the-eviction",
        "",
        f"if (ids := tail_ids(kv, reqs)):\n    kv.evict_blocks(ids)\n{ABORT}",
        f"if (ids := tail_ids(kv, reqs)):\n    pass\n{ABORT}",
        ["FT007"],
    ),
    (
        "continue-past-a-request-with-no-ids",
        "",
        f"for req in reqs:\n    ids = tail_ids(kv, [req])\n    if not ids:\n        continue\n    kv.evict_blocks(ids)\n{ABORT}",
        f"for req in reqs:\n    ids = tail_ids(kv, [req])\n    if self.resume:\n        continue\n    kv.evict_blocks(ids)\n{ABORT}",
        ["FT007"],
    ),
    (
        "running-status-test-in-the-loop",
        "",
        f"for req in reqs:\n    if req.status == RequestStatus.RUNNING:\n        kv.evict_blocks(tail_ids(kv, [req]))\n{ABORT}",
        f"for req in reqs:\n    if self.resume:\n        kv.evict_blocks(tail_ids(kv, [req]))\n{ABORT}",
        ["FT007"],
    ),
    (
        "except-after-the-eviction",
        "",
        f"try:\n    kv.evict_blocks(tail_ids(kv, reqs))\nexcept Exception:\n    pass\n{ABORT}",
        f"try:\n    self.engine.drain()\n    kv.evict_blocks(tail_ids(kv, reqs))\nexcept Exception:\n    pass\n{ABORT}",
        ["FT007"],
    ),
]


CEIL_LOOP = LOOP.replace("confirmed // mgr.block_size", "{first}").replace("{stop}", "")
OBJECT_PAIRS += [
    (
        "ceiling-division-boundary",
        "",
        CEIL_LOOP.format(first="confirmed // mgr.block_size") + ABORT,
        CEIL_LOOP.format(first="-(-confirmed // mgr.block_size)") + ABORT,
        ["FT007"],
    ),
    (
        "cdiv-boundary",
        "from vllm.utils.math_utils import cdiv\n",
        CEIL_LOOP.format(first="confirmed // mgr.block_size") + ABORT,
        CEIL_LOOP.format(first="cdiv(confirmed, mgr.block_size)") + ABORT,
        ["FT007"],
    ),
]


WINDOW = """
class Window:
    def __init__(self, kv, reqs, evict):
        self.kv, self.reqs, self.evict = kv, reqs, evict

    def __enter__(self):
        if self.evict:
            self.kv.evict_blocks(tail_ids(self.kv, self.reqs))
        return self.reqs

    def __exit__(self, *exc):
        return False


class Evicting(Window):
    def __init__(self, kv, reqs):
        super().__init__(kv, reqs, True)

    def __enter__(self):
        self.kv.evict_blocks(tail_ids(self.kv, self.reqs))
        return self.reqs


class Plain(Window):
    def __enter__(self):
        return self.reqs
"""
OBJECT_PAIRS += [
    (
        "object-as-a-context-manager",
        WINDOW,
        f"with Evicting(kv, reqs) as batch:\n    {ABORT}",
        f"with Plain(kv, reqs, False) as batch:\n    {ABORT}",
        ["FT007"],
    ),
    (
        "deque-of-the-running-queue-drained",
        "from collections import deque\n",
        "pending = deque(sched.running)\nwhile pending:\n    req = pending.pop()\n"
        "    if req.num_in_flight_tokens == 0:\n        continue\n    tail = tail_ids(kv, [req])\n"
        f"    if tail:\n        kv.evict_blocks(tail)\n{ABORT}",
        f"pending = deque(sched.running)\nwhile pending:\n    req = pending.pop()\n{ABORT}",
        ["FT007"],
    ),
]


# Records and helpers production-style handlers use (thirteenth session): a `slice` object
# as the index, `itertools.chain.from_iterable` over the groups, a dataclass made by its
# classmethod (`cls(...)`) whose fields hold the boundary, a property of it testing whether
# the request has a dirty tail at all.
SPAN = """
import dataclasses
import itertools


@dataclasses.dataclass(frozen=True)
class Span:
    request_id: str
    start: int
    end: int

    @classmethod
    def of(cls, req):
        return cls(req.request_id, req.num_computed_tokens - req.num_in_flight_tokens, req.num_computed_tokens)

    @classmethod
    def stale(cls, req):
        return cls(req.request_id, end=req.num_computed_tokens, start=req.num_computed_tokens)

    @property
    def empty(self):
        return self.start >= self.end
"""
SPAN_LOOP = """\
for req in reqs:
    span = Span.{make}(req)
    if {skip}:
        continue
    for mgr in kv.coordinator.single_type_managers:
        blocks = mgr.req_to_blocks[span.request_id]
        kv.evict_blocks({{b.block_id for b in blocks[span.start // mgr.block_size:]}})
"""
CHAIN = (
    "ids = {{b.block_id for b in itertools.chain.from_iterable(\n"
    "    mgr.req_to_blocks[r.request_id]{part} for r in reqs for mgr in kv.coordinator.single_type_managers)}}\n"
    "kv.evict_blocks(ids)\n"
)
OBJECT_PAIRS += [
    (
        "slice-object-as-the-index",
        "",
        LOOP.replace("blocks[confirmed // mgr.block_size:]", "blocks[slice(confirmed // mgr.block_size, None)]").format(
            stop=""
        )
        + ABORT,
        LOOP.replace(
            "blocks[confirmed // mgr.block_size:]", "blocks[slice(-(-confirmed // mgr.block_size), None)]"
        ).format(stop="")
        + ABORT,
        ["FT007"],
    ),
    (
        "itertools-chain-from-iterable",
        "import itertools\n",
        "first = (reqs[0].num_computed_tokens - reqs[0].num_in_flight_tokens) // 16\n"
        + CHAIN.format(part="[first:]").replace("for r in reqs", "for r in reqs[:1]")
        + "\n".join(["kv.evict_blocks(tail_ids(kv, reqs))", ABORT]),
        CHAIN.format(part="") + ABORT,
        ["FT004"],
    ),
    (
        "record-made-by-its-classmethod",
        SPAN,
        SPAN_LOOP.format(make="of", skip="False") + ABORT,
        SPAN_LOOP.format(make="stale", skip="False") + ABORT,
        ["FT007"],
    ),
    (
        "record-property-testing-for-a-dirty-tail",
        SPAN,
        SPAN_LOOP.format(make="of", skip="span.empty") + ABORT,
        SPAN_LOOP.format(make="of", skip="not span.empty") + ABORT,
        ["FT007"],
    ),
]


# Dispatch and block reads production-style handlers use (thirteenth session, second part):
# a method table keyed by enum members, strategy objects picked at run time, `divmod` and
# `itertools.islice`, `range(first, last)`, a module-level pipeline of functions (also
# imported), `get_block_ids_for_computed_tokens`, removing from the running queue while
# iterating it. (name, module-level code, body evicting through the construct, its twin
# that does not, the twin's codes)
STRATEGIES = """
import enum


class Mode(enum.Enum):
    ABORT = 1
    RESUME = 2


class Evicting:
    def apply(self, kv, reqs):
        kv.evict_blocks(tail_ids(kv, reqs))


class Idle:
    def apply(self, kv, reqs):
        return len(reqs)
"""
PIPELINE = """
def evict_stage(kv, reqs):
    kv.evict_blocks(tail_ids(kv, reqs))


def log_stage(kv, reqs):
    return len(reqs)


PIPELINE = [evict_stage, log_stage]
IDLE: list = [log_stage]
"""
RANGE_LOOP = """\
for req in reqs:
    confirmed = req.num_computed_tokens - req.num_in_flight_tokens
    for mgr in kv.coordinator.single_type_managers:
        blocks = mgr.req_to_blocks[req.request_id]
        first = {first}
        last = -(-req.num_computed_tokens // mgr.block_size)
        kv.evict_blocks({{blocks[i].block_id for i in range(first, last)}})
"""
OBJECT_PAIRS += [
    (
        "method-table-keyed-by-enum-members",
        STRATEGIES,
        "{Mode.ABORT: Evicting(), Mode.RESUME: Evicting()}[self.mode()].apply(kv, reqs)\n" + ABORT,
        "{Mode.ABORT: Evicting(), Mode.RESUME: Idle()}[self.mode()].apply(kv, reqs)\n" + ABORT,
        ["FT007"],
    ),
    (
        "divmod-of-the-boundary",
        "",
        LOOP.replace("blocks[confirmed // mgr.block_size:]", "blocks[divmod(confirmed, mgr.block_size)[0]:]").format(
            stop=""
        )
        + ABORT,
        LOOP.replace(
            "blocks[confirmed // mgr.block_size:]", "blocks[divmod(req.num_computed_tokens, mgr.block_size)[0]:]"
        ).format(stop="")
        + ABORT,
        ["FT007"],
    ),
    (
        "itertools-islice-from-the-boundary",
        "import itertools\n",
        LOOP.replace(
            "blocks[confirmed // mgr.block_size:]", "itertools.islice(blocks, confirmed // mgr.block_size, None)"
        ).format(stop="")
        + ABORT,
        LOOP.replace(
            "blocks[confirmed // mgr.block_size:]",
            "itertools.islice(blocks, req.num_computed_tokens // mgr.block_size, None)",
        ).format(stop="")
        + ABORT,
        ["FT007"],
    ),
    (
        "range-from-the-boundary",
        "",
        RANGE_LOOP.format(first="confirmed // mgr.block_size") + ABORT,
        RANGE_LOOP.format(first="-(-confirmed // mgr.block_size)") + ABORT,
        ["FT007"],
    ),
    (
        "module-level-pipeline-of-functions",
        PIPELINE,
        "for stage in PIPELINE:\n    stage(kv, reqs)\n" + ABORT,
        "for stage in IDLE:\n    stage(kv, reqs)\n" + ABORT,
        ["FT007"],
    ),
    (
        "block-ids-for-the-computed-tokens",
        "",
        "kv.evict_blocks(tail_ids(kv, reqs))\n" + ABORT,
        "for req in reqs:\n"
        "    ids = set().union(*kv.get_block_ids_for_computed_tokens(req.request_id, req.num_computed_tokens))\n"
        "    kv.evict_blocks(ids)\n" + ABORT,
        ["FT004"],
    ),
    (
        "removing-from-the-running-queue-while-iterating-it",
        "",
        "for req in list(sched.running):\n    kv.evict_blocks(tail_ids(kv, [req]))\n    sched.running.remove(req)\n"
        "    sched._preempt_request(req, 0.0)\n    req.num_in_flight_tokens = req.num_stale_output_tokens = 0",
        "for req in sched.running:\n    kv.evict_blocks(tail_ids(kv, [req]))\n    sched.running.remove(req)\n"
        "    sched._preempt_request(req, 0.0)\n    req.num_in_flight_tokens = req.num_stale_output_tokens = 0",
        ["FT007"],
    ),
]

OBJECT_PAIRS += [
    (
        "in-flight-set-to-0-first",
        "",
        "for req in reqs:\n    kv.evict_blocks(tail_ids(kv, [req]))\n    req.num_in_flight_tokens = 0\n" + ABORT,
        "for req in reqs:\n    req.num_in_flight_tokens = 0\n    kv.evict_blocks(tail_ids(kv, [req]))\n" + ABORT,
        ["FT007"],
    ),
]


# Requests named by their ids (thirteenth session, third part): ids kept in tuples, dicts of
# boundaries keyed by request id (a comprehension, or filled in the loop through
# `scheduler.requests[rid]`), `zip` over the groups, `defaultdict(set)` of ids per group.
MARKS = (
    "marks = [(r.request_id, r.num_computed_tokens - r.num_in_flight_tokens) for r in reqs]\n"
    "for rid, confirmed in marks:\n"
    "    for mgr in kv.coordinator.single_type_managers:\n"
    "        kv.evict_blocks({b.block_id for b in mgr.req_to_blocks.get(rid, [])[confirmed // mgr.block_size:]})\n"
)
BY_ID = (
    "bounds = {r.request_id: r.num_computed_tokens - r.num_in_flight_tokens for r in reqs}\n"
    "for rid, confirmed in bounds.items():\n"
    "    for mgr, ids in zip(kv.coordinator.single_type_managers, kv.get_block_ids(rid)):\n"
    "        kv.evict_blocks(set(ids[confirmed // mgr.block_size:]))\n"
)
FILLED = (
    "bounds = {}\n"
    "for rid in [r.request_id for r in sched.running]:\n"
    "    req = sched.requests[rid]\n"
    "    bounds[rid] = req.num_computed_tokens - req.num_in_flight_tokens\n" + BY_ID.split("\n", 1)[1]
)
PER_GROUP = (
    "by_group = collections.defaultdict(set)\n"
    "for req in reqs:\n"
    "    confirmed = req.num_computed_tokens - req.num_in_flight_tokens\n"
    "    for gid, mgr in enumerate(kv.coordinator.single_type_managers):\n"
    "        by_group[gid] |= {{b.block_id for b in mgr.req_to_blocks[req.request_id]{part}}}\n"
    "kv.evict_blocks(set(itertools.chain.from_iterable(by_group.values())))\n"
)
ZIPPED = (
    "for req in reqs:\n"
    "    confirmed = req.num_computed_tokens - req.num_in_flight_tokens\n"
    "    for mgr, size in zip(kv.coordinator.single_type_managers, {sizes}):\n"
    "        kv.evict_blocks({{b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // size:]}})\n"
)
_ITEMS = "for rid, confirmed in bounds.items():"  # where FILLED reads its dict back
OBJECT_PAIRS += [
    ("request-ids-kept-in-tuples", "", MARKS + ABORT, ABORT + "\n" + MARKS, ["FT006", "FT007"]),
    ("boundaries-by-request-id-in-a-dict", "", BY_ID + ABORT, ABORT + "\n" + BY_ID, ["FT006", "FT007"]),
    (
        "boundaries-filled-per-request-id",
        "",
        FILLED + ABORT,
        FILLED.replace(_ITEMS, ABORT + "\n" + _ITEMS),
        ["FT006", "FT007"],
    ),
    (
        "zip-of-the-groups",
        "",
        ZIPPED.format(sizes="[m.block_size for m in kv.coordinator.single_type_managers]") + ABORT,
        ZIPPED.format(sizes="(sched.block_size,)") + ABORT,
        ["FT007"],
    ),
    (
        "defaultdict-of-ids-per-group",
        "import collections\nimport itertools\n",
        PER_GROUP.format(part="[confirmed // mgr.block_size:]") + ABORT,
        PER_GROUP.format(part="") + ABORT,
        ["FT004"],
    ),
]


# Independent sets written this session in other backgrounds' styles (fourth part): an index
# over the running queue, a generator called as a statement, a block past the boundary, a
# getter mapped over blocks, a range check chained, records made in a comprehension, a dict
# of an entry per request tested empty, the last block only.
EVICT_GEN = """
def evict_gen(kv, reqs):
    for r in reqs:
        kv.evict_blocks(tail_ids(kv, [r]))
        yield r
"""
SPANS = """
import typing


class Span(typing.NamedTuple):
    request_id: str
    first: int
"""
SPAN_COMP = (
    "spans = [Span(r.request_id, {boundary} // 16) for r in reqs]\n"
    "for s in spans:\n"
    "    for mgr in kv.coordinator.single_type_managers:\n"
    "        kv.evict_blocks({{b.block_id for b in mgr.req_to_blocks[s.request_id][s.first:]}})\n"
)
EMPTY_BOUNDS = """
def evict_tails(kv, reqs, engine):
    bounds = {r.request_id: r.num_computed_tokens - r.num_in_flight_tokens for r in reqs}
    if TEST:
        return
    kv.evict_blocks(tail_ids(kv, reqs))
"""
INDEXED = "i = 0\nwhile i < len(sched.running):\n    req = sched.running[{at}]\n    kv.evict_blocks(tail_ids(kv, [req]))\n    i += 1\n"
RANGED = "for i in range({stop}):\n    kv.evict_blocks(tail_ids(kv, [sched.running[i]]))\n"
OBJECT_PAIRS += [
    ("index-over-the-running-queue", "", INDEXED.format(at="i") + ABORT, INDEXED.format(at="0") + ABORT, ["FT007"]),
    (
        "range-over-the-running-queue",
        "",
        RANGED.format(stop="len(sched.running)") + ABORT,
        RANGED.format(stop="len(sched.running) - 1") + ABORT,
        ["FT007"],
    ),
    (
        "generator-called-as-a-statement",
        EVICT_GEN,
        "for _ in evict_gen(kv, reqs):\n    pass\n" + ABORT,
        "evict_gen(kv, reqs)\n" + ABORT,
        ["FT007"],
    ),
    (
        "one-block-past-the-boundary",
        "",
        LOOP.format(stop="") + ABORT,
        LOOP.replace("blocks[confirmed // mgr.block_size:]", "blocks[confirmed // mgr.block_size + 1:]").format(stop="")
        + ABORT,
        ["FT007"],
    ),
    (
        "getter-mapped-over-filtered-blocks",
        "import operator\n",
        LOOP.replace(
            "{{b.block_id for b in blocks[confirmed // mgr.block_size:]}}",
            'set(map(operator.attrgetter("block_id"), filter(lambda b: not b.is_null, blocks[confirmed // mgr.block_size:])))',
        ).format(stop="")
        + ABORT,
        LOOP.replace(
            "{{b.block_id for b in blocks[confirmed // mgr.block_size:]}}",
            'set(map(operator.attrgetter("block_id"), filter(lambda b: not b.is_null, blocks)))',
        ).format(stop="")
        + ABORT,
        ["FT004"],
    ),
    (
        "range-check-chained-on-block-ids",
        "",
        LOOP.replace(
            "b.block_id for b in blocks[confirmed // mgr.block_size:]",
            "i for i in [b.block_id for b in blocks[confirmed // mgr.block_size:]] if i >= 0",
        ).format(stop="")
        + ABORT,
        LOOP.replace(
            "b.block_id for b in blocks[confirmed // mgr.block_size:]",
            "i for i in [b.block_id for b in blocks[confirmed // mgr.block_size:]] if 0 <= i < len(blocks)",
        ).format(stop="")
        + ABORT,
        ["FT007"],
    ),
    (
        "records-made-in-a-comprehension",
        SPANS,
        SPAN_COMP.format(boundary="(r.num_computed_tokens - r.num_in_flight_tokens)") + ABORT,
        SPAN_COMP.format(boundary="r.num_computed_tokens") + ABORT,
        ["FT007"],
    ),
    (
        "dict-of-an-entry-per-request-tested-empty",
        EMPTY_BOUNDS.replace("TEST", "not bounds")
        + EMPTY_BOUNDS.replace("TEST", "engine.flag").replace("evict_tails", "evict_unless"),
        "evict_tails(kv, reqs, self.engine)\n" + ABORT,
        "evict_unless(kv, reqs, self.engine)\n" + ABORT,
        ["FT007"],
    ),
    (
        "last-block-only",
        "",
        LOOP.format(stop="") + ABORT,
        LOOP.replace("{{b.block_id for b in blocks[confirmed // mgr.block_size:]}}", "{{blocks[-1].block_id}}").format(
            stop=""
        )
        + ABORT,
        ["FT007"],
    ),
]

OBJECT_PAIRS += [
    (
        "itemgetter-of-the-first-group",
        "import operator\n\n_first = operator.itemgetter(0)\n_second = operator.itemgetter(1)\n",
        "for req in reqs:\n    confirmed = req.num_computed_tokens - req.num_in_flight_tokens\n"
        "    for mgr, ids in zip(kv.coordinator.single_type_managers, kv.get_block_ids(req.request_id)):\n"
        "        kv.evict_blocks(set(ids[confirmed // mgr.block_size:]))\n"
        "    _second(kv.get_block_ids(req.request_id))\n" + ABORT,
        "for req in reqs:\n    confirmed = req.num_computed_tokens - req.num_in_flight_tokens\n"
        "    ids = _first(kv.get_block_ids(req.request_id))\n"
        "    kv.evict_blocks(set(ids[confirmed // _first(kv.coordinator.single_type_managers).block_size:]))\n" + ABORT,
        ["FT007"],
    ),
]


PHASES = """
import enum


class Phase(enum.Enum):
    EVICT = enum.auto()
    ABORT = enum.auto()
    DONE = enum.auto()
"""
MACHINE = """\
phase = {first}
while phase is not Phase.DONE:
    if phase is Phase.EVICT:
        kv.evict_blocks(tail_ids(kv, reqs))
        phase = Phase.ABORT
    elif phase is Phase.ABORT:
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        phase = Phase.DONE
"""
WHOLE_EVICTOR = """
class WholeEvictor:
    def __init__(self, kv):
        self.kv = kv

    def evict(self, reqs):
        self.kv.evict_blocks({start})
"""
INDEXED = """\
ids = set()
for req in reqs:
    confirmed = req.num_computed_tokens - req.num_in_flight_tokens
    for mgr in kv.coordinator.single_type_managers:
        blocks = mgr.req_to_blocks[req.request_id]
        j = {first}
        while j < len(blocks):
            ids.add(blocks[j].block_id)
            j += 1
kv.evict_blocks(ids)
"""
STOPPING = """\
for req in reqs:
    kv.evict_blocks(tail_ids(kv, [req]))
    if isinstance(exc, TimeoutError):
        {stop}
"""
OBJECT_PAIRS += [
    (
        "flag-testing-the-ids-evicted",
        "",
        f"ids = set(self.engine.dirty_ids(kv, reqs))\nok = len(ids) > 0\nif ok:\n    kv.evict_blocks(ids)\n{ABORT}",
        f"ids = set(self.engine.dirty_ids(kv, reqs))\nok = isinstance(exc, TimeoutError)\nif ok:\n"
        f"    kv.evict_blocks(ids)\n{ABORT}",
        ["FT007"],
    ),
    (
        "length-test-of-an-attribute-evicted",
        "",
        f"self.dirty = set(self.engine.dirty_ids(kv, reqs))\nif len(self.dirty) != 0:\n"
        f"    kv.evict_blocks(self.dirty)\n{ABORT}",
        f"self.dirty = set(self.engine.dirty_ids(kv, reqs))\nif len(self.dirty) != 0 and self.engine.busy:\n"
        f"    kv.evict_blocks(self.dirty)\n{ABORT}",
        ["FT007"],
    ),
    (
        "enum-state-machine",
        PHASES,
        MACHINE.format(first="Phase.EVICT"),
        MACHINE.format(first="Phase.ABORT"),
        ["FT007"],
    ),
    (
        "enum-state-picked-by-a-flag",
        PHASES,
        MACHINE.format(first="Phase.EVICT if isinstance(exc, TimeoutError) else Phase.EVICT"),
        MACHINE.format(first="Phase.EVICT if isinstance(exc, TimeoutError) else Phase.ABORT"),
        ["FT007"],
    ),
    (
        "object-made-and-used-at-once",
        WHOLE_EVICTOR.format(start="tail_ids(self.kv, reqs)"),
        f"WholeEvictor(kv).evict(reqs)\n{ABORT}",
        f"WholeEvictor(kv).evict(reqs)\n{ABORT}",
        ["FT004"],
    ),
    (
        "while-index-over-a-block-list",
        "",
        INDEXED.format(first="confirmed // mgr.block_size") + ABORT,
        INDEXED.format(first="0") + ABORT,
        ["FT004"],
    ),
    (
        "module-level-number-in-the-boundary",
        "MARGIN = 0\n",
        LOOP.format(stop="").replace("confirmed // mgr.block_size", "confirmed // mgr.block_size - MARGIN") + ABORT,
        LOOP.format(stop="").replace("confirmed // mgr.block_size", "confirmed // mgr.block_size - MARGIN") + ABORT,
        ["FT004"],
    ),
    (
        "break-out-of-the-request-loop",
        "",
        STOPPING.format(stop="continue") + ABORT,
        STOPPING.format(stop="break") + ABORT,
        ["FT007"],
    ),
]


BUILDER = """
class Plan:
    def __init__(self, steps):
        self.steps = steps

    def run(self):
        for step in self.steps:
            step()


class PlanBuilder:
    def __init__(self, sched):
        self.sched = sched
        self.steps = []

    def with_eviction(self):
        self.steps.append(self._evict)
        return self

    def with_abort(self):
        self.steps.append(self._abort)
        return self

    def build(self):
        return Plan(list(self.steps))

    def _evict(self):
        kv = self.sched.kv_cache_manager
        kv.evict_blocks(tail_ids(kv, self.sched.running))

    def _abort(self):
        self.sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
"""
CONTEXT = """
class Ctx:
    def __init__(self, kv, reqs):
        self.kv = kv
        self.reqs = reqs


def evict_from(ctx):
    ctx.kv.evict_blocks(tail_ids(ctx.kv, ctx.reqs))
"""
OBJECT_PAIRS += [
    (
        "builder-assembling-steps",
        BUILDER,
        "PlanBuilder(sched).with_eviction().with_abort().build().run()",
        "PlanBuilder(sched).with_abort().build().run()",
        ["FT007"],
    ),
    (
        "context-object-filled-by-its-init",
        CONTEXT,
        f"evict_from(Ctx(kv, reqs))\n{ABORT}",
        f"evict_from(Ctx(kv, [reqs[0]]))\n{ABORT}",
        ["FT007"],
    ),
]


PIPELINE = """
import dataclasses


@dataclasses.dataclass
class Ctx:
    sched: object
    reqs: list = dataclasses.field(default_factory=list)
    ids: set = dataclasses.field(default_factory=set)


def gather(ctx):
    ctx.reqs = list(ctx.sched.running)
    return ctx


def settle(ctx):
    for req in ctx.reqs:
        req.num_in_flight_tokens = 0
    return ctx


def mark(ctx):
    kv = ctx.sched.kv_cache_manager
    ctx.ids.update(tail_ids(kv, ctx.reqs))
    kv.evict_blocks(ctx.ids)
    return ctx


def drop(ctx):
    ctx.sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
    return ctx


STAGES = (gather, mark, drop)
SETTLED_FIRST = (gather, settle, mark, drop)
"""
PER_GROUP = (
    "per_group = [\n"
    "    [b.block_id for r in reqs for b in mgr.req_to_blocks[r.request_id]{part}]\n"
    "    for mgr in kv.coordinator.single_type_managers\n"
    "]\n"
    "kv.evict_blocks(set(functools.reduce(lambda a, b: a + b, per_group, [])))\n"
)
ZEROED = "for req in reqs:\n    req.num_in_flight_tokens = 0\n"
OBJECT_PAIRS += [
    (
        "option-read-with-its-default",
        "",
        f'if self.engine.cfg.get("evict", True):\n    kv.evict_blocks(tail_ids(kv, reqs))\n{ABORT}',
        f'if self.engine.cfg.get("evict", False):\n    kv.evict_blocks(tail_ids(kv, reqs))\n{ABORT}',
        ["FT007"],
    ),
    (
        "module-level-dict-of-options",
        'OPTIONS = {"margin": 0, "status": RequestStatus.FINISHED_ABORTED}\n',
        LOOP.format(stop="").replace(
            "confirmed // mgr.block_size", 'confirmed // mgr.block_size - OPTIONS.get("margin", 0)'
        )
        + ABORT,
        LOOP.format(stop="").replace(
            "confirmed // mgr.block_size", 'confirmed // mgr.block_size - OPTIONS.get("margin", 0)'
        )
        + ABORT,
        ["FT004"],
    ),
    (
        "stages-reduced-over-a-context-record",
        PIPELINE,
        "functools.reduce(lambda c, stage: stage(c), STAGES, Ctx(sched))",
        "functools.reduce(lambda c, stage: stage(c), SETTLED_FIRST, Ctx(sched))",
        ["FT007"],
    ),
    (
        "counters-zeroed-in-a-loop-before-the-boundary",
        "",
        f"kv.evict_blocks(tail_ids(kv, reqs))\n{ZEROED}{ABORT}",
        f"{ZEROED}kv.evict_blocks(tail_ids(kv, reqs))\n{ABORT}",
        ["FT007"],
    ),
    (
        "reduce-uniting-per-group-ids",
        "",
        PER_GROUP.format(part="[(r.num_computed_tokens - r.num_in_flight_tokens) // mgr.block_size:]") + ABORT,
        PER_GROUP.format(part="") + ABORT,
        ["FT004"],
    ),
]


SETTINGS = """
import dataclasses
import math
import os

from vllm.v1.request import Request

EVICT = os.environ.get("FT_EVICT", "{flag}") == "1"


@dataclasses.dataclass
class Settings:
    evict: bool = {flag_field}

    @classmethod
    def from_env(cls):
        return cls(evict=os.environ.get("FT_EVICT", "{word}").strip().lower() in ("1", "yes", "true"))


def scrub(sched, reqs):
    kv = getattr(sched, "{manager}", None)
    if kv is None:
        return
    kv.evict_blocks(tail_ids(kv, reqs))


def groups_of(kv, first):
    managers = kv.coordinator.single_type_managers
    if not managers:
        return None
    return managers[0] if first else managers
"""
GOOD_SETTINGS = SETTINGS.format(flag="1", flag_field="True", word="yes", manager="kv_cache_manager")
BAD_SETTINGS = SETTINGS.format(flag="0", flag_field="False", word="no", manager="kv_manager")
GATED = "if {test}:\n    kv.evict_blocks(tail_ids(kv, reqs))\n" + ABORT
PROBED = """\
found = groups_of(kv, {first})
if found is None:
    return
groups = [found] if {first} else found
for mgr in groups:
    for req in reqs:
        blocks = mgr.req_to_blocks[req.request_id]
        kv.evict_blocks({{b.block_id for b in blocks[(req.num_computed_tokens - req.num_in_flight_tokens) // mgr.block_size:]}})
"""
ROUNDED = {
    rounding: LOOP.format(stop="").replace(
        "confirmed // mgr.block_size", f"math.{rounding}(confirmed / mgr.block_size)"
    )
    for rounding in ("floor", "ceil")
}
OBJECT_PAIRS += [
    (
        "environment-flag-with-its-default",
        GOOD_SETTINGS,
        GATED.format(test="EVICT"),
        GATED.format(test="EVICT"),
        ["FT007"],
    ),
    (
        "record-field-with-a-literal-default",
        GOOD_SETTINGS,
        GATED.format(test="Settings().evict"),
        GATED.format(test="Settings().evict"),
        ["FT007"],
    ),
    (
        "settings-read-from-the-environment",
        GOOD_SETTINGS,
        GATED.format(test="Settings.from_env().evict"),
        GATED.format(test="Settings.from_env().evict"),
        ["FT007"],
    ),
    (
        "hasattr-probe-of-the-api",
        "",
        GATED.format(test='hasattr(kv, "evict_blocks")'),
        GATED.format(test='hasattr(kv, "evict_tail_blocks")'),
        ["FT007"],
    ),
    (
        "api-object-probed-for-none",
        GOOD_SETTINGS,
        f"scrub(sched, reqs)\n{ABORT}",
        f"scrub(sched, reqs)\n{ABORT}",
        ["FT007"],
    ),
    (
        "isinstance-of-a-request",
        GOOD_SETTINGS,
        f"for req in reqs:\n    if not isinstance(req, Request):\n        continue\n    kv.evict_blocks(tail_ids(kv, [req]))\n{ABORT}",
        f"for req in reqs:\n    if not isinstance(exc, TimeoutError):\n        continue\n    kv.evict_blocks(tail_ids(kv, [req]))\n{ABORT}",
        ["FT007"],
    ),
    (
        "ceiling-of-the-block-ratio",
        GOOD_SETTINGS,
        ROUNDED["floor"] + ABORT,
        ROUNDED["ceil"] + ABORT,
        ["FT007"],
    ),
    (
        "group-probed-for-none",
        GOOD_SETTINGS,
        PROBED.format(first="False") + ABORT,
        PROBED.format(first="True") + ABORT,
        ["FT007"],
    ),
]


#: the cases whose twin differs in the code above the handler, not in its body
_BAD_TOPS = {
    "object-made-and-used-at-once": WHOLE_EVICTOR.format(start="{b.block_id for r in reqs for b in r.get_blocks()}"),
    "module-level-number-in-the-boundary": "MARGIN = 1\n",
    "environment-flag-with-its-default": BAD_SETTINGS,
    "record-field-with-a-literal-default": BAD_SETTINGS,
    "settings-read-from-the-environment": BAD_SETTINGS,
    "api-object-probed-for-none": BAD_SETTINGS,
    "module-level-dict-of-options": 'OPTIONS = {"margin": 1, "status": RequestStatus.FINISHED_ABORTED}\n',
}


LATE = """\
import itertools
import logging

logger = logging.getLogger(__name__)
FULL = 0


def late_ids(kv, reqs):
    return {
        b.block_id
        for req in reqs
        for mgr in kv.coordinator.single_type_managers
        for b in mgr.req_to_blocks[req.request_id][req.num_computed_tokens // mgr.block_size:]
    }


def pair_ids(req, mgr):
    return {b.block_id for b in mgr.req_to_blocks[req.request_id][(req.num_computed_tokens - req.num_in_flight_tokens) // mgr.block_size:]}


def pair_late(req, mgr):
    return {b.block_id for b in mgr.req_to_blocks[req.request_id][req.num_computed_tokens // mgr.block_size:]}


class Book:
    def __init__(self):
        self.ids = set()
        self.count = 0

    def add(self, ids):
        self.ids |= ids
        self.count += len(ids)
"""
PER_GROUP = """\
ids = set()
for req in reqs:
    confirmed = req.num_computed_tokens - req.num_in_flight_tokens
    for mgr in {managers}:
        blocks = mgr.req_to_blocks[req.request_id]
        first = confirmed // mgr.block_size
{inner}
kv.evict_blocks(ids)
"""
POSITIONS = """\
        for b in range(len(blocks)):
            end = (b + 1) * mgr.block_size
            if {test}:
                ids.add(blocks[b].block_id)"""
COUNTED = """\
        pos = 0
        for block in blocks:
            if {test}:
                ids.add(block.block_id)
            pos += 1"""
ALL_GROUPS = "kv.coordinator.single_type_managers"
TAILS_MAPPED = "set(itertools.chain.from_iterable(map(lambda r: {fn}(kv, [r]), reqs)))"
PAIRS_MAPPED = f"set().union(*itertools.starmap({{fn}}, itertools.product(reqs, {ALL_GROUPS})))"
SPANS = "(spans := [(r, r.num_computed_tokens - r.num_in_flight_tokens) for r in reqs])"
OBJECT_PAIRS += [
    (
        "slice-of-the-queue-leaving-one-out",
        LATE,
        f"kv.evict_blocks(tail_ids(kv, sched.running[:]))\n{ABORT}",
        f"kv.evict_blocks(tail_ids(kv, sched.running[:-1]))\n{ABORT}",
        ["FT007"],
    ),
    (
        "slice-of-the-queue-to-its-length-less-one",
        LATE,
        f"kv.evict_blocks(tail_ids(kv, [r for r in sched.running[: len(sched.running)]]))\n{ABORT}",
        f"kv.evict_blocks(tail_ids(kv, [r for r in sched.running[: len(sched.running) - 1]]))\n{ABORT}",
        ["FT007"],
    ),
    (
        "first-request-and-the-rest",
        LATE,
        f"kv.evict_blocks(tail_ids(kv, [sched.running[0]]))\nkv.evict_blocks(tail_ids(kv, sched.running[1:]))\n{ABORT}",
        f"kv.evict_blocks(tail_ids(kv, sched.running[1:]))\n{ABORT}",
        ["FT007"],
    ),
    (
        "position-filter-on-token-numbers",
        LATE,
        PER_GROUP.format(managers=ALL_GROUPS, inner=POSITIONS.format(test="end > confirmed")) + ABORT,
        PER_GROUP.format(managers=ALL_GROUPS, inner=POSITIONS.format(test="not blocks[b].is_null")) + ABORT,
        ["FT004"],
    ),
    (
        "position-counted-by-hand",
        LATE,
        PER_GROUP.format(managers=ALL_GROUPS, inner=COUNTED.format(test="pos >= first")) + ABORT,
        PER_GROUP.format(managers=ALL_GROUPS, inner=COUNTED.format(test="block is not None")) + ABORT,
        ["FT004"],
    ),
    (
        "count-kept-beside-the-ids",
        LATE,
        f"book = Book()\nbook.add(tail_ids(kv, reqs))\nif book.count > 0:\n    kv.evict_blocks(book.ids)\n{ABORT}",
        f"book = Book()\nbook.add(tail_ids(kv, reqs))\nif self.resume:\n    kv.evict_blocks(book.ids)\n{ABORT}",
        ["FT007"],
    ),
    (
        "ids-printed-and-logged",
        LATE,
        f'ids = tail_ids(kv, reqs)\nprint(ids)\nlogger.warning("%s", ids)\nkv.evict_blocks(ids)\n{ABORT}',
        f'ids = tail_ids(kv, reqs)\nprint(ids)\nlogger.warning("%s", ids)\n{ABORT}',
        ["FT007"],
    ),
    (
        "group-picked-by-a-module-constant",
        LATE,
        PER_GROUP.format(managers=ALL_GROUPS, inner="        ids |= {b.block_id for b in blocks[first:]}") + ABORT,
        PER_GROUP.format(managers=f"[{ALL_GROUPS}[FULL]]", inner="        ids |= {b.block_id for b in blocks[first:]}")
        + ABORT,
        ["FT007"],
    ),
    (
        "length-of-the-ids-tested",
        LATE,
        f"ids = tail_ids(kv, reqs)\nif len(ids) == 0:\n    pass\nelse:\n    kv.evict_blocks(ids)\n{ABORT}",
        f"ids = tail_ids(kv, reqs)\nif len(ids) > 0:\n    pass\nelse:\n    kv.evict_blocks(ids)\n{ABORT}",
        ["FT007"],
    ),
    (
        "function-mapped-over-the-requests",
        LATE,
        f"kv.evict_blocks({TAILS_MAPPED.format(fn='tail_ids')})\n{ABORT}",
        f"kv.evict_blocks({TAILS_MAPPED.format(fn='late_ids')})\n{ABORT}",
        ["FT007"],
    ),
    (
        "starmap-over-requests-and-groups",
        LATE,
        f"kv.evict_blocks({PAIRS_MAPPED.format(fn='pair_ids')})\n{ABORT}",
        f"kv.evict_blocks({PAIRS_MAPPED.format(fn='pair_late')})\n{ABORT}",
        ["FT007"],
    ),
    (
        "first-group-sliced",
        LATE,
        PER_GROUP.format(managers=f"{ALL_GROUPS}[:]", inner="        ids |= {b.block_id for b in blocks[first:]}")
        + ABORT,
        PER_GROUP.format(managers=f"{ALL_GROUPS}[:1]", inner="        ids |= {b.block_id for b in blocks[first:]}")
        + ABORT,
        ["FT007"],
    ),
    (
        "first-group-by-islice",
        LATE,
        PER_GROUP.format(
            managers=f"itertools.islice({ALL_GROUPS}, 2)", inner="        ids |= {b.block_id for b in blocks[first:]}"
        )
        + ABORT,
        PER_GROUP.format(
            managers=f"itertools.islice({ALL_GROUPS}, 1)", inner="        ids |= {b.block_id for b in blocks[first:]}"
        )
        + ABORT,
        ["FT007"],
    ),
    (
        "list-made-per-request-tested",
        LATE,
        f"if {SPANS}:\n    kv.evict_blocks(tail_ids(kv, reqs))\n{ABORT}",
        f"if not {SPANS}:\n    kv.evict_blocks(tail_ids(kv, reqs))\n{ABORT}",
        ["FT007"],
    ),
]


PHASES = """\
def has_output(request):
    \"\"\"Past its prefill.\"\"\"
    return request.num_output_tokens > 0


def in_flight(request):
    return request.num_in_flight_tokens > 0


class Abort:
    def release(self, sched, reqs):
        sched.finish_requests([r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED)


class Preempt:
    def release(self, sched, reqs):
        sched.running = []
        for r in reversed(reqs):
            r.num_in_flight_tokens = 0
            sched._preempt_request(r, 0)


def make_release(resume):
    return Preempt() if resume else Abort()
"""
FLAGGED = """\
ids = set()
for req in reqs:
    skip = False
    if {test}:
        skip = True
    if skip == True:
        pass
    else:
        ids |= tail_ids(kv, [req])
kv.evict_blocks(ids)
"""
FIRST_ONLY = (
    "first = kv.coordinator.single_type_managers[0]\n"
    "kv.evict_blocks({b.block_id for r in reqs for b in first.req_to_blocks[r.request_id]"
    "[(r.num_computed_tokens - r.num_in_flight_tokens) // first.block_size:]})"
)
OBJECT_PAIRS += [
    (
        "skip-flag-set-by-a-test-of-the-request",
        PHASES,
        FLAGGED.format(test="req.num_in_flight_tokens == 0") + ABORT,
        FLAGGED.format(test="req.num_output_tokens == 0") + ABORT,
        ["FT007"],
    ),
    (
        "skip-on-the-request-phase",
        PHASES,
        f"for req in reqs:\n    if req.num_computed_tokens == 0:\n        continue\n    kv.evict_blocks(tail_ids(kv, [req]))\n{ABORT}",
        f"for req in reqs:\n    if req.num_computed_tokens <= req.num_prompt_tokens:\n        continue\n    kv.evict_blocks(tail_ids(kv, [req]))\n{ABORT}",
        ["FT007"],
    ),
    (
        "filter-on-the-request-phase",
        PHASES,
        f"kv.evict_blocks(tail_ids(kv, list(filter(in_flight, reqs))))\n{ABORT}",
        f"kv.evict_blocks(tail_ids(kv, list(filter(has_output, reqs))))\n{ABORT}",
        ["FT007"],
    ),
    (
        "comprehension-on-the-request-phase",
        PHASES,
        f"kv.evict_blocks(tail_ids(kv, [r for r in reqs if r.num_in_flight_tokens > 0]))\n{ABORT}",
        f"kv.evict_blocks(tail_ids(kv, [r for r in reqs if r.num_output_tokens > 0]))\n{ABORT}",
        ["FT007"],
    ),
]


WHILE_POSITIONS = """\
stop = False
while True:
    if len(sched.running) == 0:
        stop = True
    if stop:
        break
    req = sched.running.pop()
    bad = set()
    for mgr in kv.coordinator.single_type_managers:
        blocks = mgr.req_to_blocks.get(req.request_id)
        if blocks != None:
            i = {first} // mgr.block_size
            while i < len(blocks):
                bad.add(blocks[i].block_id)
                i = i + 1
    if len(bad) > 0:
        kv.evict_blocks(bad)
    sched._preempt_request(req, 0)
    req.num_in_flight_tokens = 0
    req.num_stale_output_tokens = 0
"""
CONFIRMED = "(req.num_computed_tokens - req.num_in_flight_tokens)"
OBJECT_PAIRS += [
    (
        "boundary-rounded-up-by-adding-a-block",
        LATE,
        PER_GROUP.format(managers=ALL_GROUPS, inner="        ids |= {b.block_id for b in blocks[first:]}") + ABORT,
        PER_GROUP.format(
            managers=ALL_GROUPS,
            inner="        ids |= {b.block_id for b in blocks[(confirmed + mgr.block_size - 1) // mgr.block_size:]}",
        )
        + ABORT,
        ["FT007"],
    ),
    (
        "positions-walked-by-a-while-counter",
        LATE,
        WHILE_POSITIONS.format(first=CONFIRMED),
        WHILE_POSITIONS.format(first=f"({CONFIRMED} + mgr.block_size - 1)"),
        ["FT007"],
    ),
]


COPIED = """\
saved = []
for i in range(len(sched.running)):
    saved.append(sched.running[i])
{before}
ids = set()
for i in range(len(saved)):
    req = saved[i]
    confirmed = req.num_computed_tokens - req.num_in_flight_tokens
    for mgr in kv.coordinator.single_type_managers:
        ids |= {{b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]}}
kv.evict_blocks(ids)
{after}
"""
OPTION = "def evict_on():\n    return {value}\n"
OFF_OR_TAILS = f"doomed = tail_ids(kv, reqs) if evict_on() else set()\nif doomed:\n    kv.evict_blocks(doomed)\n{ABORT}"
OBJECT_PAIRS += [
    (
        "requests-copied-by-appending",
        LATE,
        COPIED.format(before="", after=ABORT),
        COPIED.format(before=ABORT, after=""),
        ["FT006", "FT007"],
    ),
    ("option-off-leaves-the-ids-empty", OPTION.format(value="True"), OFF_OR_TAILS, OFF_OR_TAILS, ["FT007"]),
]
NAMESPACE = (
    "import types\n\nutils = types.SimpleNamespace(\n"
    "    evict=lambda kv, reqs: kv.evict_blocks(tail_ids(kv, reqs)),\n"
    "    count=lambda kv, reqs: len(reqs),\n)\nopts = types.SimpleNamespace(evict={evict})\n"
)
OBJECT_PAIRS += [
    (
        "function-kept-in-a-simple-namespace",
        NAMESPACE.format(evict="True"),
        f"utils.evict(kv, reqs)\n{ABORT}",
        f"utils.count(kv, reqs)\n{ABORT}",
        ["FT007"],
    ),
    (
        "flag-kept-in-a-simple-namespace",
        NAMESPACE.format(evict="True"),
        f"if opts.evict:\n    kv.evict_blocks(tail_ids(kv, reqs))\n{ABORT}",
        f"if opts.evict:\n    kv.evict_blocks(tail_ids(kv, reqs))\n{ABORT}",
        ["FT007"],
    ),
]
FLUSH = "def flush(kv, ids):\n    if {test}:\n        return 0\n    kv.evict_blocks(ids)\n    return 1\n"
OBJECT_PAIRS += [
    (
        "early-return-when-unknown-ids-are-empty",
        FLUSH.format(test="not (n := len(ids))"),
        f"flush(kv, self.engine.collected())\n{ABORT}",
        f"flush(kv, self.engine.collected())\n{ABORT}",
        ["FT007"],
    ),
]
STACKED = "with contextlib.ExitStack() as stack:\n    stack.callback({first})\n    stack.callback({second})\n"
FREE_ALL = "sched.finish_requests, None, RequestStatus.FINISHED_ABORTED"
OBJECT_PAIRS += [
    (
        "callbacks-of-an-exit-stack",
        "def evict_tails(kv, reqs):\n    kv.evict_blocks(tail_ids(kv, reqs))\n",
        STACKED.format(first=FREE_ALL, second="evict_tails, kv, reqs"),  # unwound last first: evicts first
        STACKED.format(first="evict_tails, kv, reqs", second=FREE_ALL),
        ["FT006", "FT007"],
    ),
]
_BAD_TOPS_LATER = {
    "early-return-when-unknown-ids-are-empty": FLUSH.format(test="ids"),
    "option-off-leaves-the-ids-empty": OPTION.format(value="False"),
    "flag-kept-in-a-simple-namespace": NAMESPACE.format(evict="False"),
}


@pytest.mark.parametrize(("name", "top", "good", "bad", "codes"), OBJECT_PAIRS, ids=[p[0] for p in OBJECT_PAIRS])
def test_eviction_through_objects_and_unknown_callees(tmp_path, name, top, good, bad, codes):
    attrs = PROPERTY if name.startswith("property") else MODE if name.startswith("method-table") else ""
    assert _codes(tmp_path / "good", good, top=top, attrs=attrs) == []
    bad_top = "" if name == "callable-computed-at-run-time" else top  # no project function evicts there
    bad_top = _BAD_TOPS.get(name, _BAD_TOPS_LATER.get(name, bad_top))
    assert _codes(tmp_path / "bad", bad, top=bad_top, attrs=attrs) == codes


STEPS = """\
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.resume = False
        self.steps = [{steps}]

    def _evict(self):
        kv = self.engine.scheduler.kv_cache_manager
        for req in self.engine.scheduler.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks[req.request_id]
                kv.evict_blocks({{b.block_id for b in blocks[confirmed // mgr.block_size:]}})

    def _abort(self):
        self.engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)

    def on_fault(self, exc):
        if self.resume:
            {resume}
        for step in self.steps:
            step()
"""


@pytest.mark.parametrize(
    ("steps", "resume", "codes"),
    [
        ("self._evict, self._abort", "return", []),
        ("self._abort", "return", ["FT007"]),
        # a flag `__init__` sets may be flipped from outside (a switch): both paths are walked
        ("self._evict, self._abort", "self._abort(); return", ["FT007"]),
    ],
    ids=["evict-then-abort", "abort-only", "init-flag-is-a-switch"],
)
def test_callables_listed_in_init_run_in_order(tmp_path, steps, resume, codes):
    """`self.steps = [self._evict, self._abort]` in `__init__`, run by `for step in self.steps:
    step()`: each in turn, in order (the free reported in the method that frees). A flag set
    there is not taken as its value: the path where it is flipped is walked too."""
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    (tmp_path / "handler.py").write_text(STEPS.format(steps=steps, resume=resume))
    result = lint_paths([Path("handler.py")], load_config(tmp_path), set(known_codes()), cwd=tmp_path)
    assert not result.internal_errors, result.internal_errors
    assert sorted(f.code for f in result.findings if f.code in ("FT004", "FT006", "FT007")) == codes


SCRUBBER = """\
class Scrubber:
    def __init__(self, kv):
        self.kv = kv

    def scrub(self, req):
        ids = {{b.block_id for mgr in self.kv.coordinator.single_type_managers
               for b in mgr.req_to_blocks[req.request_id]{part}}}
        self.kv.evict_blocks(ids)
"""


MADE_HERE = (
    "from scrubber import Scrubber\n\n\nclass FaultHandler:\n    def on_fault(self, exc):\n"
    "        kv = self.engine.scheduler.kv_cache_manager\n        scrubber = Scrubber(kv)\n"
    "        for req in self.engine.scheduler.running:\n            scrubber.scrub(req)\n"
)
MADE_IN_INIT = (
    "from scrubber import Scrubber\n\n\nclass FaultHandler:\n    def __init__(self, engine):\n"
    "        self.engine = engine\n        self.scrubber = Scrubber(engine.scheduler.kv_cache_manager)\n\n"
    "    def on_fault(self, exc):\n        for req in self.engine.scheduler.running:\n"
    "            self.scrubber.scrub(req)\n"
)


@pytest.mark.parametrize("handler", [MADE_HERE, MADE_IN_INIT], ids=["local", "made-in-init"])
@pytest.mark.parametrize(
    ("part", "codes"),
    [("[(req.num_computed_tokens - req.num_in_flight_tokens) // mgr.block_size:]", []), ("", ["FT004"])],
    ids=["tail", "every-block"],
)
def test_method_of_an_object_made_in_the_handler_is_in_the_fault_path(tmp_path, part, codes, handler):
    """`scrubber = Scrubber(kv)` then `scrubber.scrub(req)` (or `self.scrubber`, made in
    `__init__`): `Scrubber.scrub`, in another module, is fault-path code (its broad eviction
    is reported there)."""
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    (tmp_path / "scrubber.py").write_text(SCRUBBER.format(part=part))
    (tmp_path / "handler.py").write_text(handler)
    result = lint_paths([Path(".")], load_config(tmp_path), set(known_codes()), cwd=tmp_path)
    assert not result.internal_errors, result.internal_errors
    assert sorted((Path(f.path).name, f.code) for f in result.findings if f.code == "FT004") == [
        ("scrubber.py", c) for c in codes
    ]


RESUME_COUNTERS = """\
import time


def reset(req):
    req.num_in_flight_tokens = 0
    req.num_stale_output_tokens = 0


def note(req):
    return req.request_id


def zero_all(reqs):
    if reqs:
        reqs[0].num_in_flight_tokens = 0
        reqs[0].num_stale_output_tokens = 0
        zero_all(reqs[1:])


def count_all(reqs):
    if reqs:
        note(reqs[0])
        count_all(reqs[1:])


class FaultHandler:
    def on_fault(self, exc):
        sched = self.engine.scheduler
        reqs = list(sched.running)
        sched.running = []
        for req in reqs:
            sched._preempt_request(req, time.monotonic())
        {after}
"""


@pytest.mark.parametrize(
    ("after", "codes"),
    [
        ("list(map(reset, reqs))", []),
        ("list(map(note, reqs))", ["FT008"]),
        ("zero_all(reqs)", []),
        ("count_all(reqs)", ["FT008"]),
    ],
    ids=["helper-mapped-resets", "helper-mapped-does-not", "recursion-resets", "recursion-does-not"],
)
def test_counters_reset_by_a_helper_the_walk_does_not_follow_per_request(tmp_path, after, codes):
    """A helper that sets the counters to 0, mapped over the requests (`map(reset, reqs)`) or
    recursing over them, may reset every request's: no FT008; one that sets none, FT008."""
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    (tmp_path / "handler.py").write_text(RESUME_COUNTERS.format(after=after))
    result = lint_paths([Path("handler.py")], load_config(tmp_path), set(known_codes()), cwd=tmp_path)
    assert not result.internal_errors, result.internal_errors
    assert sorted({f.code for f in result.findings if f.code == "FT008"}) == codes


RECORDS = """\
import dataclasses


@dataclasses.dataclass
class Span:
    request_id: str
    block_ids: tuple


class FaultHandler:
    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        spans = []
        for req in sched.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks[req.request_id]
                spans.append(Span(req.request_id, tuple(b.block_id for b in blocks[{start}:])))
        kv.evict_blocks({{i for s in {source} for i in s.block_ids}})
        sched.finish_requests(None, "aborted")
"""


@pytest.mark.parametrize("source", ["spans", "self.engine.registry"])
@pytest.mark.parametrize("start", ["confirmed // mgr.block_size", "0"], ids=["tail", "whole"])
def test_a_list_of_records_is_not_a_list_of_block_ids(tmp_path, start, source):
    """Records appended to a list (`spans.append(Span(...))`) make it a list of records, and
    an item of a collection the walk cannot see into is no known request: their `block_ids`
    are no request's block list, never broad (what they hold is unknown)."""
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    (tmp_path / "handler.py").write_text(RECORDS.format(start=start, source=source))
    result = lint_paths([Path("handler.py")], load_config(tmp_path), set(known_codes()), cwd=tmp_path)
    assert not result.internal_errors, result.internal_errors
    assert sorted({f.code for f in result.findings if f.code in ("FT004", "FT007")}) == []


LISTENERS = """\
from vllm.v1.request import RequestStatus


class Bus:
    def __init__(self):
        self.listeners = []

    def connect(self, listener):
        self.listeners.append(listener)

    def emit(self, exc):
        for listener in self.listeners:
            listener(exc)


def make_evictor(engine):
    def on_fault(exc):
        kv = engine.scheduler.kv_cache_manager
        for req in engine.scheduler.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks[req.request_id]
                kv.evict_blocks({{b.block_id for b in blocks[confirmed // mgr.block_size:]}})

    return on_fault


def make_aborter(engine):
    def on_fault(exc):
        engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)

    return on_fault


class FaultHandler:
    def __init__(self, engine):
        self.bus = Bus()
{connect}
    def on_fault(self, exc):
        self.bus.emit(exc)
"""


@pytest.mark.parametrize(
    ("connect", "codes"),
    [
        ("        self.bus.connect(make_evictor(engine))\n        self.bus.connect(make_aborter(engine))\n", []),
        ("        self.bus.connect(make_evictor(engine))\n", ["FT007"]),
    ],
    ids=["registered-by-the-handler", "standing-alone"],
)
def test_a_listener_made_by_a_factory_the_handler_calls_is_no_entry(tmp_path, connect, codes):
    """A nested `on_fault` a factory makes is matched as a handler by its name, unless a
    handler class of its module calls the factory: then it is one listener among others that
    handler runs (here the evictor first), judged in the handler's walk, not alone (where
    the aborter frees with no eviction before it). Made and never registered, it stands alone."""
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    (tmp_path / "handler.py").write_text(LISTENERS.format(connect=connect))
    result = lint_paths([Path("handler.py")], load_config(tmp_path), set(known_codes()), cwd=tmp_path)
    assert not result.internal_errors, result.internal_errors
    assert sorted(f.code for f in result.findings if f.code == "FT007") == codes


@pytest.mark.parametrize(("settle", "codes"), [("settle(list(sched.running))", []), ("pass", ["FT008"])])
def test_counters_zeroed_by_recursion_over_a_copy_of_the_queue(tmp_path, settle, codes):
    """A recursive helper (nested in the handler) zeroing each request's in-flight tokens
    before the preempt (`_preempt_request` copies that 0 into num_stale_output_tokens): on the
    path where the copy of the queue it was given is empty no request runs, so none
    preempted later needs a reset."""
    body = f"""\
    kv.evict_blocks(tail_ids(kv, reqs))

    def settle(queue):
        if queue:
            queue[0].num_in_flight_tokens = 0
            settle(queue[1:])

    {settle}
    now = 0.0
    while sched.running:
        sched._preempt_request(sched.running.pop(), now)
    """
    assert _codes(tmp_path, body, codes=("FT007", "FT008")) == codes


PREEMPTED = (
    "kv.evict_blocks(tail_ids(kv, reqs))\nsched.running = []\nfor req in reqs:\n    sched._preempt_request(req, 0)\n"
)


def test_unknown_callable_mapped_over_the_requests(tmp_path):
    """`list(map(self.engine.clear, reqs))`, a callable the walk cannot see: the counters may
    be reset there, so no FT008; without the map, the preempted requests keep them: FT008."""
    mapped = PREEMPTED + "list(map(self.engine.clear, reqs))\n"
    assert _codes(tmp_path / "mapped", mapped, codes=("FT007", "FT008")) == []
    assert _codes(tmp_path / "plain", PREEMPTED, codes=("FT007", "FT008")) == ["FT008"]


def test_module_level_method_callers(tmp_path):
    """`_clear = operator.methodcaller("__setattr__", field, 0)` mapped over the requests sets
    that field (FT008 when only one counter is cleared); `_reset = methodcaller("reset_prefix_cache")`
    called on `attrgetter("kv_cache_manager")(sched)` is the primitive (FT005)."""
    clears = (
        'clear_in_flight = operator.methodcaller("__setattr__", "num_in_flight_tokens", 0)\n'
        'clear_stale = operator.methodcaller("__setattr__", "num_stale_output_tokens", 0)\n'
        '_reset = operator.methodcaller("reset_prefix_cache")\n'
        '_count = operator.methodcaller("get_num_free_blocks")\n'
        '_kv = operator.attrgetter("kv_cache_manager")\n'
    )
    both = PREEMPTED + "list(map(clear_in_flight, reqs))\nlist(map(clear_stale, reqs))\n"
    one = PREEMPTED + "list(map(clear_in_flight, reqs))\n"
    assert _codes(tmp_path / "both", both, top=clears, codes=("FT008",)) == []
    assert _codes(tmp_path / "one", one, top=clears, codes=("FT008",)) == ["FT008"]
    assert _codes(tmp_path / "count", f"_count(_kv(sched))\n{ABORT}", top=clears, codes=("FT005",)) == []
    assert _codes(tmp_path / "reset", f"_reset(_kv(sched))\n{ABORT}", top=clears, codes=("FT005",)) == ["FT005"]


def test_object_picked_by_a_conditional_expression(tmp_path):
    """`(Preempt() if resume else Abort()).release(...)` in a helper module: either object's
    method runs (each a path), so a free in either is judged; before, the call was unresolved
    and nothing freed."""
    helper = "from vllm.v1.request import RequestStatus\n" + PHASES.split("def in_flight", 1)[1].split("\n", 3)[3]
    (tmp_path / "good").mkdir(parents=True)
    (tmp_path / "bad").mkdir(parents=True)
    for case in ("good", "bad"):
        (tmp_path / case / "releases.py").write_text(helper)
    top = "from releases import make_release\n"
    call = "make_release(self.resume).release(sched, reqs)"
    assert _codes(tmp_path / "good", f"kv.evict_blocks(tail_ids(kv, reqs))\n{call}", top=top) == []
    assert _codes(tmp_path / "bad", f"{FIRST_ONLY}\n{call}", top=top) == ["FT007"]


TABLED = """\
import dataclasses


@dataclasses.dataclass(frozen=True)
class Plan:
    requests: tuple = ()
    mode: str = "abort"


def _requeue(sched, plan):
    sched.running = []
    for r in reversed(plan.requests):
        sched._preempt_request(r, 0)
{resets}

def _abort(sched, plan):
    sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)


_FINISH = {{"abort": _abort, "resume": _requeue}}
"""


def test_table_of_functions_and_a_replaced_record(tmp_path):
    """`_FINISH = {"abort": _abort, "resume": _requeue}` at module level is read, and
    `dataclasses.replace(plan, mode="resume")` is the record with that field: `_requeue` runs.
    It is no fault-path function of the static scope (only the walk reaches it through the
    table), so what it leaves is reported at the call that reaches it."""
    body = (
        "kv.evict_blocks(tail_ids(kv, reqs))\n"
        'plan = dataclasses.replace(Plan(tuple(sched.running)), mode="resume")\n'
        "_FINISH[plan.mode](sched, plan)"
    )
    both = "        r.num_in_flight_tokens = 0\n        r.num_stale_output_tokens = 0\n"
    one = "        r.num_stale_output_tokens = 0\n"
    assert _codes(tmp_path / "both", body, top=TABLED.format(resets=both), codes=("FT007", "FT008")) == []
    assert _codes(tmp_path / "one", body, top=TABLED.format(resets=one), codes=("FT007", "FT008")) == ["FT008"]
    assert [f.line for f in _FINDINGS if f.code == "FT008"] == [51]  # the call in `on_fault`


def test_class_level_name_of_the_primitive(tmp_path):
    """`EVICT = "evict_blocks"` in the class body and `getattr(kv, self.EVICT)(ids)`: the
    primitive itself (its broad ids are FT004; before, an unknown call that may evict them)."""
    attrs = 'EVICT = "evict_blocks"\n'
    assert _codes(tmp_path / "tail", f"getattr(kv, self.EVICT)(tail_ids(kv, reqs))\n{ABORT}", attrs=attrs) == []
    assert _codes(tmp_path / "whole", f"getattr(kv, self.EVICT)({WHOLE})\n{ABORT}", attrs=attrs) == ["FT004"]


def test_request_indexed_again_in_a_reversed_loop(tmp_path):
    """`for i in range(len(reqs) - 1, -1, -1): preempt(reqs[i]); reqs[i].num_in_flight_tokens =
    0; ...`: each `reqs[i]` in the loop is the same request (its resets count)."""
    body = (
        "kv.evict_blocks(tail_ids(kv, reqs))\nsched.running = []\n"
        "for i in range(len(reqs) - 1, -1, -1):\n    sched._preempt_request(reqs[i], 0)\n{resets}"
    )
    both = "    reqs[i].num_in_flight_tokens = 0\n    reqs[i].num_stale_output_tokens = 0\n"
    one = "    reqs[i].num_stale_output_tokens = 0\n"
    assert _codes(tmp_path / "both", body.format(resets=both), codes=("FT007", "FT008")) == []
    assert _codes(tmp_path / "one", body.format(resets=one), codes=("FT007", "FT008")) == ["FT008"]


def test_option_imported_from_another_module(tmp_path):
    """`from opts import EVICT` with `EVICT = os.environ.get("FT_EVICT", "1") == "1"` in opts.py:
    read there, with no variable set (before, unknown: the path without the eviction was taken)."""
    for case, default in (("on", "1"), ("off", "0")):
        (tmp_path / case).mkdir(parents=True)
        (tmp_path / case / "opts.py").write_text(
            f"import os\n\nEVICT = os.environ.get('FT_EVICT', '{default}') == '1'\n\n\ndef unused():\n    pass\n"
        )
    body = f"if EVICT:\n    kv.evict_blocks(tail_ids(kv, reqs))\n{ABORT}"
    assert _codes(tmp_path / "on", body, top="from opts import EVICT\n") == []
    assert _codes(tmp_path / "off", body, top="from opts import EVICT\n") == ["FT007"]


def test_option_computed_by_the_modules_only_function(tmp_path):
    """`EVICT = _flag("FT_EVICT", "1")` with `_flag` the module's one function: called from the
    module's top (before, from inside `_flag` itself: a recursive call, unknown), and a module
    with no function at all is read too."""
    flag = "import os\n\n\ndef _flag(name, default):\n    return os.environ.get(name, default) == '1'\n\n\n"
    for case, text in (
        ("on", flag + "EVICT = _flag('FT_EVICT', '1')\n"),
        ("off", flag + "EVICT = _flag('FT_EVICT', '0')\n"),
        ("bare", "import os\n\nEVICT = os.environ.get('FT_EVICT', '1') == '1'\n"),
    ):
        (tmp_path / case).mkdir(parents=True)
        (tmp_path / case / "opts.py").write_text(text)
    body = f"if EVICT:\n    kv.evict_blocks(tail_ids(kv, reqs))\n{ABORT}"
    assert _codes(tmp_path / "on", body, top="from opts import EVICT\n") == []
    assert _codes(tmp_path / "bare", body, top="from opts import EVICT\n") == []
    assert _codes(tmp_path / "off", body, top="from opts import EVICT\n") == ["FT007"]


FACTORY = """\
import dataclasses
import os


def _flag(name, default):
    return os.environ.get(name, default).strip().lower() in ("1", "true")


@dataclasses.dataclass
class Policy:
    evict: bool = dataclasses.field(default_factory=lambda: _flag("FT_EVICT", "{default}"))
"""


def test_record_field_made_by_a_default_factory(tmp_path):
    """`evict: bool = field(default_factory=lambda: _flag("FT_EVICT", "1"))` and `self.policy =
    Policy()` in `__init__`: the field is what the lambda computes with no variable set (before,
    unknown: the path without the eviction was taken)."""
    attrs = "@functools.cached_property\ndef policy(self):\n    return Policy()\n"
    body = f"if self.policy.evict:\n    kv.evict_blocks(tail_ids(kv, reqs))\n{ABORT}"
    assert _codes(tmp_path / "on", body, top=FACTORY.format(default="1"), attrs=attrs) == []
    assert _codes(tmp_path / "off", body, top=FACTORY.format(default="0"), attrs=attrs) == ["FT007"]


NAMESPACED = """\
import types
from vllm.v1.request import RequestStatus
from tails import tail_ids


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.cfg = types.SimpleNamespace(evict={evict}, mode="abort", retries=3)
{more}
    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        if self.cfg.evict and (ids := tail_ids(kv, sched.running)):
            kv.evict_blocks(ids)
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
"""
TAILS = """\
def tail_ids(kv, reqs):
    ids = set()
    for req in reqs:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            ids |= {b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]}
    return ids
"""


@pytest.mark.parametrize(
    ("evict", "more", "codes"),
    [
        ("True", "", []),
        ("False", "", ["FT007"]),
        # a field some method assigns is a switch: the path with it off is walked too
        ("True", "\n    def disable(self):\n        self.cfg.evict = False\n", ["FT007"]),
        ("True", "\n    def set(self, k, v):\n        setattr(self.cfg, k, v)\n", ["FT007"]),
    ],
    ids=["on", "off", "assigned-in-a-method", "set-by-name"],
)
def test_flag_kept_in_a_namespace_made_in_init(tmp_path, evict, more, codes):
    """`self.cfg = SimpleNamespace(evict=True, ...)` in `__init__`, then `if self.cfg.evict and
    (ids := tail_ids(...)): evict(ids)`: the flag is its literal unless a method of the class
    assigns it; with the flag on, the path where the test fails is the one where the ids are
    empty (nothing to evict)."""
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    (tmp_path / "tails.py").write_text(TAILS)
    (tmp_path / "handler.py").write_text(NAMESPACED.format(evict=evict, more=more))
    result = lint_paths([Path("handler.py")], load_config(tmp_path), set(known_codes()), cwd=tmp_path)
    assert not result.internal_errors, result.internal_errors
    assert sorted(f.code for f in result.findings if f.code in ("FT004", "FT006", "FT007")) == codes


@pytest.mark.parametrize(
    ("test", "codes"),
    [
        ("EVICT and (ids := tail_ids(kv, reqs))", []),
        ("(ids := tail_ids(kv, reqs)) and EVICT", []),
        ("not (not EVICT or not (ids := tail_ids(kv, reqs)))", ["FT007"]),  # a negated `or`: not modelled
        ("OFF or (ids := tail_ids(kv, reqs))", []),
        ("EVICT and OFF and (ids := tail_ids(kv, reqs))", ["FT007"]),
    ],
    ids=["flag-and-ids", "ids-and-flag", "negated-or", "off-or-ids", "never"],
)
def test_ids_bound_in_one_side_of_a_test(tmp_path, test, codes):
    """`if EVICT and (ids := tail_ids(kv, reqs)): evict(ids)` with EVICT true: the path where
    the test fails is the one where the ids are empty, nothing to evict."""
    body = f"ids = set()\nif {test}:\n    kv.evict_blocks(ids)\n{ABORT}"
    top = "EVICT = True\nOFF = False\n"
    assert _codes(tmp_path, body, top=top) == codes


@pytest.mark.parametrize(
    ("statement", "codes"),
    [
        ("self.engine.evict_on and kv.evict_blocks(tail_ids(kv, reqs))", ["FT007"]),  # the flag may be off
        ("self.engine.evict_off or kv.evict_blocks(tail_ids(kv, reqs))", ["FT007"]),
        ("True and kv.evict_blocks(tail_ids(kv, reqs))", []),
        ("dirty and kv.evict_blocks(dirty)", []),  # skipped only when there is nothing to evict
        ("not dirty or kv.evict_blocks(dirty)", []),
        ("dirty and kv.evict_blocks(self.engine.other())", ["FT007"]),
    ],
    ids=["unknown-and", "unknown-or", "true-and", "empty-and", "empty-or", "other-ids"],
)
def test_eviction_on_the_right_of_and_or(tmp_path, statement, codes):
    """`flag and kv.evict_blocks(ids)` as a statement: with the flag unknown, the path that
    skips the eviction is walked too (before, the eviction was taken as made on every path);
    `dirty and evict(dirty)` skips it only when `dirty` is empty."""
    body = f"dirty = self.engine.collected()\n{statement}\n{ABORT}"
    assert _codes(tmp_path, body) == codes


@pytest.mark.parametrize(
    ("test", "codes"),
    [("dirty.size", []), ("dirty.numel() > 0", []), ("dirty.size > 0", []), ("dirty.any()", ["FT007"])],
    ids=["size", "numel", "size-positive", "any-is-not-emptiness"],
)
def test_size_of_an_array_of_ids(tmp_path, test, codes):
    """`if dirty.size: kv.evict_blocks(set(dirty.tolist()))` with `dirty` an array the walk
    cannot compute (numpy): the path that skips the eviction had nothing to evict, as `if dirty:`."""
    body = f"dirty = np.unique(self.engine.collected())\nif {test}:\n    kv.evict_blocks(set(dirty.tolist()))\n{ABORT}"
    assert _codes(tmp_path, body, top="import numpy as np\n") == codes


def test_size_of_known_ids_is_their_emptiness(tmp_path):
    """`if ids.size:` of ids the walk knows reads as `if ids:`: empty ids skip nothing, and
    ids of the first group alone are still found (before, unknown: both ways)."""
    first = (
        "mgr = kv.coordinator.single_type_managers[0]\n"
        "ids = {b.block_id for r in reqs for b in mgr.req_to_blocks[r.request_id]"
        "[(r.num_computed_tokens - r.num_in_flight_tokens) // mgr.block_size:]}\n"
        f"if ids.size:\n    kv.evict_blocks(ids)\n{ABORT}"
    )
    assert _codes(tmp_path / "first", first) == ["FT007"]
    assert "first KV-cache group" in _FINDINGS[-1].message
    empty = f"ids = set()\nif ids.size:\n    kv.evict_blocks(ids)\nkv.evict_blocks(tail_ids(kv, reqs))\n{ABORT}"
    assert _codes(tmp_path / "empty", empty) == []


@pytest.mark.parametrize(
    ("top", "codes"),
    [
        ("EVICT = True\n", []),
        ("EVICT = False\n", ["FT007"]),
        ("EVICT = True\n\n\ndef disable():\n    global EVICT\n    EVICT = False\n", ["FT007"]),
    ],
    ids=["true", "false", "rebound-by-global"],
)
def test_module_level_boolean(tmp_path, top, codes):
    """`EVICT = True` at module level, no function rebinding it: its value (before, unknown:
    the path without the eviction was walked and reported)."""
    body = f"if EVICT:\n    kv.evict_blocks(tail_ids(kv, reqs))\n{ABORT}"
    assert _codes(tmp_path, body, top=top) == codes


def test_comprehension_over_unknown_items(tmp_path):
    """`[s for s in plan.steps if s.kind == "evict"]` with `plan` unknown: its items are no
    running requests, so `step.block_ids` is no request's every block (before: FT004)."""
    body = (
        "plan = self.engine.plan()\nfor step in [s for s in plan.steps if s.kind == 'evict']:\n"
        f"    kv.evict_blocks(set(step.block_ids))\n{ABORT}"
    )
    assert _codes(tmp_path / "unknown", body) == []
    running = (
        f"for r in [r for r in sched.running if r.num_computed_tokens]:\n    kv.evict_blocks(set(r.block_ids))\n{ABORT}"
    )
    assert _codes(tmp_path / "running", running) == ["FT004"]


INTERPRETER = """\
for kind, arg in self.engine.plan():
    if kind == "evict":
        kv.evict_blocks(set(arg))
    elif kind == "{free}":
        {call}
"""


@pytest.mark.parametrize(
    ("free", "call", "codes"),
    [
        ("abort", "sched.finish_requests(arg, RequestStatus.FINISHED_ABORTED)", []),
        ("preempt", "sched._preempt_request(sched.requests[arg], 0)", []),
    ],
    ids=["abort", "preempt"],
)
def test_interpreter_loop_over_an_unknown_plan(tmp_path, free, call, codes):
    """`for kind, arg in plan: if kind == "evict": evict(arg) elif kind == "abort": free(arg)`
    with the plan computed where the walk cannot see: which step comes first is unknown, so
    neither the free nor the preempt is reported (before: FT007, FT008). A free after the
    loop, or in a loop with no eviction, still is."""
    body = INTERPRETER.format(free=free, call=call)
    assert _codes(tmp_path / "loop", body, codes=("FT007", "FT008")) == codes
    after = body + ABORT
    assert _codes(tmp_path / "after", after, codes=("FT007",)) == []  # the loop may have evicted
    no_evict = body.replace('kind == "evict"', 'kind == "log"').replace("kv.evict_blocks(set(arg))", "print(arg)")
    assert _codes(tmp_path / "no-evict", no_evict, codes=("FT007", "FT008")) != []


PLANNED = """\
import enum
from typing import NamedTuple

from vllm.v1.request import RequestStatus
from tails import tail_ids


class Op(enum.Enum):
    EVICT = "evict"
    ABORT = "abort"


class Item(NamedTuple):
    verb: str
    reqs: tuple


class Executor:
    def __init__(self, sched):
        self.sched = sched

    def run(self, plan):
        for op, reqs in plan:
            getattr(self, {lookup})(reqs)

    def run_items(self, plan):
        for item in plan:
            if item.verb == "evict":
                self._op_evict(item.reqs)
            elif item.verb == "abort":
                self._op_abort(item.reqs)

    def _op_evict(self, reqs):
        self.sched.kv_cache_manager.evict_blocks(tail_ids(self.sched.kv_cache_manager, reqs))

    def _op_abort(self, reqs):
        self.sched.finish_requests([r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        reqs = tuple(self.engine.scheduler.running)
        {body}
"""


@pytest.mark.parametrize(
    ("lookup", "body", "codes"),
    [
        ('f"_op_{op.value}"', "Executor(self.engine.scheduler).run([(Op.EVICT, reqs), (Op.ABORT, reqs)])", []),
        (
            'f"_op_{op.value}"',
            "Executor(self.engine.scheduler).run([(Op.ABORT, reqs), (Op.EVICT, reqs)])",
            ["FT006", "FT007"],  # the eviction reads the blocks after the free
        ),
        ('"_op_" + op.name.lower()', "Executor(self.engine.scheduler).run(((Op.ABORT, reqs),))", ["FT007"]),
        ('"_op_" + op.value', "Executor(self.engine.scheduler).run(((Op.ABORT, reqs),))", ["FT007"]),
        ('f"_op_{op!r}"', "Executor(self.engine.scheduler).run(((Op.ABORT, reqs),))", []),  # a conversion: unknown
        (
            '"_op_" + op.value',
            "plan = (Item('evict', reqs), Item('abort', reqs)) if reqs else ()\n"
            "        Executor(self.engine.scheduler).run_items(plan)",
            [],
        ),
        (
            '"_op_" + op.value',
            "plan = (Item('abort', reqs),) if reqs else ()\n        Executor(self.engine.scheduler).run_items(plan)",
            ["FT007"],
        ),
    ],
    ids=[
        "fstring-evict-first",
        "fstring-abort-first",
        "name-lowered",
        "plus",
        "conversion",
        "records",
        "records-no-evict",
    ],
)
def test_steps_of_a_literal_plan_run_in_order(tmp_path, lookup, body, codes):
    """A literal plan (`[(Op.EVICT, reqs), (Op.ABORT, reqs)]`, `(Item("abort", reqs),) if reqs
    else ()`) run by an executor that looks each step up (`getattr(self, f"_op_{op.value}")`,
    `if item.verb == "evict":`): each step in turn, in order; an enum member's `.value` is its
    string and `.name` its name; an empty plan runs nothing (before: the steps were unknown)."""
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    (tmp_path / "tails.py").write_text(TAILS)
    (tmp_path / "handler.py").write_text(PLANNED.format(lookup=lookup, body=body))
    result = lint_paths([Path("handler.py")], load_config(tmp_path), set(known_codes()), cwd=tmp_path)
    assert not result.internal_errors, result.internal_errors
    assert sorted(f.code for f in result.findings if f.code in ("FT004", "FT006", "FT007")) == codes


@pytest.mark.parametrize(
    ("unpack", "used", "codes"),
    [
        ("full, *_ = kv.coordinator.single_type_managers", "(full,)", ["FT007"]),
        ("full, swa = kv.coordinator.single_type_managers", "(full, swa)", []),
        ("*_, last = kv.coordinator.single_type_managers", "(last,)", []),  # not the first group: unknown
    ],
    ids=["first-unpacked", "both-unpacked", "starred-first"],
)
def test_managers_unpacked(tmp_path, unpack, used, codes):
    """`full, *_ = managers` binds `full` to the first group, as `managers[0]` (before:
    unknown, the eviction over it taken as covering every group)."""
    body = (
        f"{unpack}\n"
        f"kv.evict_blocks({{b.block_id for m in {used} for r in reqs for b in m.req_to_blocks[r.request_id]"
        f"[(r.num_computed_tokens - r.num_in_flight_tokens) // m.block_size:]}})\n{ABORT}"
    )
    assert _codes(tmp_path, body) == codes


@pytest.mark.parametrize(
    ("table", "codes"),
    [
        ("{False: lambda s, rs: s.finish_requests(None, RequestStatus.FINISHED_ABORTED), True: _requeue}", ["FT007"]),
        ("{False: _abort, True: _requeue}", ["FT007"]),
        ("{False: _evict_and_abort, True: _evict_and_abort}", []),
    ],
    ids=["lambda-and-function", "functions", "both-evict"],
)
def test_table_of_functions_in_the_class_body(tmp_path, table, codes):
    """`_release = {False: lambda ...: ..., True: _requeue}` in the class body, called as
    `self._release[self.resume](sched, reqs)`: each entry is a path (before: an unknown call
    that may reach a project function that evicts, taken as covering every request)."""
    top = (
        "def _requeue(s, rs):\n    s.finish_requests(None, RequestStatus.FINISHED_ABORTED)\n\n\n"
        "def _abort(s, rs):\n    s.finish_requests(None, RequestStatus.FINISHED_ABORTED)\n\n\n"
        "def _evict_and_abort(s, rs):\n    kv = s.kv_cache_manager\n    kv.evict_blocks(tail_ids(kv, rs))\n"
        "    s.finish_requests(None, RequestStatus.FINISHED_ABORTED)\n"
    )
    attrs = f"_release = {table}\n"
    assert _codes(tmp_path, "self._release[self.resume](sched, reqs)\n", top=top, attrs=attrs) == codes


ARRAYS = """\
ids = set()
for req in reqs:
    confirmed = req.num_computed_tokens - req.num_in_flight_tokens
    for mgr in kv.coordinator.single_type_managers:
        table = np.asarray([b.block_id for b in mgr.req_to_blocks[req.request_id]], dtype=np.int64)
        first = confirmed // mgr.block_size
        ids.update({picked}.tolist())
if ids:
    kv.evict_blocks(ids)
{free}"""


@pytest.mark.parametrize(
    ("picked", "codes"),
    [
        ("table[np.arange(table.size) >= first]", []),
        ("table[(np.arange(len(table)) >= first) & (table != 0)]", []),
        ("table[first <= np.arange(table.size)]", []),
        ("table[table > 0]", ["FT004"]),  # the null block dropped, every other block kept
        ("np.unique(table)", ["FT004"]),
        ("torch.as_tensor(table)", ["FT004"]),
        ("np.concatenate([table, table[first:]])", ["FT004"]),
        ("table[np.arange(table.size) > first]", []),  # another mask: where it starts is unknown
    ],
    ids=["mask", "mask-and-not-null", "mask-reversed", "null-filter", "unique", "tensor", "concatenate", "strict"],
)
def test_block_ids_through_numpy_and_torch(tmp_path, picked, codes):
    """numpy / torch arrays of block ids: `np.asarray(ids)`, `np.unique`, `torch.as_tensor`,
    `.tolist()` keep the ids, `np.concatenate` joins them, a mask over positions
    (`np.arange(n) >= first`) starts where `ids[first:]` would (before: unknown, never
    broad)."""
    body = ARRAYS.format(picked=picked, free=ABORT)
    assert _codes(tmp_path, body, top="import numpy as np\nimport torch\n") == codes


def test_empty_array_is_no_block(tmp_path):
    """`np.empty(0)` returned when a request holds nothing: no block (before: unknown, and a
    later `if chunks:` walked both ways)."""
    top = (
        "import numpy as np\n\n\ndef pick(kv, req):\n    blocks = kv.coordinator.single_type_managers[0]"
        ".req_to_blocks[req.request_id]\n    if not blocks:\n        return np.empty(0, dtype=np.int64)\n"
        "    return np.asarray(list(tail_ids(kv, [req])))\n"
    )
    body = f"chunks = [pick(kv, r) for r in reqs]\nif chunks:\n    kv.evict_blocks(set(np.concatenate(chunks).tolist()))\n{ABORT}"
    assert _codes(tmp_path, body, top=top) == []


def test_run_time_hook_given_the_request_may_reset_it(tmp_path):
    """`for fn in self.hooks[name]: fn(request)` after a preempt, with the hooks filled by
    `append` (the walk cannot list them): when a project function sets a request's in-flight
    counter to 0, one of them may, so FT008 is not reported; with none that does, it is."""
    attrs = (
        "hooks = {}\n\ndef fire(self, name, request):\n    for fn in self.hooks.get(name, []):\n        fn(request)\n\n"
        "def add(self, name, fn):\n    self.hooks.setdefault(name, []).append(fn)\n"
    )
    body = (
        "kv.evict_blocks(tail_ids(kv, reqs))\nfor r in reqs:\n    sched.running.remove(r)\n"
        "    sched._preempt_request(r, 0)\n    self.fire('after', r)\n"
    )
    resets = "def forget(request):\n    request.num_in_flight_tokens = 0\n    request.num_stale_output_tokens = 0\n"
    logs = "def forget(request):\n    print(request)\n"
    assert _codes(tmp_path / "resets", body, top=resets, attrs=attrs, codes=("FT007", "FT008")) == []
    assert _codes(tmp_path / "logs", body, top=logs, attrs=attrs, codes=("FT007", "FT008")) == ["FT008"]


SIGNALS = """\
class Signal:
    def __init__(self):
        self.receivers = []

    def connect(self, fn):
        self.receivers.append(fn)
        return fn

    def send(self, sched, **kwargs):
        return [fn(sched, **kwargs) for fn in self.receivers]


before_abort = Signal()
"""
RECEIVERS = """\
from signals import before_abort


@before_abort.connect
def evict_tails(sched, requests):
    kv = sched.kv_cache_manager
    ids = set()
    for req in requests:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            ids |= {b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]}
    kv.evict_blocks(ids)
"""


@pytest.mark.parametrize(("imported", "codes"), [(True, []), (False, ["FT007"])], ids=["imported", "not-imported"])
def test_signal_object_at_module_level_and_receivers_imported(tmp_path, imported, codes):
    """`before_abort = Signal()` at module level is an object of that class (`send` is walked),
    and `import receivers` (imported for the listeners it registers) makes a callable the
    walk cannot list one that may evict: no finding. Without that import no receiver evicts."""
    (tmp_path / "signals.py").write_text(SIGNALS)
    (tmp_path / "receivers.py").write_text(RECEIVERS)
    top = "from signals import before_abort\n" + ("import receivers  # noqa: F401\n" if imported else "")
    body = f"before_abort.send(sched, requests=reqs)\n{ABORT}"
    assert _codes(tmp_path, body, top=top) == codes


WORKER = """\
import asyncio
import concurrent.futures
import threading


class Worker(threading.Thread):
    def __init__(self, kv, reqs):
        super().__init__()
        self.kv = kv
        self.reqs = reqs

    def run(self):
        evict(self.kv, self.reqs)


def evict(kv, reqs):
    kv.evict_blocks({ids})
"""


@pytest.mark.parametrize(
    "start",
    [
        "w = Worker(kv, reqs)\nw.start()\nw.join()",
        "workers = [Worker(kv, reqs) for _ in range(2)]\nfor w in workers:\n    w.start()\nfor w in workers:\n    w.join()",
        "t = threading.Thread(target=evict, args=(kv, reqs))\nt.start()\nt.join()",
        "with concurrent.futures.ThreadPoolExecutor() as pool:\n    pool.submit(evict, kv, reqs).result()",
        "loop = asyncio.new_event_loop()\nloop.run_until_complete(loop.run_in_executor(None, evict, kv, reqs))",
        "asyncio.run(asyncio.to_thread(evict, kv, reqs))",
    ],
    ids=["thread-subclass", "workers-in-a-list", "thread-target", "executor-submit", "run-in-executor", "to-thread"],
)
def test_work_handed_to_threads_and_executors(tmp_path, start):
    """A thread's `run()` (a `threading.Thread` subclass started), `Thread(target=f, args=...)`,
    `executor.submit(f, ...)`, `loop.run_in_executor(pool, f, ...)`, `asyncio.to_thread(f, ...)`:
    `f` runs with those arguments (the handler joins or awaits it); its eviction counts, and
    one of every block is FT004 (before: an unknown call, no eviction)."""
    body = f"{start}\n{ABORT}"
    assert _codes(tmp_path / "tail", body, top=WORKER.format(ids="tail_ids(kv, reqs)")) == []
    assert _codes(tmp_path / "whole", body, top=WORKER.format(ids=WHOLE)) == ["FT004"]


@pytest.mark.parametrize(
    ("hook", "codes"),
    [
        ("    request.num_stale_output_tokens = 0\n", ["FT008"]),
        ("    request.num_in_flight_tokens = 0\n    request.num_stale_output_tokens = 0\n", []),
    ],
    ids=["one-counter", "both-counters"],
)
def test_tuple_of_functions_in_the_class_body(tmp_path, hook, codes):
    """`post_preempt = (_clear,)` in the class body, run as `for hook in self.post_preempt:
    hook(request)` after each preempt: each function in turn (before: a callable computed at
    run time, which may reset every counter)."""
    top = f"def _clear(request):\n{hook}"
    attrs = "post_preempt = (_clear,)\n"
    body = (
        "kv.evict_blocks(tail_ids(kv, reqs))\nfor r in reqs:\n    sched.running.remove(r)\n"
        "    sched._preempt_request(r, 0)\n    for fn in self.post_preempt:\n        fn(r)\n"
    )
    assert _codes(tmp_path, body, top=top, attrs=attrs, codes=("FT007", "FT008")) == codes


REGISTRY = """\
_TABLE = {}


def connect(name):
    def deco(fn):
        _TABLE.setdefault(name, []).append(fn)
        return fn

    return deco


def send(name, **kwargs):
    return [fn(**kwargs) for fn in _TABLE.get(name, [])]
"""
DECORATED = """\
from registry import connect


@connect("before")
def first(sched, reqs):
    {first}


@connect("before")
def second(sched, reqs):
    {second}
"""
EVICTS = "sched.kv_cache_manager.evict_blocks(tail_ids(sched.kv_cache_manager, reqs))"
FREES = "sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)"
DROPS = "for r in reqs:\n        sched.running.remove(r)\n        sched._preempt_request(r, 0, drop_stale_output=True)"


@pytest.mark.parametrize(
    ("first", "second", "codes"),
    [
        (EVICTS, FREES, []),
        (FREES, EVICTS, ["FT006", "FT007"]),
        ("pass", FREES, ["FT007"]),
        (EVICTS, DROPS, ["FT001"]),
    ],
    ids=["evict-then-free", "free-then-evict", "no-eviction", "drop-flag"],
)
def test_listeners_registered_by_a_decorator(tmp_path, first, second, codes):
    """`@connect("before")` filling a module-level `_TABLE`, `send("before", ...)` calling
    `_TABLE.get(name, [])` in turn: the functions registered under that key, in the order they
    are defined (in the modules loaded or imported: `import listeners` registers them), each
    called in turn; what they leave is reported at the call in scope (before: a callable
    computed at run time, taken as covering every request)."""
    (tmp_path / "registry.py").write_text(REGISTRY)
    listeners = "from vllm.v1.request import RequestStatus\nfrom handler import tail_ids\n" + DECORATED
    (tmp_path / "listeners.py").write_text(listeners.format(first=first, second=second))
    top = "import listeners  # noqa: F401\nfrom registry import send\n"
    body = "send('before', sched=sched, reqs=reqs)\n"
    assert _codes(tmp_path, body, top=top, codes=("FT001", "FT006", "FT007")) == codes


SUBSCRIBED = """\
from collections import defaultdict
from vllm.v1.request import RequestStatus
from tails import tail_ids


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine
        self.subs = defaultdict(list)
        self.subs["resume"].append(self.evict)
        self.subs["resume"].append(self.abort)
        self.subs["abort"].append({abort_first})
        self.subs["abort"].append({abort_second})

    def evict(self, reqs):
        kv = self.engine.scheduler.kv_cache_manager
        kv.evict_blocks(tail_ids(kv, reqs))

    def abort(self, reqs):
        self.engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)

    def log(self, reqs):
        pass

    def publish(self, topic, reqs):
        for fn in self.subs[topic]:
            fn(reqs)

    def on_fault(self, exc):
        self.publish("resume" if self.resume else "abort", list(self.engine.scheduler.running))
"""


@pytest.mark.parametrize(
    ("abort_first", "abort_second", "codes"),
    [("self.evict", "self.abort", []), ("self.log", "self.abort", ["FT007"])],
    ids=["both-topics-evict", "abort-topic-without-eviction"],
)
def test_subscriptions_built_in_init(tmp_path, abort_first, abort_second, codes):
    """`self.subs = defaultdict(list)` then `self.subs["abort"].append(self.abort)` in
    `__init__` (changed nowhere else): the lists `__init__` leaves, and a topic picked by a
    switch (`"resume" if self.resume else "abort"`) is either one (before: callables computed
    at run time, taken as covering every request)."""
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    (tmp_path / "tails.py").write_text(TAILS)
    text = SUBSCRIBED.format(abort_first=abort_first, abort_second=abort_second)
    (tmp_path / "handler.py").write_text(text)
    result = lint_paths([Path("handler.py")], load_config(tmp_path), set(known_codes()), cwd=tmp_path)
    assert not result.internal_errors, result.internal_errors
    assert sorted(f.code for f in result.findings if f.code in ("FT004", "FT006", "FT007")) == codes


PIPELINES = """\
from vllm.v1.request import RequestStatus
from tails import tail_ids


def evict_tail(sched):
    def run(reqs):
        sched.kv_cache_manager.evict_blocks(tail_ids(sched.kv_cache_manager, reqs))

    return run


def abort_all(sched):
    def run(reqs):
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)

    return run


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        sched = engine.scheduler
        self.pipelines = {{"abort": [{steps}]}}

    def on_fault(self, exc):
        for step in self.pipelines["abort"]:
            step(list(self.engine.scheduler.running))
"""


@pytest.mark.parametrize(
    ("steps", "codes"),
    [("evict_tail(sched), abort_all(sched)", []), ("abort_all(sched), evict_tail(sched)", ["FT006", "FT007"])],
    ids=["evict-first", "abort-first"],
)
def test_pipelines_of_closures_made_in_init(tmp_path, steps, codes):
    """`self.pipelines = {"abort": [evict_tail(sched), abort_all(sched)]}` in `__init__`, the
    steps closures made by factories: `__init__` is walked for the value (before: a value that
    calls functions was not read, and the steps were callables computed at run time)."""
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    (tmp_path / "tails.py").write_text(TAILS)
    (tmp_path / "handler.py").write_text(PIPELINES.format(steps=steps))
    result = lint_paths([Path("handler.py")], load_config(tmp_path), set(known_codes()), cwd=tmp_path)
    assert not result.internal_errors, result.internal_errors
    assert sorted(f.code for f in result.findings if f.code in ("FT004", "FT006", "FT007")) == codes


@pytest.mark.parametrize(
    ("group", "call", "codes"),
    [
        ("[0]", "{bid for r in reqs for bid in tail(r)}", ["FT007"]),
        ("[0]", "{bid for ids in map(tail, reqs) for bid in ids}", ["FT007"]),
        ("", "{bid for r in reqs for bid in tail(r)}", []),
    ],
    ids=["called", "mapped", "every-group"],
)
def test_nested_function_reads_the_names_of_its_definer(tmp_path, group, call, codes):
    """`attn = managers[0]; def tail(req): ... attn.req_to_blocks ...`: the nested function
    reads `attn` as bound where it is defined (before: unknown, the eviction taken as covering
    every group)."""
    managers = "kv.coordinator.single_type_managers"
    loop = "for m in groups" if not group else "for m in (groups,)"
    body = (
        f"groups = {managers}{group}\n"
        "def tail(req):\n"
        f"    return [b.block_id {loop} "
        "for b in m.req_to_blocks[req.request_id][(req.num_computed_tokens - req.num_in_flight_tokens) // m.block_size:]]\n"
        f"kv.evict_blocks({call})\n{ABORT}"
    )
    assert _codes(tmp_path, body) == codes


ASYNC = """\
import asyncio


async def tail(kv, req):
    return {tail}


async def run(kv, reqs):
    parts = await asyncio.gather(*(tail(kv, r) for r in reqs))
    kv.evict_blocks({{b for part in parts for b in part}})
"""


@pytest.mark.parametrize(
    ("tail", "start", "codes"),
    [
        ("tail_ids(kv, [req])", "asyncio.run(run(kv, reqs))", []),
        ("tail_ids(kv, [req])", "loop = asyncio.new_event_loop()\nloop.run_until_complete(run(kv, reqs))", []),
        (
            "kv.coordinator.single_type_managers[0].req_to_blocks[req.request_id][-1:]",
            "asyncio.run(run(kv, reqs))",
            ["FT007"],
        ),
    ],
    ids=["run", "run-until-complete", "nothing-gathered"],
)
def test_coroutines_gathered_and_run(tmp_path, tail, start, codes):
    """`asyncio.run(coro)` / `loop.run_until_complete(coro)` run the coroutine the walk already
    followed where it was made (no call it cannot follow, which may have reached any project
    method named `run`), and `await asyncio.gather(*aws)` gives what each gives."""
    top = ASYNC.format(tail=tail)
    assert _codes(tmp_path, f"{start}\n{ABORT}", top=top) == codes


TESTED_TWICE = """\
if {first}:
    pass
else:
    kv.evict_blocks(tail_ids(kv, reqs))
{between}if {second}:
    kv.evict_blocks(tail_ids(kv, reqs))
    {ABORT}
else:
    {ABORT}
"""


@pytest.mark.parametrize(
    ("first", "between", "second", "codes"),
    [
        ("self.resume", "", "self.resume", []),
        ("not self.resume", "", "self.resume", ["FT007"]),  # the path that skipped the eviction aborts
        ("self.resume", "self.resume = self.engine.mode()\n", "self.resume", ["FT007"]),  # tested anew
        ("self.resume", "", "self.other", ["FT007"]),
    ],
    ids=["same-flag", "negated-first", "set-anew", "another-flag"],
)
def test_a_switch_tested_twice_is_one_decision(tmp_path, first, between, second, codes):
    """`if self.resume: ... else: evict(...)` then `if self.resume: evict(...); abort else:
    abort`: on each path the second test goes the way the first went (before: four paths, one
    of which aborted with no eviction); a flag set anew in between is tested anew."""
    body = TESTED_TWICE.format(first=first, between=between, second=second, ABORT=ABORT)
    assert _codes(tmp_path, body) == codes


def test_a_switch_tested_in_an_expression_then_a_statement(tmp_path):
    """`stages = [self._clear] if self.resume else [self._evict]` in a helper method, then
    `if self.resume:` in the handler: the statement goes the way the expression went on each
    path (the handler's own flags are recorded across the methods it calls). The resume path
    clears the counters before its preempts (no FT008) but evicts nothing (FT007); the abort
    path evicts first."""
    attrs = (
        "def _clear(self, reqs):\n    for r in reqs:\n        r.num_in_flight_tokens = 0\n"
        "        r.num_stale_output_tokens = 0\n\n"
        "def _evict(self, reqs):\n    kv = self.engine.scheduler.kv_cache_manager\n"
        "    kv.evict_blocks(tail_ids(kv, reqs))\n\n"
        "def _stages(self):\n    return [self._clear] if self.resume else [self._evict]\n"
    )
    body = (
        "for stage in self._stages():\n    stage(reqs)\n"
        f"if self.resume:\n    for r in reqs:\n        sched.running.remove(r)\n        sched._preempt_request(r, 0)\n"
        f"else:\n    {ABORT}\n"
    )
    assert _codes(tmp_path, body, attrs=attrs, codes=("FT007", "FT008")) == ["FT007"]
    assert "_preempt_request" in _FINDINGS[-1].message or any("_preempt_request" in f.message for f in _FINDINGS)
