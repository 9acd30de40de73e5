"""Issue 21: idioms the generator's newer axes showed the walk losing track of, each
modelled by value, both verdicts.

- vLLM's `run_method(obj, "name", args=(...), kwargs={...})` (vllm/v1/serial_utils.py, how
  engine-core RPCs dispatch) calls `obj.name(*args, **kwargs)`: its eviction, preempt or
  prefix-cache reset is that primitive's (was: unresolved, so an eviction through it gave a
  false FT007).
- A call the walk cannot follow that is given block ids inside a tuple or dict may evict them
  (precision: no FT007).
- `continue` in the eviction loop: `if req.num_in_flight_tokens > 0: continue` skips exactly
  the requests with a dirty tail (FT007), also in a loop over one request (`[req]`, pairs);
  skipping a request with no blocks (`not in mgr.req_to_blocks`) or no tokens in flight does not.
- Ids kept per request in a dict (`by_req[req.request_id] = ids`) and evicted from
  `set().union(*by_req.values())`: the dict's values are the ids (their boundary and extent
  are checked as if evicted directly).
(The handlers evicting in `on_fault`'s own body also get FT002.) One project holds every handler (one ftlint run); each test reads its own file's findings."""

import pytest

from tests.helpers import findings_json, write_project

HELPER = """from vllm.v1.serial_utils import run_method


class Sentinel:
    def on_fault(self, exc):
        sched = self.scheduler
        self._evict(sched.kv_cache_manager, list(sched.running))
        sched.finish_requests(None, "aborted")

    def _evict(self, kv, reqs):
        ids = set()
        for req in reqs:
            SKIP
            confirmed = BOUNDARY
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks[req.request_id]
                ids |= {b.block_id for b in blocks[confirmed // mgr.block_size:]}
        EVICT
"""
TAIL = "req.num_computed_tokens - req.num_in_flight_tokens"


def _helper(evict: str = "kv.evict_blocks(ids)", skip: str = "pass", boundary: str = TAIL) -> str:
    return HELPER.replace("EVICT", evict).replace("SKIP", skip).replace("BOUNDARY", boundary)


ONE_REQUEST = """class Sentinel:
    def on_fault(self, exc):
        sched = self.scheduler
        for req in list(sched.running):
            self._evict(sched.kv_cache_manager, [req])
            sched.finish_requests(req.request_id, "aborted")

    def _evict(self, kv, reqs):
        ids = set()
        pairs = [(r, r.num_computed_tokens - r.num_in_flight_tokens) for r in reqs]
        for req, confirmed in pairs:
            SKIP
            for mgr in kv.coordinator.single_type_managers:
                ids |= {b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]}
        kv.evict_blocks(ids)
"""

RESUME = """from vllm.v1.serial_utils import run_method


class Sentinel:
    def on_fault(self, exc):
        sched = self.scheduler
        kv = sched.kv_cache_manager
        for req in list(sched.running):
            ids = set()
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                ids |= {b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]}
            kv.evict_blocks(ids)
            run_method(sched, "_preempt_request", args=(req, 0.0), kwargs={})
            RESET
"""

BY_REQUEST = """class Sentinel:
    def on_fault(self, exc):
        sched = self.scheduler
        kv = sched.kv_cache_manager
        by_req = {}
        for req in list(sched.running):
            ids = set()
            confirmed = BOUNDARY
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks[req.request_id]
                ids |= {b.block_id for b in blocks[SLICE]}
            by_req[req.request_id] = ids
        kv.evict_blocks(set().union(*by_req.values()))
        sched.finish_requests(None, "aborted")
"""


def _by_request(boundary: str = TAIL, slice_: str = "confirmed // mgr.block_size:") -> str:
    return BY_REQUEST.replace("BOUNDARY", boundary).replace("SLICE", slice_)


PER_REQUEST_DICT = """from vllm.v1.serial_utils import run_method


class Sentinel:
    def on_fault(self, exc):
        sched = self.scheduler
        kv = sched.kv_cache_manager
        for req in tuple(sched.running):
            self._evict(kv, [req])
            sched.finish_requests(req.request_id, "aborted")

    def _evict(self, kv, reqs):
        by_req = {}
        for req in reqs:
            SKIP
            ids = set()
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                ids |= {b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]}
            by_req[req.request_id] = ids
        ids = set().union(*by_req.values())
        run_method(kv, "evict_blocks", args=(ids,), kwargs={})
"""

RPC_OF_A_HELPER = """from vllm.v1.serial_utils import run_method


def tail_ids(kv, reqs):
    ids = set()
    for req in reqs:
        SKIP
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            ids |= {b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]}
    return ids


class Sentinel:
    def on_fault(self, exc):
        sched = self.scheduler
        evict = lambda kv, reqs: run_method(kv, "evict_blocks", args=(tail_ids(kv, reqs),), kwargs={})
        evict(sched.kv_cache_manager, sched.running[:])
        sched.finish_requests(None, "aborted")
"""

LAMBDA_RPC = """from vllm.v1.serial_utils import run_method


class Sentinel:
    def on_fault(self, exc):
        sched = self.scheduler
        evict = lambda kv, ids: run_method(kv, "evict_blocks", args=(ids,), kwargs={})
        evict(sched.kv_cache_manager, set())
        sched.finish_requests(None, "aborted")
"""

# file stem: (handler source, the codes it must get)
CASES = {
    "run_method_evicts": (_helper('run_method(kv, "evict_blocks", args=(ids,), kwargs={})'), []),
    "run_method_evicts_by_keyword": (_helper('run_method(kv, "evict_blocks", (), {"block_ids": ids})'), []),
    "run_method_evicts_late": (
        _helper('run_method(kv, "evict_blocks", args=(ids,), kwargs={})', boundary="req.num_computed_tokens"),
        ["FT007"],
    ),
    "run_method_preempt_left_set": (RESUME.replace("RESET", "pass"), ["FT002", "FT008"]),
    "run_method_preempt_reset": (
        RESUME.replace("RESET", "req.num_in_flight_tokens = req.num_stale_output_tokens = 0"),
        ["FT002"],
    ),
    "run_method_in_a_handler_lambda": (LAMBDA_RPC, ["FT002"]),
    "unknown_rpc_given_ids_in_a_tuple": (_helper("self.rpc(kv, args=(ids,))"), []),
    "skip_with_tokens_in_flight": (
        _helper(skip="if req.num_in_flight_tokens > 0:\n                continue"),
        ["FT007"],
    ),
    "skip_with_tokens_in_flight_reversed": (
        _helper(skip="if 0 < req.num_in_flight_tokens:\n                continue"),
        ["FT007"],
    ),
    "skip_with_none_in_flight": (_helper(skip="if req.num_in_flight_tokens == 0:\n                continue"), []),
    "skip_a_request_without_blocks": (
        _helper(
            skip="if req.request_id not in kv.coordinator.single_type_managers[0].req_to_blocks:\n"
            "                continue"
        ),
        [],
    ),
    "one_request_skip_with_tokens_in_flight": (
        ONE_REQUEST.replace("SKIP", "if req.num_in_flight_tokens > 0:\n                continue"),
        ["FT007"],
    ),
    "one_request_no_skip": (ONE_REQUEST.replace("SKIP", "pass"), []),
    # one request at a time: skipped, nothing is collected and the empty set evicts nothing
    "per_request_dict_skip_with_tokens_in_flight": (
        PER_REQUEST_DICT.replace("SKIP", "if req.num_in_flight_tokens > 0:\n                continue"),
        ["FT007"],
    ),
    "per_request_dict_no_skip": (PER_REQUEST_DICT.replace("SKIP", "pass"), []),
    # `args=(helper(...),)`: the helper's ids, however many paths it has
    "rpc_of_a_helpers_ids_skip_with_tokens_in_flight": (
        RPC_OF_A_HELPER.replace("SKIP", "if req.num_in_flight_tokens > 0:\n            continue"),
        ["FT002", "FT007"],
    ),
    "rpc_of_a_helpers_ids": (RPC_OF_A_HELPER.replace("SKIP", "pass"), ["FT002"]),
    "ids_per_request_in_a_dict": (_by_request(), ["FT002"]),
    "ids_per_request_in_a_dict_late": (_by_request(boundary="req.num_computed_tokens"), ["FT002", "FT007"]),
    "ids_per_request_in_a_dict_whole": (_by_request(slice_=":"), ["FT002", "FT004"]),
}


@pytest.fixture(scope="module")
def findings(tmp_path_factory):
    root = write_project(tmp_path_factory.mktemp("idioms"), {f"{name}.py": src for name, (src, _) in CASES.items()})
    code, found = findings_json("--select", "FT002,FT004,FT005,FT006,FT007,FT008", ".", cwd=root)
    assert code in (0, 1)
    return found


@pytest.mark.parametrize("name", sorted(CASES))
def test_dispatch_and_skip_idiom_verdict(findings, name):
    got = sorted({f["code"] for f in findings if f["path"] == f"{name}.py"})
    assert got == CASES[name][1], CASES[name][0]


def test_an_internal_error_in_the_walk_is_reported_for_each_rule_that_asks(tmp_path, monkeypatch, capsys):
    """A crash inside the path walk is an internal error of every rule that reads its facts
    (exit 2), never "All checks passed": the walk marked done must not answer "no facts" to
    the next rule."""
    from ftlint.analysis.walk import control
    from ftlint.cli import main

    def crash(self, node, states):
        raise AttributeError("boom")

    monkeypatch.setattr(control.ControlFlow, "_if", crash)
    root = write_project(tmp_path, {"h.py": _helper(skip="if req.num_in_flight_tokens > 0:\n                continue")})
    monkeypatch.chdir(root)
    code = main(["check", "--no-cache", "--select", "FT004,FT007", "h.py"])
    err = capsys.readouterr().err
    assert code == 2
    assert "h.py: internal error in FT004 (broad-eviction): AttributeError: boom" in err
    assert "h.py: internal error in FT007 (missing-dirty-eviction): AttributeError: boom" in err
