"""Issue 21, item 2 (resume side): the idioms the handler generator shows users write around a
preempt for resume, each modelled by value, both verdicts. Counters reset through
`vars(req).update(...)`, `setattr` over a dict's items, a helper that `setattr`s its `**fields`,
a copy of the request (the resets miss it: still FT008), an unknown write (may reset: no
FT008); the preempt and `reset_prefix_cache` reached through `operator.methodcaller`,
`functools.partial`, a `**{...}` of arguments, a table of bound methods (a computed key: any
of its callables, a `None` entry is never called). One project holds every handler (one ftlint run); each test reads
its own file's findings."""

import inspect

import pytest

from tests.helpers import codes_at, findings_json, write_project

HEAD = "import copy\nimport functools\nimport operator\n\n"


def _handler(*lines: str, helpers: str = "") -> str:
    body = "\n".join(" " * 12 + line for line in lines)
    return (
        HEAD
        + inspect.cleandoc(helpers)
        + "\n\nclass Sentinel:\n    def on_fault(self, exc):\n        sched = self.scheduler\n"
        + "        self._evict_tails()\n        for req in list(sched.running):\n"
        + body
        + "\n\n    def _evict_tails(self):\n        self.kv.evict_blocks(set())\n"
    )


PREEMPT = "sched._preempt_request(req, 0.0)"
RESET = "req.num_in_flight_tokens = req.num_stale_output_tokens = 0"
SET_FIELDS = """
def _set_fields(obj, **fields):
    for name, value in fields.items():
        setattr(obj, name, value)
"""

# file stem: (handler source, the codes it must get)
CASES = {
    # counters reset through vars(), setattr over a dict's items, a helper's **fields
    "vars_update_both": (_handler(PREEMPT, "vars(req).update(num_in_flight_tokens=0, num_stale_output_tokens=0)"), []),
    "vars_update_one": (_handler(PREEMPT, "vars(req).update(num_stale_output_tokens=0)"), ["FT008"]),
    "dunder_dict_update": (
        _handler(PREEMPT, "req.__dict__.update({'num_in_flight_tokens': 0, 'num_stale_output_tokens': 0})"),
        [],
    ),
    "setattr_dict_items": (
        _handler(
            PREEMPT,
            "for field, value in {'num_in_flight_tokens': 0, 'num_stale_output_tokens': 0}.items():",
            "    setattr(req, field, value)",
        ),
        [],
    ),
    "setattr_dict_items_one": (
        _handler(PREEMPT, "for field, value in {'num_in_flight_tokens': 0}.items():", "    setattr(req, field, value)"),
        ["FT008"],
    ),
    "helper_kwargs": (
        _handler(PREEMPT, "_set_fields(req, num_in_flight_tokens=0, num_stale_output_tokens=0)", helpers=SET_FIELDS),
        [],
    ),
    "helper_kwargs_one": (
        _handler(PREEMPT, "_set_fields(req, num_stale_output_tokens=0)", helpers=SET_FIELDS),
        ["FT008"],
    ),
    # a copy of the request: the resets miss the real one; an alias does not
    "copy_of_request": (
        _handler(
            PREEMPT, "target = copy.copy(req)", "target.num_in_flight_tokens = target.num_stale_output_tokens = 0"
        ),
        ["FT008"],
    ),
    "alias_of_request": (
        _handler(PREEMPT, "target = req", "target.num_in_flight_tokens = target.num_stale_output_tokens = 0"),
        [],
    ),
    # a write the walk cannot place may reset the counters: no finding
    "unknown_mapping": (_handler(PREEMPT, "vars(req).update(self.cleared_fields())"), []),
    "unknown_object": (
        _handler(PREEMPT, "other = self.lookup(req)", "other.num_in_flight_tokens = other.num_stale_output_tokens = 0"),
        [],
    ),
    # the preempt through operator.methodcaller, **{...}, a keyword, a table of methods
    "methodcaller_no_reset": (_handler('operator.methodcaller("_preempt_request", req, 0.0)(sched)'), ["FT008"]),
    "methodcaller_reset": (
        _handler(
            'operator.methodcaller("_preempt_request", req, 0.0)(sched)',
            "req.num_in_flight_tokens = req.num_stale_output_tokens = 0",
        ),
        [],
    ),
    "methodcaller_drop": (
        _handler('operator.methodcaller("_preempt_request", req, 0.0, drop_stale_output=True)(sched)'),
        ["FT001"],
    ),
    "star_star_no_reset": (_handler('sched._preempt_request(**{"request": req, "timestamp": 0.0})'), ["FT008"]),
    "star_star_drop": (
        _handler('sched._preempt_request(**{"request": req, "timestamp": 0.0, "drop_stale_output": True})'),
        ["FT001"],
    ),
    "star_star_options_drop": (
        _handler('options = {"drop_stale_output": True}', "sched._preempt_request(req, 0.0, **options)"),
        ["FT001"],
    ),
    "star_star_reset": (
        _handler(
            'sched._preempt_request(**{"request": req, "timestamp": 0.0})',
            "req.num_in_flight_tokens = req.num_stale_output_tokens = 0",
        ),
        [],
    ),
    "keyword_preempted_req": (_handler("sched.preempt_request(preempted_req=req, timestamp=0.0)"), ["FT008"]),
    "dict_literal_key": (_handler('ops = {"preempt": sched._preempt_request}', 'ops["preempt"](req, 0.0)'), ["FT008"]),
    "dict_computed_key": (
        _handler(
            'ops = {"do_preempt": sched._preempt_request, "skip": None}', 'ops["_".join(("do", "preempt"))](req, 0.0)'
        ),
        ["FT008"],
    ),
    "dict_computed_key_reset": (
        _handler(
            'ops = {"do_preempt": sched._preempt_request, "skip": None}',
            'ops["_".join(("do", "preempt"))](req, 0.0)',
            RESET,
        ),
        [],
    ),
    # the request rebound by a loop over a one-item list is still the request
    "loop_over_one_item_list": (_handler("for req in [req]:", "    " + PREEMPT), ["FT008"]),
    "loop_over_one_item_list_reset": (_handler("for req in [req]:", "    " + PREEMPT, "    " + RESET), []),
    # reset_prefix_cache reached however it is spelled (FT005)
    "rpc_partial": (_handler(PREEMPT, RESET, "functools.partial(sched.reset_prefix_cache)()"), ["FT005"]),
    "rpc_methodcaller": (_handler(PREEMPT, RESET, 'operator.methodcaller("reset_prefix_cache")(sched)'), ["FT005"]),
    "rpc_alias": (_handler(PREEMPT, RESET, "reset = sched.reset_prefix_cache", "reset()"), ["FT005"]),
    "rpc_getattr": (_handler(PREEMPT, RESET, 'getattr(sched, "reset_prefix_cache")()'), ["FT005"]),
    "rpc_dict_literal": (
        _handler(PREEMPT, RESET, 'ops = {"reset": sched.reset_prefix_cache}', 'ops["reset"]()'),
        ["FT005"],
    ),
    "rpc_dict_computed": (
        _handler(
            PREEMPT,
            RESET,
            'ops = {"do_reset": sched.reset_prefix_cache, "skip": None}',
            'ops["_".join(("do", "reset"))]()',
        ),
        ["FT005"],
    ),
}


@pytest.fixture(scope="module")
def findings(tmp_path_factory):
    root = write_project(tmp_path_factory.mktemp("resume"), {f"{name}.py": src for name, (src, _) in CASES.items()})
    code, found = findings_json("--select", "FT001,FT005,FT008", ".", cwd=root)
    assert code in (0, 1)
    return found


@pytest.mark.parametrize("name", sorted(CASES))
def test_resume_idiom_verdict(findings, name):
    got = sorted({f["code"] for f in findings if f["path"] == f"{name}.py"})
    assert got == CASES[name][1]


def test_partial_preempt_names_the_request_not_the_timestamp(tmp_path):
    src = _handler("functools.partial(sched._preempt_request, req)(0.0)")
    root = write_project(tmp_path, {"h.py": src})
    code, found = findings_json("--select", "FT008", ".", cwd=root)
    assert code == 1
    [finding] = found
    assert "preempts `req` for resume" in finding["message"], finding["message"]


DISPATCH = """
class Sentinel:
    def on_fault(self, exc):
        sched = self.scheduler
        self._evict_tails()
        actions = {True: self._resume_all, False: self._abort_all}
        actions[bool(self.resume)](sched)

    def _evict_tails(self):
        self.kv.evict_blocks(set())

    def _abort_all(self, sched):
        sched.finish_requests(None, "aborted")

    def _resume_all(self, sched):
        for req in list(sched.running):
            sched._preempt_request(req, 0.0)
            RESET
"""


@pytest.mark.parametrize(("reset", "expected"), [("pass", [("h.py", 16, "FT008")]), (RESET, [])])
def test_a_table_of_methods_with_a_computed_key_walks_each_method(tmp_path, reset, expected):
    """`{True: self._resume_all, False: self._abort_all}[bool(flag)](sched)`: either method may
    run (as with `if flag:`), so each is in the fault path and walked. A table that also holds a
    non-callable (`"skip": None`) runs one of its callables (calling the other raises: the
    dict_computed cases above)."""
    root = write_project(tmp_path, {"h.py": DISPATCH.replace("RESET", reset)})
    code, found = findings_json("--select", "FT008", ".", cwd=root)
    assert code == (1 if expected else 0)
    assert codes_at(found) == expected
