"""Issue 21, item 2 (eviction side): idioms the handler generator showed the walk losing
track of, each modelled by value, both verdicts. A `@contextmanager` whose eviction runs on
exit (after the body's free: FT006/FT007) or on entry (before it: fine); an eviction behind an
`isinstance(exc, ...)` gate before a loop that frees (the loop does not spread the gated
path's eviction to the other path); a classmethod reached through `type(self)`; a margin
written as all blocks minus a shorter prefix, or as the last `len(blocks) - first` blocks; an
eviction spelled through `getattr` in a lambda bound in the handler (FT002); a module function
reached only from a class-attribute lambda (in the fault path: FT003 there); requests carried
in `(request, boundary)` tuples made by a comprehension; methods a decorator's wrapper
reaches through `self` (FT008 there); the tail evicted through `copy.copy(req)` (the same
request id: no FT007). One project holds
every handler (one ftlint run); each test reads its own file's findings."""

import inspect

import pytest

from tests.helpers import findings_json, write_project

TAIL = """
    ids = set()
    for req in reqs:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks[req.request_id]
            FIRST
            IDS
"""
EXACT = "first = confirmed // mgr.block_size"
MARGIN = "first = max(confirmed // mgr.block_size - 1, 0)"
SLICE = "ids |= {b.block_id for b in blocks[first:] if not b.is_null}"
DIFFERENCE = "ids |= {b.block_id for b in blocks} - {b.block_id for b in blocks[:first]}"
FROM_END = "n_tail = len(blocks) - first\n        ids |= {b.block_id for b in (blocks[-n_tail:] if n_tail > 0 else [])}"


def _tail(first: str = EXACT, ids: str = SLICE, indent: int = 4) -> str:
    text = inspect.cleandoc(TAIL).replace("FIRST", first).replace("IDS", ids)
    return "\n".join(" " * indent + line for line in text.splitlines())


def _ctx(where: str) -> str:
    """`tails_evicted` reads the tails and evicts them before its `yield` ("entry"), after it
    ("exit": after the body's free, `req_to_blocks` is gone), or reads before and evicts after
    ("split": the ids were read while the blocks were held)."""
    tail = _tail().splitlines()
    evict = ["    kv.evict_blocks(ids)"]
    after = ["    try:", "        yield", "    finally:"]
    if where == "entry":
        body = [*tail, *evict, "    yield"]
    elif where == "exit":
        body = [*after, *("    " + line for line in tail + evict)]
    else:
        body = [*tail, *after, *("    " + line for line in evict)]
    return (
        "import contextlib\n\n\n@contextlib.contextmanager\ndef tails_evicted(kv, reqs):\n"
        + "\n".join(body)
        + "\n\n\nclass Sentinel:\n    def on_fault(self, exc):\n        sched = self.scheduler\n"
        + "        with tails_evicted(sched.kv_cache_manager, list(sched.running)):\n"
        + '            sched.finish_requests(None, "aborted")\n'
    )


def _gated(gate: str) -> str:
    return (
        "class Sentinel:\n    def on_fault(self, exc):\n        sched = self.scheduler\n"
        + f"        {gate}\n            self._evict(sched.kv_cache_manager, list(sched.running))\n"
        + "        while sched.running:\n            req = sched.running.pop()\n"
        + "            sched._preempt_request(req, 0.0)\n"
        + "            req.num_in_flight_tokens = req.num_stale_output_tokens = 0\n\n"
        + "    def _evict(self, kv, reqs):\n"
        + _tail(indent=8)
        + "\n        kv.evict_blocks(ids)\n"
    )


def _helper(call: str, first: str = EXACT, ids: str = SLICE, decorator: str = "@classmethod") -> str:
    params = "cls, kv, reqs" if decorator == "@classmethod" else "kv, reqs"
    return (
        "class Sentinel:\n    def on_fault(self, exc):\n        sched = self.scheduler\n"
        + f"        {call}(sched.kv_cache_manager, list(sched.running))\n"
        + '        sched.finish_requests(None, "aborted")\n\n'
        + f"    {decorator}\n    def _evict({params}):\n"
        + _tail(first, ids, indent=8)
        + "\n        kv.evict_blocks(ids)\n"
    )


LAMBDA = """
def tail_ids(kv, reqs):
BODY
    return ids


class Sentinel:
    def on_fault(self, exc):
        sched = self.scheduler
        evict = lambda kv, reqs: getattr(kv, "evict_blocks")(tail_ids(kv, reqs))
        evict(sched.kv_cache_manager, list(sched.running))
        sched.finish_requests(None, "aborted")
"""

CLASS_LAMBDA = """
def tail_ids(kv, reqs):
BODY
    return ids


class Sentinel:
    _evict = staticmethod(lambda kv, reqs: kv.evict_blocks(tail_ids(kv, reqs)))

    def on_fault(self, exc):
        sched = self.scheduler
        self._evict(sched.kv_cache_manager, list(sched.running))
        sched.finish_requests(None, "aborted")
"""
RANGE_CHECKED = "ids |= {b.block_id for b in blocks[first:] if 0 <= b.block_id < len(kv.block_pool.blocks)}"

PAIRS = """
class Sentinel:
    def on_fault(self, exc):
        sched = self.scheduler
        for req in list(sched.running):
            self._evict(sched.kv_cache_manager, REQS)
            sched.finish_requests(req.request_id, "aborted")

    def _evict(self, kv, reqs):
        ids = set()
        pairs = [(r, BOUNDARY) for r in reqs]
        for req, confirmed in pairs:
            for mgr in kv.coordinator.single_type_managers:
                ids |= {b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]}
        kv.evict_blocks(ids)
"""
TAIL_BOUNDARY = "r.num_computed_tokens - r.num_in_flight_tokens"


def _pairs(reqs: str, boundary: str) -> str:
    return PAIRS.replace("REQS", reqs).replace("BOUNDARY", boundary)


WRAPPED = """
def releasing(fn):
    def wrapper(self, exc):
        fn(self, exc)
        actions = {True: self._resume_all, False: self._abort_all}
        actions[bool(self.resume)](self.scheduler)

    return wrapper


class Sentinel:
    resume = False

    @releasing
    def on_fault(self, exc):
        self._evict_tails()

    def _evict_tails(self):
        self.kv.evict_blocks(set())

    def _resume_all(self, sched):
        for req in list(sched.running):
            sched._preempt_request(req, 0.0)
            RESET

    def _abort_all(self, sched):
        sched.finish_requests(None, "aborted")
"""


# file stem: (handler source, the codes it must get)
CASES = {
    "ctx_evicts_on_exit": (_ctx("exit"), ["FT006", "FT007"]),
    "ctx_evicts_on_entry": (_ctx("entry"), []),
    "ctx_reads_on_entry_evicts_on_exit": (_ctx("split"), []),
    "gate_before_the_loop": (_gated("if isinstance(exc, TimeoutError):"), ["FT007"]),
    "no_gate_before_the_loop": (_gated("if True:"), []),
    "classmethod_through_type_self": (_helper("type(self)._evict"), []),
    "classmethod_through_type_self_whole": (
        _helper("type(self)._evict", ids="ids |= {b.block_id for b in blocks}"),
        ["FT004"],
    ),
    "classmethod_through_dunder_class_whole": (
        _helper("self.__class__._evict", ids="ids |= {b.block_id for b in blocks}"),
        ["FT004"],
    ),
    "difference_exact": (_helper("self._evict", ids=DIFFERENCE, decorator="@staticmethod"), []),
    "difference_margin": (_helper("self._evict", MARGIN, DIFFERENCE, decorator="@staticmethod"), ["FT004"]),
    "from_end_exact": (_helper("self._evict", ids=FROM_END, decorator="@staticmethod"), []),
    "from_end_margin": (_helper("self._evict", MARGIN, FROM_END, decorator="@staticmethod"), ["FT004"]),
    "from_end_late": (
        _helper(
            "self._evict",
            "first = req.num_computed_tokens // mgr.block_size",
            FROM_END,
            decorator="@staticmethod",
        ),
        ["FT007"],
    ),
    "getattr_eviction_in_a_lambda": (LAMBDA.replace("BODY", _tail()), ["FT002"]),
    # requests carried beside their boundary in (request, boundary) tuples
    "pairs_of_running_requests": (_pairs("list(sched.running)", TAIL_BOUNDARY), []),
    "pairs_of_running_requests_late": (_pairs("list(sched.running)", "r.num_computed_tokens"), ["FT007"]),
    "pairs_of_one_request": (_pairs("[req]", TAIL_BOUNDARY), []),
    "pairs_of_one_request_late": (_pairs("[req]", "r.num_computed_tokens"), ["FT007"]),
    # a copy of the request has its request id: the eviction through it drops the request's tail
    "eviction_through_a_copy_of_the_request": (
        _pairs("[copy.copy(req)]", TAIL_BOUNDARY).replace("class Sentinel", "import copy\n\n\nclass Sentinel"),
        [],
    ),
    "eviction_through_a_copy_of_the_request_late": (
        _pairs("[copy.copy(req)]", "r.num_computed_tokens").replace(
            "class Sentinel", "import copy\n\n\nclass Sentinel"
        ),
        ["FT007"],
    ),
    # methods a decorator's wrapper dispatches to through `self` are in the fault path
    "wrapper_dispatches_to_a_method": (WRAPPED.replace("RESET", "pass"), ["FT008"]),
    "wrapper_dispatches_to_a_method_reset": (
        WRAPPED.replace("RESET", "req.num_in_flight_tokens = req.num_stale_output_tokens = 0"),
        [],
    ),
    # a module function reached only from a class-attribute lambda is in the fault path
    "class_lambda_reaches_a_range_check": (CLASS_LAMBDA.replace("BODY", _tail(ids=RANGE_CHECKED)), ["FT003"]),
    "class_lambda_reaches_no_range_check": (CLASS_LAMBDA.replace("BODY", _tail()), []),
}


@pytest.fixture(scope="module")
def findings(tmp_path_factory):
    root = write_project(tmp_path_factory.mktemp("evict"), {f"{name}.py": src for name, (src, _) in CASES.items()})
    code, found = findings_json("--select", "FT002,FT003,FT004,FT006,FT007,FT008", ".", cwd=root)
    assert code in (0, 1)
    return found


@pytest.mark.parametrize("name", sorted(CASES))
def test_eviction_idiom_verdict(findings, name):
    got = sorted({f["code"] for f in findings if f["path"] == f"{name}.py"})
    assert got == CASES[name][1], CASES[name][0]


def test_a_free_on_a_context_managers_exit_in_another_file_is_reported_at_the_with(tmp_path):
    """As for any helper of another file: the finding sits at the call in the handler's file
    that reaches the free (here the `with`), not in the helper's file."""
    releasing = (
        "import contextlib\n\n\n@contextlib.contextmanager\ndef releasing(sched):\n"
        '    try:\n        yield\n    finally:\n        sched.finish_requests(None, "aborted")\n'
    )
    handler = (
        "from rel import releasing\n\n\nclass Sentinel:\n    def on_fault(self, exc):\n"
        "        sched = self.scheduler\n        with releasing(sched):\n            pass\n"
    )
    root = write_project(tmp_path, {"rel.py": releasing, "h.py": handler})
    code, found = findings_json("--select", "FT007", ".", cwd=root)
    assert code == 1
    assert [(f["path"], f["line"], f["code"]) for f in found] == [("h.py", 7, "FT007")]
