"""A seeded grammar of fault handlers: the runtime oracle's feed (issue 21, item 1).

Every handler is drawn from independent axes (:data:`AXES`), one value per axis, with
``random.Random(f"ftlint-gen:{seed}:{index}")``: handler ``index`` of ``seed`` is the same
on every machine and Python version (``random.Random`` seeded with a string is stable),
and any handler can be regenerated alone from ``(seed, index)``.  A plain seeded grammar
rather than a Hypothesis strategy: the agreement script needs thousands of handlers with
stable names and no shrinking database, and its own shrinker (``shrink_candidates``)
replaces one axis at a time by its simplest value, which keeps each candidate a valid
handler of the grammar.

A handler is written in the corpus' shape (tests/differential/README.md): a directory
holding ``handler.py`` with ``class FaultHandler`` built as ``FaultHandler(engine)`` and
``on_fault(self, exc)`` working on ``self.engine.scheduler``, a header comment
(``# Intended:`` with the axis values, ``# switch: resume`` when it has both paths,
``# vllm: 0.26`` for the older stale-output API), and helper modules beside it
(``ft_kv.py``, ``ft_base.py``) when an axis puts an effect there.

Some combinations cannot be written (a per-request eviction inside a decorator that
wraps the whole handler); :func:`normalize` maps each to the nearest writable one,
deterministically, so a spec is always renderable and renders to runnable code.

Truth: the runtime-visible families (FTR01-FTR05) come from the oracle; the static-only
codes FT002, FT003 and FT005 come from what was injected (:func:`static_truth`).
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, replace

# -- the axes -----------------------------------------------------------------------

#: where the eviction happens (the block ids are computed beside it)
SITES = (
    "inline",  # in on_fault's own body
    "helper",  # a method of the handler
    "module_func",  # a function in another module (ft_kv.py)
    "mixin",  # a method of a base class in another module (ft_base.py)
    "staticmethod",
    "classmethod",
    "closure",  # a function nested in on_fault
    "lambda_local",  # a lambda bound in on_fault
    "lambda_attr",  # a lambda kept as a class attribute
    "decorator_before",  # a decorator around on_fault evicts before the body
    "decorator_after",  # ... collects before the body and evicts after it
    "ctx_enter",  # a @contextmanager evicts on enter; the release runs in the with body
    "ctx_exit",  # ... collects on enter, evicts in its finally (after the body)
    "generator",  # the ids come from a generator function
    "chain3",  # on_fault -> _recover -> _evict_running -> _evict_request
)
#: how one request's dirty block ids are computed, per KV-cache group
IDS = (
    "slice_first",  # blocks[first:]
    "slice_end",  # blocks[-n_tail:] (from the other boundary)
    "enumerate",  # i >= first in a comprehension over enumerate
    "difference",  # all ids minus the confirmed prefix's ids
    "walrus",  # blocks[(first := ...):]
    "loop_add",  # for b in blocks[first:]: ids.add(...)
    "star_union",  # set().union(*per-group parts)
    "star_unpack",  # ids = {*ids, *(...)}
    "pairs",  # the requests carried as (request, confirmed boundary) tuples
)
#: where the ids are accumulated: one set for all requests, or a dict keyed by request id
#: (a fresh set per request) whose values are joined for the eviction
COLLECTS = ("set", "by_request")
#: how the eviction loop copies the running queue it walks
SNAPSHOTS = ("list", "slice", "sorted", "tuple")
FILTERS = ("none", "is_null", "hashed", "both")
GROUPS = ("all", "first_only_lookalike")  # "first_only" is an FT007 defect below
#: how a call of a vLLM method is spelled
#: ("options": the keywords in a dict built apart, `opts = {}` ... `opts["k"] = v` ... `f(**opts)`;
#: "run_method": vllm.v1.serial_utils.run_method(obj, "name", args=..., kwargs=...), as the
#: fork's sentinels dispatch commands; "unpacked": `method, params = "name", {...}` then
#: `getattr(obj, method)(**params)`, as the fork unpacks a command's instruction and params)
CALLS = (
    "direct",
    "alias",
    "getattr",
    "methodcaller",
    "partial",
    "dict_literal",
    "dict_computed",
    "kwargs",
    "options",
    "run_method",
    "unpacked",
)
#: how the lost step's counters are reset after a preempt
RESETS = ("assign", "chained", "setattr_names", "setattr_dict", "vars_update", "helper_kwargs")
#: how the running queue is drained for resume
DRAINS = ("while_pop", "pop_comprehension", "reversed_remove")
GRANULARITY = ("batch", "per_request")
#: control flow around on_fault's body
FLOWS = (
    "plain",
    "early_return",
    "try_finally",
    "try_else",
    "isinstance_gate",
    "match_exc",
    "ctx_release",
    "deco_release",
)
SWITCH_STYLES = ("if", "match", "dict_dispatch")
#: which object the counter resets are written on: the preempted request, an alias of it,
#: or a copy of it (copy.copy: the resets miss the real request)
REQUEST_REFS = ("same", "alias", "copy")
MODES = ("abort", "resume", "switch")
APIS = ("0.34", "0.26")
#: the injected defect (named after the rule that should report it) or a correct look-alike
DEFECTS = (
    "none",
    "ft001_drop_flag",  # preempt that marks the next frame stale (0.34: drop_stale_output=True; 0.26: discard copy)
    "ft003_range_check",  # defensive 0 <= id < len(pool) filter: never fires
    "ft003_range_drop",  # id < len(blocks) filter: drops dirty ids
    "ft004_whole_list",
    "ft004_margin",  # one block of margin before the boundary
    "ft004_pool",  # every block of the pool
    "ft005_reset_prefix_cache",  # reset_prefix_cache() after the release
    "ft006_late",  # the ids are read (and evicted) after the release
    "ft007_none",  # no eviction at all
    "ft005_reset_instead",  # no eviction; reset_prefix_cache() before the release (blocks held: it fails)
    "ft007_first_group",  # only KV-cache group 0
    "ft007_computed",  # boundary from num_computed_tokens alone
    "ft007_break",  # the eviction loop stops after the first request
    "ft007_gate",  # eviction only for isinstance(exc, TimeoutError)
    "ft007_only_abort",  # switch: eviction only on the abort path
    "ft007_only_resume",  # switch: eviction only on the resume path
    "ft008_none",  # no counter reset after the preempt
    "ft008_one",  # only one counter reset
    "la_split",  # look-alike: ids collected before the release, evicted after it
    "la_skip_idle",  # look-alike: skip requests without in-flight tokens
    "la_assert",  # look-alike: assert 0 <= first <= len(blocks) (an invariant, not FT003)
    "la_if_ids",  # look-alike: `if ids:` around the eviction
    "la_zero_before",  # look-alike (0.34): num_in_flight_tokens = 0 before the preempt
    "la_drop_after_zero",  # look-alike (0.34): zeroed first, then preempt with drop_stale_output=True
    "ft009_decrement",  # num_output_placeholders -= 1 after the preempt and resets: already 0, goes to -1
    "la_decrement_first",  # look-alike: the same decrement before the preempt (the preempt or reset sets 0)
    "ft007_skip_inflight",  # the eviction loop `continue`s past requests with in-flight tokens: the dirty ones
    "la_skip_unknown",  # look-alike: `continue` past requests without blocks in group 0 (never, before the release)
)

AXES: dict[str, tuple[str, ...]] = {
    "api": APIS,
    "mode": MODES,
    "site": SITES,
    "ids": IDS,
    "filter": FILTERS,
    "evict_call": CALLS,
    "release_call": CALLS,
    "reset": RESETS,
    "drain": DRAINS,
    "granularity": GRANULARITY,
    "flow": FLOWS,
    "switch_style": SWITCH_STYLES,
    "defect": DEFECTS,
    "request_ref": REQUEST_REFS,
    "collect": COLLECTS,
    "snapshot": SNAPSHOTS,
}
#: the simplest value of each axis (the shrinker moves axes here one at a time)
SIMPLEST: dict[str, str] = {
    "api": "0.34",
    "mode": "abort",
    "site": "helper",
    "ids": "slice_first",
    "filter": "none",
    "evict_call": "direct",
    "release_call": "direct",
    "reset": "assign",
    "drain": "while_pop",
    "granularity": "batch",
    "flow": "plain",
    "switch_style": "if",
    "defect": "none",
    "request_ref": "same",
    "collect": "set",
    "snapshot": "list",
}
# "none" is drawn as often as three defects: a fair share of correct handlers.
_DEFECT_WEIGHTS = [3 if d == "none" else 1 for d in DEFECTS]

#: axes added after request_ref, drawn after it in this order
_LATE_AXES = ("collect", "snapshot")
_WRAPPER_SITES = ("decorator_before", "decorator_after", "ctx_enter", "ctx_exit")
_LAMBDA_SITES = ("lambda_local", "lambda_attr")
_RESUME_DEFECTS = (
    "ft001_drop_flag",
    "ft008_none",
    "ft008_one",
    "la_zero_before",
    "la_drop_after_zero",
    "ft009_decrement",
    "la_decrement_first",
)
_DECREMENT = "req.num_output_placeholders -= 1"


@dataclass(frozen=True)
class Spec:
    """One handler: a value per axis (see :data:`AXES`)."""

    seed: int
    index: int
    api: str
    mode: str
    site: str
    ids: str
    filter: str
    evict_call: str
    release_call: str
    reset: str
    drain: str
    granularity: str
    flow: str
    switch_style: str
    defect: str
    request_ref: str = "same"
    collect: str = "set"
    snapshot: str = "list"

    @property
    def name(self) -> str:
        return f"g{self.seed}_{self.index:05d}"

    def axes(self) -> dict[str, str]:
        d = asdict(self)
        return {k: d[k] for k in AXES}

    @property
    def evicts(self) -> bool:
        return self.defect not in ("ft007_none", "ft005_reset_instead")

    @property
    def order(self) -> str:
        """before (evict, then release), split (collect, release, evict), late (release,
        then collect and evict: FT006)."""
        if self.defect == "ft006_late":
            return "late"
        if self.defect == "la_split" or self.site in ("decorator_after", "ctx_exit"):
            return "split"
        return "before"


def draw(seed: int, index: int) -> Spec:
    """Handler ``index`` of ``seed``: one value per axis, then :func:`normalize`."""
    rng = random.Random(f"ftlint-gen:{seed}:{index}")
    late = ("defect", "request_ref", *_LATE_AXES)
    values = {axis: rng.choice(choices) for axis, choices in AXES.items() if axis not in late}
    values["defect"] = rng.choices(DEFECTS, weights=_DEFECT_WEIGHTS)[0]
    values["request_ref"] = rng.choice(REQUEST_REFS)  # drawn last: the earlier axes keep their values
    for axis in _LATE_AXES:
        values[axis] = rng.choice(AXES[axis])
    return normalize(Spec(seed=seed, index=index, **values))


def _releases_in_context(s: Spec) -> bool:
    """Whether the release can move into a `@contextmanager`'s finally: the evictions must
    stay in on_fault's body, before the release."""
    only_one_path = s.defect in ("ft007_only_abort", "ft007_only_resume")
    return s.granularity == "batch" and s.site not in _WRAPPER_SITES and s.order == "before" and not only_one_path


def _normalize_release(s: Spec) -> Spec:
    if s.defect in ("ft009_decrement", "la_decrement_first") and s.request_ref == "copy":
        s = replace(s, request_ref="same")  # the resets must reach the request the decrement is on
    if s.flow in ("ctx_release", "deco_release") and not _releases_in_context(s):
        s = replace(s, flow="plain")
    return s


#: a lambda holds one expression: calls written in statements get their one-expression kin
_LAMBDA_CALLS = {"alias": "direct", "options": "kwargs", "unpacked": "getattr"}


def _normalize_lambda(s: Spec) -> Spec:
    s = replace(s, granularity="batch", evict_call=_LAMBDA_CALLS.get(s.evict_call, s.evict_call))
    if s.defect == "la_if_ids":
        s = replace(s, site="helper")
    return s


def normalize(spec: Spec) -> Spec:
    """The nearest writable spec (documented rules, applied in order)."""
    s = spec
    d = s.defect
    if d in _RESUME_DEFECTS and s.mode == "abort":
        s = replace(s, mode="resume")
    if d in ("la_zero_before", "la_drop_after_zero"):
        s = replace(s, api="0.34")  # 0.26's preempt does not copy num_in_flight_tokens anywhere
    if d in ("ft007_only_abort", "ft007_only_resume"):
        s = replace(s, mode="switch", granularity="batch")
    if s.defect in ("ft006_late", "la_split"):
        s = replace(s, granularity="batch")
        if s.site == "decorator_before":
            s = replace(s, site="decorator_after")
        elif s.site == "ctx_enter":
            s = replace(s, site="ctx_exit")
        elif s.site not in ("inline", "helper", "module_func", "decorator_after", "ctx_exit"):
            s = replace(s, site="helper")
    if s.site in _WRAPPER_SITES:
        s = replace(s, granularity="batch")
        if s.defect in ("ft007_gate", "ft007_only_abort", "ft007_only_resume"):
            s = replace(s, site="helper")
    if s.site in _LAMBDA_SITES:
        s = _normalize_lambda(s)
    s = _normalize_release(s)
    if s.granularity == "per_request" and s.defect in ("ft007_break", "ft004_pool"):
        s = replace(s, granularity="batch")
    return s


def generate(seed: int, n: int, start: int = 0) -> list[Spec]:
    return [draw(seed, i) for i in range(start, start + n)]


# -- static-only truth ------------------------------------------------------------------


def static_truth(spec: Spec) -> set[str]:
    """The static-only codes this handler must get, from what was injected: FT002 (an
    eviction written in on_fault's own body, nested functions and lambdas included), FT003
    (a defensive range check in fault-path code), FT005 (reset_prefix_cache in a fault path)."""
    out: set[str] = set()
    if spec.evicts and spec.site in ("inline", "closure", "lambda_local") and not _evicts_in_mode_methods(spec):
        out.add("FT002")
    if spec.evicts and spec.defect in ("ft003_range_check", "ft003_range_drop"):
        out.add("FT003")
    if spec.defect in ("ft005_reset_prefix_cache", "ft005_reset_instead"):
        out.add("FT005")
    return out


def _evicts_in_mode_methods(spec: Spec) -> bool:
    """Whether every eviction is in `_resume_all` / `_abort_all`, the named methods a dict
    dispatches the switch to: helpers of on_fault, where FT002 wants the eviction."""
    if spec.mode != "switch" or spec.switch_style != "dict_dispatch":
        return False
    return spec.granularity == "per_request" or spec.defect in ("ft007_only_abort", "ft007_only_resume")


# -- rendering ---------------------------------------------------------------------------


def _indent(lines: list[str], n: int = 1) -> list[str]:
    pad = "    " * n
    return [pad + line if line else line for line in lines]


_PARAMS = {
    "evict_blocks": ("block_ids",),
    "finish_requests": ("request_ids", "finished_status"),
    "_preempt_request": ("request", "timestamp"),
    "reset_prefix_cache": (),
}


class _Ctx:
    """Imports and unique local names a rendering needs."""

    def __init__(self) -> None:
        self.imports: set[str] = set()
        self.counter = 0

    def fresh(self, base: str) -> str:
        self.counter += 1
        return f"{base}_{self.counter}"


def spell_call(
    ctx: _Ctx,
    style: str,
    obj: str,
    meth: str,
    args: list[str],
    extra: dict[str, str] | None = None,
    target: str | None = None,
) -> list[str]:
    """Lines calling ``obj.meth(*args, **extra)`` in one of :data:`CALLS` spellings."""
    extra = extra or {}
    tgt = f"{target} = " if target else ""
    pos = ", ".join(args + [f"{k}={v}" for k, v in extra.items()])
    short = meth.strip("_").split("_")[0]
    if style == "alias":
        alias = ctx.fresh(short)
        return [f"{alias} = {obj}.{meth}", f"{tgt}{alias}({pos})"]
    if style == "getattr":
        return [f'{tgt}getattr({obj}, "{meth}")({pos})']
    if style == "methodcaller":
        ctx.imports.add("import operator")
        inner = ", ".join([f'"{meth}"', *args, *(f"{k}={v}" for k, v in extra.items())])
        return [f"{tgt}operator.methodcaller({inner})({obj})"]
    if style == "partial":
        ctx.imports.add("import functools")
        bound = [f"{obj}.{meth}", *args[:1], *(f"{k}={v}" for k, v in extra.items())]
        return [f"{tgt}functools.partial({', '.join(bound)})({', '.join(args[1:])})"]
    if style == "dict_literal":
        ops = ctx.fresh("ops")
        return [f'{ops} = {{"{short}": {obj}.{meth}}}', f'{tgt}{ops}["{short}"]({pos})']
    if style == "dict_computed":
        ops = ctx.fresh("ops")
        return [
            f'{ops} = {{"do_{short}": {obj}.{meth}, "skip": None}}',
            f'{tgt}{ops}["_".join(("do", "{short}"))]({pos})',
        ]
    if style == "options":
        return _options_call(ctx, obj, meth, args, extra, tgt)
    if style == "unpacked":
        keep = args if meth == "_preempt_request" else []
        named = [] if keep else list(zip(_PARAMS[meth], args, strict=False))
        items = ", ".join(f'"{k}": {v}' for k, v in [*named, *extra.items()])
        call_args = ", ".join([*keep, "**params"])
        return [f'method, params = "{meth}", {{{items}}}', f"{tgt}getattr({obj}, method)({call_args})"]
    if style == "run_method":
        ctx.imports.add("from vllm.v1.serial_utils import run_method")
        packed = f"({args[0]},)" if len(args) == 1 else f"({', '.join(args)})"
        kw = ", ".join(f'"{k}": {v}' for k, v in extra.items())
        return [f'{tgt}run_method({obj}, "{meth}", args={packed}, kwargs={{{kw}}})']
    if style == "kwargs":
        names = _PARAMS[meth]
        items = [f'"{n}": {a}' for n, a in zip(names, args, strict=False)]
        items += [f'"{k}": {v}' for k, v in extra.items()]
        return [f"{tgt}{obj}.{meth}(**{{{', '.join(items)}}})"]
    return [f"{tgt}{obj}.{meth}({pos})"]


def _options_call(ctx: _Ctx, obj: str, meth: str, args: list[str], extra: dict[str, str], tgt: str) -> list[str]:
    """The keywords in a dict built apart, item by item (a flag through a variable):
    ``_preempt_request`` keeps its request and timestamp positional, the others take
    every argument by name."""
    opts = ctx.fresh("opts")
    keep = args if meth == "_preempt_request" else []
    named = [] if keep else list(zip(_PARAMS[meth], args, strict=False))
    out = [f"{opts} = {{}}"]
    out += [f'{opts}["{k}"] = {v}' for k, v in named]
    for k, v in extra.items():
        out += [f"flag = {v}", f'{opts}["{k}"] = flag']
    call_args = ", ".join([*keep, f"**{opts}"])
    return [*out, f"{tgt}{obj}.{meth}({call_args})"]


def _evict_expr(ctx: _Ctx, style: str, kv: str, ids: str) -> str:
    """The eviction as one expression (for lambdas)."""
    if style in ("dict_literal", "dict_computed"):
        return f'{{"evict": {kv}.evict_blocks}}["evict"]({ids})'
    lines = spell_call(ctx, style if style != "alias" else "direct", kv, "evict_blocks", [ids])
    return lines[0]


def _filter_cond(spec: Spec) -> str:
    if spec.defect == "ft003_range_check":
        return "0 <= b.block_id < len(kv.block_pool.blocks)"
    if spec.defect == "ft003_range_drop":
        return "b.block_id < len(blocks)"
    return {
        "none": "",
        "is_null": "not b.is_null",
        "hashed": "b.block_hash is not None",
        "both": "not b.is_null and b.block_hash is not None",
    }[spec.filter]


def _per_group(spec: Spec, first_expr: str) -> list[str]:
    """Lines adding this group's dirty ids (``blocks``, ``mgr`` bound) to ``ids``."""
    cond = _filter_cond(spec)
    if_cond = f" if {cond}" if cond else ""
    and_cond = f" and {cond}" if cond else ""
    d = spec.defect
    if d == "ft004_whole_list":
        return [f"ids |= {{b.block_id for b in blocks{if_cond}}}"]
    if d == "ft004_pool":
        return [f"ids |= {{b.block_id for b in kv.block_pool.blocks{if_cond}}}"]
    pre = [f"first = {first_expr}"]
    if d == "la_assert":
        pre.append("assert 0 <= first <= len(blocks)")
    kind = spec.ids
    if kind == "walrus" and d != "la_assert":
        # (a walrus may not sit in a comprehension's iterable: bind the slice first)
        return [f"tail = blocks[(first := {first_expr}):]", f"ids |= {{b.block_id for b in tail{if_cond}}}"]
    if kind == "slice_end":
        return [
            *pre,
            "n_tail = len(blocks) - first",
            f"ids |= {{b.block_id for b in (blocks[-n_tail:] if n_tail > 0 else []){if_cond}}}",
        ]
    if kind == "enumerate":
        return [*pre, f"ids |= {{b.block_id for i, b in enumerate(blocks) if i >= first{and_cond}}}"]
    if kind == "difference":
        return [*pre, f"ids |= {{b.block_id for b in blocks{if_cond}}} - {{b.block_id for b in blocks[:first]}}"]
    if kind == "loop_add":
        if cond:
            return [*pre, "for b in blocks[first:]:", f"    if {cond}:", "        ids.add(b.block_id)"]
        return [*pre, "for b in blocks[first:]:", "    ids.add(b.block_id)"]
    if kind == "star_union":
        return [*pre, f"parts.append({{b.block_id for b in blocks[first:]{if_cond}}})"]
    if kind == "star_unpack":
        return [*pre, f"ids = {{*ids, *(b.block_id for b in blocks[first:]{if_cond})}}"]
    return [*pre, f"ids |= {{b.block_id for b in blocks[first:]{if_cond}}}"]


def snapshot(spec: Spec, running: str) -> str:
    """The copy of the running queue an eviction loop walks (:data:`SNAPSHOTS`)."""
    return {
        "list": f"list({running})",
        "slice": f"{running}[:]",
        "sorted": f"sorted({running}, key=lambda r: r.arrival_time)",
        "tuple": f"tuple({running})",
    }[spec.snapshot]


_SKIPS = {
    "la_skip_idle": "not req.num_in_flight_tokens",
    "ft007_skip_inflight": "req.num_in_flight_tokens > 0",
    "la_skip_unknown": "req.request_id not in kv.coordinator.single_type_managers[0].req_to_blocks",
}


def tail_lines(spec: Spec, reqs: str) -> list[str]:
    """Lines computing ``ids``: the dirty block ids of every request in ``reqs``
    (``kv`` is the KVCacheManager)."""
    d = spec.defect
    if d == "ft007_computed":
        confirmed = "confirmed = req.num_computed_tokens"
    else:
        confirmed = "confirmed = req.num_computed_tokens - req.num_in_flight_tokens"
    first = "max(confirmed // mgr.block_size - 1, 0)" if d == "ft004_margin" else "confirmed // mgr.block_size"
    group_body = ["blocks = mgr.req_to_blocks[req.request_id]", *_per_group(spec, first)]
    star = spec.ids == "star_union" and d not in ("ft004_whole_list", "ft004_pool")
    body: list[str] = []
    if d in _SKIPS:
        body += [f"if {_SKIPS[d]}:", "    continue"]
    by_request = spec.collect == "by_request"
    if by_request:  # a fresh set per request, kept under its id
        body.append("ids = set()")
    head = [f"for req in {reqs}:"]
    if spec.ids == "pairs":  # each request beside its boundary, unpacked by the loop
        boundary = confirmed.split(" = ", 1)[1].replace("req.", "r.")
        head = [f"pairs = [(r, {boundary}) for r in {reqs}]", "for req, confirmed in pairs:"]
    else:
        body.append(confirmed)
    if star:
        body.append("parts = []")
    if d == "ft007_first_group":
        body += ["mgr = kv.coordinator.single_type_managers[0]", *group_body]
    else:
        body += ["for mgr in kv.coordinator.single_type_managers:", *_indent(group_body)]
    if star:
        body.append("ids |= set().union(*parts)")
    if by_request:
        body.append("by_req[req.request_id] = ids")
    if d == "ft007_break":
        body.append("break")
    if by_request:
        return ["by_req = {}", *head, *_indent(body), "ids = set().union(*by_req.values())"]
    return ["ids = set()", *head, *_indent(body)]


def evict_lines(ctx: _Ctx, spec: Spec, kv: str = "kv", ids: str = "ids") -> list[str]:
    call = spell_call(ctx, spec.evict_call, kv, "evict_blocks", [ids])
    if spec.defect == "la_if_ids":
        return [f"if {ids}:", *_indent(call)]
    return call


def _counters(spec: Spec) -> tuple[str, str]:
    return ("num_in_flight_tokens", "num_stale_output_tokens" if spec.api == "0.34" else "num_output_placeholders")


class _Module:
    """Top-level definitions of one module (besides its imports)."""

    def __init__(self) -> None:
        self.defs: list[list[str]] = []
        self.imports: set[str] = set()

    def add(self, lines: list[str]) -> None:
        self.defs.append(lines)

    def text(self, header: list[str] | None = None) -> str:
        out = list(header or [])
        out += sorted(i for i in self.imports if i.startswith("import "))
        out += sorted(i for i in self.imports if i.startswith("from "))
        for lines in self.defs:
            out += ["", "", *lines] if out else lines
        return "\n".join(out).rstrip() + "\n"


@dataclass
class _Render:
    spec: Spec
    ctx: _Ctx
    handler: _Module
    side: _Module  # ft_kv.py / ft_base.py contents
    side_name: str | None
    methods: list[list[str]]  # extra methods of FaultHandler
    class_attrs: list[str]
    bases: str
    decorators: list[str]  # on on_fault

    # -- the eviction, wherever it lives -------------------------------------------

    def routine(self, reqs: str = "reqs") -> list[str]:
        """Body of an eviction routine over ``reqs`` (``kv`` bound)."""
        return [*tail_lines(self.spec, reqs), *evict_lines(self.ctx, self.spec)]

    def eviction_call(self, reqs: str) -> list[str]:
        """Lines in on_fault (``sched`` bound) that evict the tails of ``reqs``: the
        site decides where the code lives."""
        s = self.spec
        site = s.site
        if site == "inline":
            return ["kv = sched.kv_cache_manager", *tail_lines(s, reqs), *evict_lines(self.ctx, s)]
        if site == "helper":
            self.method("_evict_tails", "self, kv, reqs", self.routine())
            return [f"self._evict_tails(sched.kv_cache_manager, {reqs})"]
        if site == "staticmethod":
            self.method("_evict_tails", "kv, reqs", self.routine(), "@staticmethod")
            return [f"self._evict_tails(sched.kv_cache_manager, {reqs})"]
        if site == "classmethod":
            self.method("_evict_tails", "cls, kv, reqs", self.routine(), "@classmethod")
            return [f"type(self)._evict_tails(sched.kv_cache_manager, {reqs})"]
        if site == "module_func":
            self.side_fn("evict_tails", "kv, reqs", self.routine())
            return [f"evict_tails(sched.kv_cache_manager, {reqs})"]
        if site == "mixin":
            self.side_name = "ft_base"
            if not self.side.defs:
                self.side.add(
                    [
                        "class TailEvictionMixin:",
                        '    """Evicts the unconfirmed tails of the given requests."""',
                        "",
                        "    def evict_tails(self, kv, reqs):",
                        *_indent(self.routine(), 2),
                    ]
                )
                self.side.imports |= self.ctx.imports
                self.handler.imports.add("from ft_base import TailEvictionMixin")
                self.bases = "TailEvictionMixin"
            return [f"self.evict_tails(sched.kv_cache_manager, {reqs})"]
        if site == "closure":
            return [
                "kv = sched.kv_cache_manager",
                "",
                "def evict_tails(reqs):",
                *_indent(self.routine()),
                "",
                f"evict_tails({reqs})",
            ]
        if site in _LAMBDA_SITES:
            self.module_fn("tail_ids", "kv, reqs", [*tail_lines(s, "reqs"), "return ids"])
            expr = _evict_expr(self.ctx, s.evict_call, "kv", "tail_ids(kv, reqs)")
            if site == "lambda_local":
                return [f"evict = lambda kv, reqs: {expr}", f"evict(sched.kv_cache_manager, {reqs})"]
            if f"_evict = staticmethod(lambda kv, reqs: {expr})" not in self.class_attrs:
                self.class_attrs.append(f"_evict = staticmethod(lambda kv, reqs: {expr})")
            return [f"self._evict(sched.kv_cache_manager, {reqs})"]
        if site == "generator":
            self.module_fn("dirty_block_ids", "kv, reqs", [*tail_lines(s, "reqs"), "yield from sorted(ids)"])
            self.method(
                "_evict_tails",
                "self, kv, reqs",
                ["ids = set(dirty_block_ids(kv, reqs))", *evict_lines(self.ctx, s)],
            )
            return [f"self._evict_tails(sched.kv_cache_manager, {reqs})"]
        if site == "chain3":
            self.method("_recover", "self, sched, reqs", ["self._evict_running(sched.kv_cache_manager, reqs)"])
            self.method("_evict_running", "self, kv, reqs", ["for req in reqs:", "    self._evict_request(kv, req)"])
            self.method("_evict_request", "self, kv, req", self.routine("[req]"))
            return [f"self._recover(sched, {reqs})"]
        raise AssertionError(site)

    def split_calls(self) -> tuple[list[str], list[str]]:
        """(collect, evict) lines for on_fault when the ids are collected before the
        release and evicted after it (or both after it: FT006), sites inline, helper,
        module_func."""
        s = self.spec
        if s.site == "inline":
            return (
                ["kv = sched.kv_cache_manager", *tail_lines(s, "reqs")],
                evict_lines(self.ctx, s),
            )
        body_ids = [*tail_lines(s, "reqs"), "return ids"]
        body_evict = evict_lines(self.ctx, s)
        if s.site == "module_func":
            self.side_fn("tail_ids", "kv, reqs", body_ids)
            self.side_fn("evict_ids", "kv, ids", body_evict)
            return (["ids = tail_ids(sched.kv_cache_manager, reqs)"], ["evict_ids(sched.kv_cache_manager, ids)"])
        self.method("_tail_ids", "self, kv, reqs", body_ids)
        self.method("_evict_ids", "self, kv, ids", body_evict)
        return (
            ["ids = self._tail_ids(sched.kv_cache_manager, reqs)"],
            ["self._evict_ids(sched.kv_cache_manager, ids)"],
        )

    # -- definitions ----------------------------------------------------------------

    def method(self, name: str, params: str, body: list[str], decorator: str | None = None) -> None:
        if any(line.startswith(f"def {name}(") for m in self.methods for line in m):
            return
        lines = ([decorator] if decorator else []) + [f"def {name}({params}):", *_indent(body)]
        self.methods.append(lines)

    def side_fn(self, name: str, params: str, body: list[str]) -> None:
        self.side_name = "ft_kv"
        if any(d[0] == f"def {name}({params}):" for d in self.side.defs):
            return
        self.side.add([f"def {name}({params}):", *_indent(body)])
        self.side.imports |= self.ctx.imports
        self.handler.imports.add(f"from ft_kv import {name}")

    def module_fn(self, name: str, params: str, body: list[str]) -> None:
        if any(d[0] == f"def {name}({params}):" for d in self.handler.defs):
            return
        self.handler.add([f"def {name}({params}):", *_indent(body)])


# -- release ------------------------------------------------------------------------------


def _reset_lines(r: _Render, req: str) -> list[str]:
    s = r.spec
    a, b = _counters(s)
    d = s.defect
    if d in ("ft008_none", "la_zero_before", "la_drop_after_zero") or (d == "ft001_drop_flag" and s.api == "0.34"):
        return []
    out: list[str] = []
    if s.request_ref == "alias":
        out.append(f"target = {req}")
        req = "target"
    elif s.request_ref == "copy":
        r.handler.imports.add("import copy")
        out.append(f"target = copy.copy({req})")
        req = "target"
    if d == "ft008_one":
        return [*out, f"{req}.{b} = 0"]
    if d == "ft001_drop_flag":  # 0.26: the discard copy of reset_prefix_cache
        out.append(f"{req}.async_tokens_to_discard = {req}.num_output_placeholders")
    style = s.reset
    if style == "chained":
        out.append(f"{req}.{a} = {req}.{b} = 0")
    elif style == "setattr_names":
        const = [f'_LOST_STEP_COUNTERS = ("{a}", "{b}")']
        if const not in r.handler.defs:
            r.handler.defs.insert(0, const)
        out += ["for field in _LOST_STEP_COUNTERS:", f"    setattr({req}, field, 0)"]
    elif style == "setattr_dict":
        out += [f'for field, value in {{"{a}": 0, "{b}": 0}}.items():', f"    setattr({req}, field, value)"]
    elif style == "vars_update":
        out.append(f"vars({req}).update({a}=0, {b}=0)")
    elif style == "helper_kwargs":
        r.module_fn(
            "_set_fields", "obj, **fields", ["for name, value in fields.items():", "    setattr(obj, name, value)"]
        )
        out.append(f"_set_fields({req}, {a}=0, {b}=0)")
    else:
        out += [f"{req}.{a} = 0", f"{req}.{b} = 0"]
    return out


def _preempt_lines(r: _Render) -> list[str]:
    s = r.spec
    extra = {}
    if s.defect == "la_drop_after_zero" or (s.defect == "ft001_drop_flag" and s.api == "0.34"):
        extra["drop_stale_output"] = "True"
    elif s.release_call == "options" and s.api == "0.34":  # the flag spelled out, off (0.26 has no flag)
        extra["drop_stale_output"] = "False"
    pre = ["req.num_in_flight_tokens = 0"] if s.defect in ("la_zero_before", "la_drop_after_zero") else []
    return pre + spell_call(r.ctx, s.release_call, "sched", "_preempt_request", ["req", "ts"], extra)


def _per_request_evict(r: _Render, evict_here: bool) -> list[str]:
    if evict_here and r.spec.evicts and r.spec.granularity == "per_request":
        return _gated(r, r.eviction_call("[req]"))
    return []


def _gated(r: _Render, lines: list[str]) -> list[str]:
    if r.spec.defect == "ft007_gate":
        return ["if isinstance(exc, TimeoutError):", *_indent(lines)]
    return lines


def resume_lines(r: _Render, evict_here: bool) -> list[str]:
    s = r.spec
    r.handler.imports.add("import time")
    first = [_DECREMENT] if s.defect == "la_decrement_first" else []
    last = [_DECREMENT] if s.defect == "ft009_decrement" else []
    body = [*_per_request_evict(r, evict_here), *first, *_preempt_lines(r), *_reset_lines(r, "req"), *last]
    out = ["ts = time.monotonic()"]
    if s.drain == "pop_comprehension":
        out += ["victims = [sched.running.pop() for _ in range(len(sched.running))]", "for req in victims:"]
    elif s.drain == "reversed_remove":
        out += ["for req in list(reversed(sched.running)):", "    sched.running.remove(req)"]
    else:
        out += ["while sched.running:", "    req = sched.running.pop()"]
    return out + _indent(body)


def abort_lines(r: _Render, evict_here: bool) -> list[str]:
    s = r.spec
    r.handler.imports.add("from vllm.v1.request import RequestStatus")
    if evict_here and s.evicts and s.granularity == "per_request":
        return [
            f"for req in {snapshot(s, 'sched.running')}:",
            *_indent(_per_request_evict(r, evict_here)),
            *_indent(
                spell_call(
                    r.ctx,
                    s.release_call,
                    "sched",
                    "finish_requests",
                    ["req.request_id", "RequestStatus.FINISHED_ABORTED"],
                    target="aborted",
                )
            ),
            "    self.engine._send_abort_outputs(aborted)",
        ]
    return [
        *spell_call(
            r.ctx,
            s.release_call,
            "sched",
            "finish_requests",
            ["None", "RequestStatus.FINISHED_ABORTED"],
            target="aborted",
        ),
        "self.engine._send_abort_outputs(aborted)",
    ]


def _batch_evict(r: _Render) -> list[str]:
    s = r.spec
    if not s.evicts or s.granularity != "batch" or s.order != "before" or s.site in _WRAPPER_SITES:
        return []
    if s.defect in ("ft007_only_abort", "ft007_only_resume"):
        return []  # release_lines puts it in one branch
    return _gated(r, r.eviction_call(snapshot(r.spec, "sched.running")))


def release_lines(r: _Render) -> list[str]:
    """The release (abort / resume / both behind the switch), with the per-request
    evictions and, for the switch's one-path defects, the batch eviction in one branch."""
    s = r.spec
    if s.mode == "abort":
        return abort_lines(r, True)
    if s.mode == "resume":
        return resume_lines(r, True)
    only_abort, only_resume = s.defect == "ft007_only_abort", s.defect == "ft007_only_resume"
    ab = abort_lines(r, True)
    re_ = resume_lines(r, True)
    if only_abort:
        ab = [*r.eviction_call(snapshot(r.spec, "sched.running")), *ab]
    if only_resume:
        re_ = [*r.eviction_call(snapshot(r.spec, "sched.running")), *re_]
    if s.switch_style == "match":
        return ["match self.resume:", "    case True:", *_indent(re_, 2), "    case _:", *_indent(ab, 2)]
    if s.switch_style == "dict_dispatch":
        r.method("_resume_all", "self, sched, exc", re_)
        r.method("_abort_all", "self, sched, exc", ab)
        return [
            "actions = {True: self._resume_all, False: self._abort_all}",
            "actions[bool(self.resume)](sched, exc)",
        ]
    return ["if self.resume:", *_indent(re_), "else:", *_indent(ab)]


def _flow(r: _Render, evict: list[str], release: list[str]) -> list[str]:
    flow = r.spec.flow
    if flow == "early_return":
        return ["if not sched.running:", "    return", *evict, *release]
    if flow == "try_finally" and evict:
        return ["try:", *_indent(evict), "finally:", *_indent(release)]
    if flow == "try_else" and evict:
        return ["try:", *_indent(evict), "except Exception:", "    raise", "else:", *_indent(release)]
    if flow == "isinstance_gate":
        return ["if not isinstance(exc, Exception):", "    return", *evict, *release]
    if flow == "ctx_release":  # the release in a @contextmanager's finally, after the with body
        r.handler.imports.add("import contextlib")
        r.method(
            "_releasing",
            "self, sched, exc",
            ["try:", "    yield", "finally:", *_indent(release)],
            "@contextlib.contextmanager",
        )
        return ["with self._releasing(sched, exc):", *_indent(evict or ["pass"])]
    if flow == "deco_release":  # the release in the wrapper of a decorator, after on_fault's body
        r.module_fn(
            "releasing",
            "fn",
            [
                "def wrapper(self, exc):",
                "    fn(self, exc)",
                "    sched = self.engine.scheduler",
                *_indent(release),
                "",
                "return wrapper",
            ],
        )
        if "@releasing" not in r.decorators:
            r.decorators.append("@releasing")
        return evict or ["pass"]
    if flow == "match_exc":
        return ["match exc:", "    case Exception():", *_indent([*evict, *release], 2), "    case _:", "        return"]
    return [*evict, *release]


def _body(r: _Render) -> list[str]:
    s = r.spec
    body = ["sched = self.engine.scheduler"]
    if s.site in _WRAPPER_SITES and s.evicts:
        return body + _wrapper_body(r)
    if s.evicts and s.order in ("split", "late"):
        collect, evict = r.split_calls()
        rel = release_lines(r)
        if s.order == "split":
            main = [f"reqs = {snapshot(s, 'sched.running')}", *collect, *rel, *evict]
        else:
            main = [f"reqs = {snapshot(s, 'sched.running')}", *rel, *collect, *evict]
        return body + _flow(r, [], main) + _reset_cache(r)
    evict = _batch_evict(r)
    if s.defect == "ft005_reset_instead":  # before the release: the requests still hold their blocks
        evict = spell_call(r.ctx, s.release_call, "sched", "reset_prefix_cache", [])
    return body + _flow(r, evict, release_lines(r)) + _reset_cache(r)


def _reset_cache(r: _Render) -> list[str]:
    if r.spec.defect != "ft005_reset_prefix_cache":
        return []
    return spell_call(r.ctx, r.spec.release_call, "sched", "reset_prefix_cache", [])


def _wrapper_body(r: _Render) -> list[str]:
    """Sites where a decorator or a context manager does the eviction."""
    s = r.spec
    tail = tail_lines(s, "reqs")
    evict = evict_lines(r.ctx, s)
    if s.site.startswith("decorator"):
        r.ctx.imports.add("import functools")
        if s.site == "decorator_before":
            inner = [f"reqs = {snapshot(s, 'self.engine.scheduler.running')}", *tail, *evict, "return fn(self, exc)"]
        elif s.order == "late":
            inner = [
                f"reqs = {snapshot(s, 'self.engine.scheduler.running')}",
                "result = fn(self, exc)",
                *tail,
                *evict,
                "return result",
            ]
        else:
            inner = [
                f"reqs = {snapshot(s, 'self.engine.scheduler.running')}",
                *tail,
                "result = fn(self, exc)",
                *evict,
                "return result",
            ]
        r.module_fn(
            "evicting_tails",
            "fn",
            [
                "@functools.wraps(fn)",
                "def wrapper(self, exc):",
                "    kv = self.engine.scheduler.kv_cache_manager",
                *_indent(inner),
                "",
                "return wrapper",
            ],
        )
        r.decorators.append("@evicting_tails")
        return _flow(r, [], release_lines(r)) + _reset_cache(r)
    r.ctx.imports.add("import contextlib")
    if s.site == "ctx_enter":
        cm = [*tail, *evict, "yield ids"]
    elif s.order == "late":
        cm = ["try:", "    yield", "finally:", *_indent([*tail, *evict])]
    else:
        cm = [*tail, "try:", "    yield ids", "finally:", *_indent(evict)]
    r.module_fn("tails_evicted", "kv, reqs", cm)
    r.handler.defs[-1].insert(0, "@contextlib.contextmanager")
    inner = _flow(r, [], release_lines(r))
    running = snapshot(s, "sched.running")
    return [f"with tails_evicted(sched.kv_cache_manager, {running}):", *_indent(inner), *_reset_cache(r)]


def intended(spec: Spec) -> str:
    return " ".join(f"{k}={v}" for k, v in spec.axes().items())


def render(spec: Spec) -> dict[str, str]:
    """``{file name: text}`` of the handler's directory."""
    ctx = _Ctx()
    r = _Render(spec, ctx, _Module(), _Module(), None, [], [], "", [])
    body = _body(r)
    r.handler.imports |= {i for i in ctx.imports}
    if r.side_name:
        r.side.imports |= {i for i in ctx.imports if i != "import time"}
    header = [f"# Intended: generated handler {spec.name}: {intended(spec)}."]
    if spec.mode == "switch":
        header.append("# switch: resume")
    if spec.api == "0.26":
        header.append("# vllm: 0.26")
    cls = [f"class FaultHandler({r.bases}):" if r.bases else "class FaultHandler:"]
    if spec.mode == "switch":
        cls.append("    resume = False")
    for attr in r.class_attrs:
        cls.append(f"    {attr}")
    if len(cls) > 1:
        cls.append("")
    cls += ["    def __init__(self, engine):", "        self.engine = engine", ""]
    cls += _indent([*r.decorators, "def on_fault(self, exc):", *_indent(body)])
    for m in r.methods:
        cls += ["", *_indent(m)]
    r.handler.add(cls)
    files = {"handler.py": r.handler.text(header)}
    if r.side_name:
        files[f"{r.side_name}.py"] = r.side.text([f'"""Helpers of generated handler {spec.name}."""'])
    return files


def size(files: dict[str, str]) -> int:
    """Non-blank, non-comment lines over all files (the shrinker's measure)."""
    return sum(
        1 for text in files.values() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")
    )


def shrink_candidates(spec: Spec) -> list[Spec]:
    """Specs one axis closer to :data:`SIMPLEST` (each normalized, duplicates dropped)."""
    out: dict[tuple[str, ...], Spec] = {}
    for axis, simple in SIMPLEST.items():
        if getattr(spec, axis) == simple:
            continue
        cand = normalize(replace(spec, **{axis: simple}))
        key = tuple(cand.axes().values())
        if cand.axes() != spec.axes() and key not in out:
            out[key] = cand
    return list(out.values())


def spec_from_axes(seed: int, index: int, axes: dict[str, str]) -> Spec:
    return Spec(seed=seed, index=index, **axes)


__all__ = [
    "AXES",
    "SIMPLEST",
    "Spec",
    "draw",
    "generate",
    "normalize",
    "render",
    "shrink_candidates",
    "size",
    "static_truth",
]
