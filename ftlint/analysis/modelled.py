"""What the path walk (interpreter.py) models, as a table for docs/rules.md.

Each row: a construct as users write it, whether the walk follows it ("modelled") or
gives up on it ("unknown": an unknown value, which never produces a finding; `--verbose`
names the place), what it is taken to mean, and the test that shows both verdicts
(tests/test_eviction_models.py; a test checks every row names one that exists)."""

from __future__ import annotations

from typing import NamedTuple


class Construct(NamedTuple):
    construct: str
    status: str  # "modelled" | "unknown"
    meaning: str
    #: a test function or a PAIRS name in tests/test_eviction_models.py, or a CASES name in
    #: tests/test_eviction_idioms.py or tests/test_dispatch_and_skip_idioms.py
    test: str


MODELLED: tuple[Construct, ...] = (
    Construct(
        "`lambda` bound in a function, then called",
        "modelled",
        "its body, with the names bound where it was made",
        "lambda-called",
    ),
    Construct(
        "`staticmethod(lambda ...)` / `lambda` kept as a class attribute",
        "modelled",
        "the lambda, called through `self.name(...)`; the project functions it calls are in the fault-path scope "
        "(read from the line that binds it)",
        "test_lambda_class_attribute",
    ),
    Construct(
        "a module function reached only from a class-attribute lambda",
        "modelled",
        "in the fault path: its code is linted",
        "class_lambda_reaches_a_range_check",
    ),
    Construct(
        '`operator.methodcaller("name", *args)(obj)`',
        "modelled",
        "`obj.name(*args)`; an unknown name is an unknown call",
        "methodcaller",
    ),
    Construct("`functools.partial(f, *args)(...)`", "modelled", "`f(*args, ...)`", "partial"),
    Construct(
        'dict of callables, constant key (`ops["evict"](...)`, `{True: a, False: b}[flag]`)',
        "modelled",
        "the callable under that key",
        "dict-literal-key",
    ),
    Construct(
        "dict of callables, key computed at run time",
        "modelled",
        "any of its callables (a `None` value is never called)",
        "dict-computed-key",
    ),
    Construct('`f(**{"k": v})`, `f(*(a, b))`', "modelled", "the keywords / positions of the literal", "kwargs"),
    Construct("`set().union(*parts)`, `{*a, *b}`", "modelled", "the ids of every part", "star-union"),
    Construct(
        "all ids minus the prefix's ids (`{...blocks} - {...blocks[:first]}`)",
        "modelled",
        "the blocks past the confirmed prefix, not broad; minus a shorter prefix (`blocks[:first - 1]`): starts "
        "before the tail (broad); minus anything else: where it starts is unknown",
        "test_set_difference_is_the_tail",
    ),
    Construct(
        "the last `len(blocks) - first` blocks (`n = len(blocks) - first; blocks[-n:] if n > 0 else []`)",
        "modelled",
        "`blocks[first:]`",
        "from_end_margin",
    ),
    Construct(
        "a project decorator around the handler (`def deco(f): def wrapper(...): ...; return wrapper`)",
        "modelled",
        "the wrapper's body, calling the handler where it does",
        "test_decorator_evicts_around_the_body",
    ),
    Construct(
        "`self.m` in the wrapper of a project decorator around a method",
        "modelled",
        "the method `m` of the decorated method's class (in the fault-path scope too)",
        "wrapper_dispatches_to_a_method",
    ),
    Construct(
        "`@contextmanager` used in `with`, its `yield` at the top of its body or of a `try` with only a `finally`",
        "modelled",
        "its code before the `yield` on entry, the rest (and the `finally`) after the `with` body: an eviction "
        "there comes after the body's frees",
        "ctx_evicts_on_exit",
    ),
    Construct(
        "`@contextmanager` of another shape",
        "modelled",
        "its whole body run at the `with`: effects of enter and exit both count",
        "test_contextmanager_finally_frees",
    ),
    Construct(
        "`type(self).m(...)`, `self.__class__.m(...)`",
        "modelled",
        "the class's own method `m` (in the fault-path scope too: a classmethod so called is linted)",
        "test_type_self_classmethod",
    ),
    Construct(
        "`break` on every pass of the loop over running requests",
        "modelled",
        "only the first request is handled: the others' tails are not covered",
        "loop-without-break",
    ),
    Construct(
        "an `if` in the loop over running requests that is not about the request (`isinstance(exc, ...)`)",
        "modelled",
        "an eviction behind it covers only the iterations that pass it",
        "test_gate_inside_the_request_loop",
    ),
    Construct(
        "paths into a loop over the running requests (an eviction behind an `if` before it)",
        "modelled",
        "an iteration's eviction covers the other iterations of the same path into the loop only",
        "gate_before_the_loop",
    ),
    Construct(
        'an eviction primitive however spelled (`getattr(kv, "evict_blocks")`, a partial, a `methodcaller`, a table)',
        "modelled",
        "a neutral `EvictionCalled` fact at the call, wherever it is written (lambdas and nested functions included)",
        "getattr_eviction_in_a_lambda",
    ),
    Construct(
        "`for r in [req]` (a literal list or tuple of requests)",
        "modelled",
        "the items, when they are the same request; otherwise an unknown request",
        "test_one_request_list_keeps_the_request",
    ),
    Construct(
        "`[(r, boundary) for r in reqs]` then `for req, confirmed in pairs` (requests in tuples)",
        "modelled",
        "each element is the tuple made for one request (a literal `[req]`: for that request)",
        "pairs_of_running_requests_late",
    ),
    Construct(
        "`copy.copy(req)` given to an eviction",
        "modelled",
        "another object with the request's id: the blocks read through it are the request's",
        "eviction_through_a_copy_of_the_request_late",
    ),
    Construct(
        "a generator function (`yield`, `yield from`)",
        "modelled",
        "its call gives what it yields",
        "test_generator_of_ids",
    ),
    Construct(
        "`b.block_id < len(blocks)` filtering a request's ids",
        "modelled",
        "filters out the dirty block ids (a pool index compared with a block count)",
        "test_range_filter_that_drops_dirty_ids",
    ),
    Construct(
        "`reset_prefix_cache()` while requests still hold blocks",
        "modelled",
        "no effect (it fails); after every request is freed, it drops every hash",
        "reset-prefix-cache-after-the-free",
    ),
    Construct(
        '`run_method(obj, "name", args=(...), kwargs={...})` (vLLM\'s `serial_utils`)',
        "modelled",
        "`obj.name(*args, **kwargs)`; a callable instead of a name: `method(obj, *args, **kwargs)`",
        "run_method_evicts_late",
    ),
    Construct(
        "a `continue` in the eviction loop past requests with tokens in flight (`req.num_in_flight_tokens > 0`)",
        "modelled",
        "skips exactly the requests with a dirty tail (also in a loop over `[req]` or `(req, boundary)` pairs); "
        "skipping a request with no tokens in flight, or with no blocks (`not in mgr.req_to_blocks`), skips no tail",
        "skip_with_tokens_in_flight",
    ),
    Construct(
        "ids kept per request in a dict (`by_req[req.request_id] = ids`), evicted from `by_req.values()`",
        "modelled",
        "any of the dict's values: the ids of each request, boundary and extent kept",
        "ids_per_request_in_a_dict_late",
    ),
    Construct(
        "`self.name` where `name` is a `@property` (or `cached_property`) of the class",
        "modelled",
        "the getter's return value (`self.scheduler` returning `self.engine.scheduler`: its frees and evictions count)",
        "property-for-the-scheduler",
    ),
    Construct(
        "an object of a project class (`TailEvictor(kv)`), its methods called, or the object called",
        "modelled",
        "the class's methods (inherited ones too) and its `__call__`; what the object's own attributes hold is "
        "unknown; an `__init__` that may evict is taken as covering every request",
        "object-of-a-project-class",
    ),
    Construct(
        "`with Window(...) as batch:` where `Window` is a project class",
        "modelled",
        "its `__enter__` on entry (its value bound to `batch`), its `__exit__` after the body",
        "object-as-a-context-manager",
    ),
    Construct(
        "`collections.deque(scheduler.running)` drained with `while pending: req = pending.pop()`",
        "modelled",
        "a copy of the running queue, as `list(...)`",
        "deque-of-the-running-queue-drained",
    ),
    Construct(
        "a call of a function the walk is already inside (recursion)",
        "unknown",
        "a function that may evict may evict for any request: covering; otherwise no effect",
        "recursive-eviction",
    ),
    Construct(
        "a method of an object the walk does not know (`janitor.sweep()`), or a callable computed at run time "
        "(`step()`, `table[key]()`)",
        "unknown",
        "when a project function of that name (for a computed callable: any project function) may evict, it may "
        "evict for any request: covering; otherwise no effect",
        "method-of-an-unknown-object",
    ),
    Construct(
        "a project function, bound method, partial or callable object given to a call the walk cannot resolve "
        "(`map(evict, reqs)`)",
        "unknown",
        "one that may evict may be called on any request: covering",
        "callable-object-given-to-an-unknown-call",
    ),
    Construct(
        "`if (ids := ...):` around the eviction; `if not ids: continue` in the eviction loop; "
        "`req.status == RequestStatus.RUNNING` tested in a loop over the running queue",
        "modelled",
        "as `if ids:` (the path with no ids has nothing to evict); the status test is true of every running request: "
        "no gate",
        "walrus-around-the-eviction",
    ),
    Construct(
        "an `except` clause after a `try` statement that evicts on every path",
        "modelled",
        "the eviction failing: the clause that goes on (logs, then aborts) counts as having evicted; an exception "
        "out of an earlier statement that calls what the walk cannot follow still skips the eviction",
        "except-after-the-eviction",
    ),
    Construct(
        "a ceiling division of the confirmed tokens by the block size: `cdiv(confirmed, block_size)` (vLLM's), "
        "`-(-confirmed // block_size)`",
        "modelled",
        "past the block the dirty tail begins in when the boundary is not block-aligned: an eviction from there "
        "misses that block (an eviction that starts late)",
        "cdiv-boundary",
    ),
    Construct(
        "a `slice(start, stop)` object used as the index of a block list",
        "modelled",
        "the slice it stands for: where the eviction starts is read from `start`",
        "slice-object-as-the-index",
    ),
    Construct(
        "`itertools.chain(...)`, `itertools.chain.from_iterable(...)` over block lists",
        "modelled",
        "the blocks of every list it chains (a broad list makes the eviction broad)",
        "itertools-chain-from-iterable",
    ),
    Construct(
        "a `@dataclass` or `NamedTuple` made in the walk (also `cls(...)` in its classmethod)",
        "modelled",
        "its fields hold what the call gave them; its methods and properties see them through `self`",
        "record-made-by-its-classmethod",
    ),
    Construct(
        "a comparison of a request's token counts: `confirmed >= computed`, `in_flight == 0` (or their negation)",
        "modelled",
        "a test of whether the request has a dirty tail: skipping the requests for which it says none is fine, "
        "skipping those for which it says one is not",
        "record-property-testing-for-a-dirty-tail",
    ),
    Construct(
        "an attribute `__init__` alone sets to callables, a table or list of them, or a project object "
        "(`self.steps = [self._evict, self._abort]`)",
        "modelled",
        "that value; a loop over a literal list of callables runs each in turn, in order, and the methods it names "
        "are in the fault-path scope. A flag or number set there is not taken as its value (it may be flipped "
        "from outside)",
        "test_callables_listed_in_init_run_in_order",
    ),
    Construct(
        "a dict of callables or objects keyed by what the walk cannot compute (`{Mode.ABORT: self._abort, ...}`), "
        "indexed",
        "modelled",
        "any of its entries: each is a path; a method called on the entry picked runs that object's method",
        "method-table-keyed-by-enum-members",
    ),
    Construct(
        "`divmod(a, b)`, `itertools.islice(blocks, start, stop)`, `range(first, last)` over a block list",
        "modelled",
        "`a // b` (and a remainder); the slice `blocks[start:stop]`; the positions from `first` (a stop it cannot "
        "read is taken as the end)",
        "range-from-the-boundary",
    ),
    Construct(
        "a module-level list of functions (`PIPELINE = [forget, evict, requeue]`), also imported, looped over",
        "modelled",
        "each function in turn, in order",
        "module-level-pipeline-of-functions",
    ),
    Construct(
        "`kv_cache_manager.get_block_ids_for_computed_tokens(request_id, request.num_computed_tokens)`",
        "modelled",
        "all the blocks holding the computed tokens: evicting them is broad (another token count: unknown)",
        "block-ids-for-the-computed-tokens",
    ),
    Construct(
        "`scheduler.running.remove(req)` (or `pop`) inside a loop over `scheduler.running` itself (not over a copy)",
        "modelled",
        "the list shifts under the loop: the request after each one removed is skipped, its tail not evicted",
        "removing-from-the-running-queue-while-iterating-it",
    ),
    Construct(
        "`req.num_in_flight_tokens = 0` before the boundary is computed from it",
        "modelled",
        "the boundary is then `num_computed_tokens`: an eviction from it starts late",
        "in-flight-set-to-0-first",
    ),
    Construct(
        "`x = Cls(...)` in a fault-path function, then `x.method()`",
        "modelled",
        "`Cls.method` (also in another module) is fault-path code: its own findings are reported there",
        "test_method_of_an_object_made_in_the_handler_is_in_the_fault_path",
    ),
    Construct(
        "request ids kept in tuples or dicts (`[(r.request_id, boundary) for r in reqs]`, `{r.request_id: boundary "
        "...}`, `bounds[rid] = ...` in the loop), read back by id (`req_to_blocks.get(rid)`, `get_block_ids(rid)`, "
        "`scheduler.requests[rid]`)",
        "modelled",
        "each entry stands for its request: blocks read through its id after the request was freed are none",
        "boundaries-filled-per-request-id",
    ),
    Construct(
        "`zip(managers, per_group)`, `collections.defaultdict(set)` filled with `by_group[gid] |= ids`",
        "modelled",
        "the tuple of each part's element (zipped with a one-item tuple: the first group only); a dict of those ids",
        "zip-of-the-groups",
    ),
    Construct(
        "`scheduler.running[i]`, `i` over every position of the queue (a `range` to its length, a `while` "
        "counter; `[0]`: one request)",
        "modelled",
        "each running request in turn; a range that stops short leaves some out (unknown)",
        "range-over-the-running-queue",
    ),
    Construct(
        "a generator function of the project called as a statement of its own",
        "modelled",
        "nothing runs: its body waits for an iteration that never comes",
        "generator-called-as-a-statement",
    ),
    Construct(
        "`confirmed // block_size + 1`; `blocks[-1]`",
        "modelled",
        "a block past the one the dirty tail begins in; the last block only: an eviction from there starts late",
        "one-block-past-the-boundary",
    ),
    Construct(
        "`map(getter, blocks)`, `filter(predicate, blocks)`; `0 <= block_id < len(blocks)`",
        "modelled",
        "the same blocks; the chained range check against the request's own list filters out dirty blocks",
        "getter-mapped-over-filtered-blocks",
    ),
    Construct(
        "records made in a comprehension over the requests; a dict of an entry per request tested empty "
        "(`if not by_id: return`)",
        "modelled",
        "each record for its request; the empty dict means no request runs (nothing to evict, no counter left set)",
        "records-made-in-a-comprehension",
    ),
    Construct(
        "a project helper that sets counters to 0, given to a call the walk cannot follow (`map(reset, reqs)`) or "
        "recursing over the requests",
        "unknown",
        "may reset the counters of any request: no finding about them",
        "test_counters_reset_by_a_helper_the_walk_does_not_follow_per_request",
    ),
    Construct(
        "an item of a collection the walk cannot see into, or a list records were appended to",
        "unknown",
        "no known request and no block ids: its `block_ids` are never a broad eviction",
        "test_a_list_of_records_is_not_a_list_of_block_ids",
    ),
    Construct(
        "`operator.itemgetter(0)` (also bound at module level), called on per-group block ids or the managers",
        "modelled",
        "the ids of group 0 alone (another index: its item, not known)",
        "itemgetter-of-the-first-group",
    ),
    Construct(
        "a call the walk cannot resolve, given block ids",
        "unknown",
        "may evict them (also inside a tuple or dict it is given): their tails count as covered",
        "unknown-call-given-ids",
    ),
    Construct(
        "`ok = len(ids) > 0; if ok: evict(ids)`, `if len(ctx.ids) != 0:` (also `>= 1`, `bool(...)`)",
        "modelled",
        "a test of whether the evicted ids are empty: the path that skips had nothing to drop",
        "flag-testing-the-ids-evicted",
    ),
    Construct(
        "`if len(self.dirty) != 0: kv.evict_blocks(self.dirty)`",
        "modelled",
        "the same emptiness test, on an attribute",
        "length-test-of-an-attribute-evicted",
    ),
    Construct(
        "a member of a project enum (`Phase.SCAN`), compared with `is`/`==`",
        "modelled",
        "decided between two members; a `while` loop whose test is decided runs step by step "
        "(a state machine), at most 12 steps",
        "enum-state-machine",
    ),
    Construct(
        "`Phase.A if flag else Phase.B` as the next state",
        "modelled",
        "either state, each on its own path",
        "enum-state-picked-by-a-flag",
    ),
    Construct(
        "`Cls(...).method(...)`, an object made and used at once",
        "modelled",
        "the method is fault-path code (its findings are reported where they are)",
        "object-made-and-used-at-once",
    ),
    Construct(
        "`j = first; while j < len(blocks): ... blocks[j] ...; j += 1`",
        "modelled",
        "each position from `first` to the end of the list, as a `for` over a range would be",
        "while-index-over-a-block-list",
    ),
    Construct(
        "a module-level integer (`MARGIN = 1`) in a boundary",
        "modelled",
        "its literal value (zero or not)",
        "module-level-number-in-the-boundary",
    ),
    Construct(
        "`break` in a loop over the requests (also under an `if`, also a `while i < n` counter loop)",
        "modelled",
        "the requests after the current one are not handled; a `continue` as the last statement "
        "of the body skips nothing",
        "break-out-of-the-request-loop",
    ),
    Construct(
        "an object of a project class made in the walk (`PlanBuilder(sched)`, not a record)",
        "modelled",
        "its `__init__` runs with the call's arguments; the attributes it and the methods set "
        "(`self.steps.append(self._evict)`, `return self`) are kept with the object across calls",
        "builder-assembling-steps",
    ),
    Construct(
        "a context object passed to helpers (`evict_from(Ctx(kv, reqs))`)",
        "modelled",
        "its attributes as its `__init__` set them from the arguments",
        "context-object-filled-by-its-init",
    ),
    Construct(
        "a nested `on_fault` returned by a factory that a handler class of its module calls",
        "modelled",
        "one listener among those that handler runs: walked from the handler, not as an entry",
        "test_a_listener_made_by_a_factory_the_handler_calls_is_no_entry",
    ),
    Construct(
        "`if queue:` where `queue` is a copy of the running list, on its empty side",
        "modelled",
        "no request runs: none preempted later needs its counters reset",
        "test_counters_zeroed_by_recursion_over_a_copy_of_the_queue",
    ),
    Construct(
        '`cfg.get("evict", True)` on a mapping the walk cannot read',
        "modelled",
        "the default: the handler as built with no options (`FaultHandler(engine)`)",
        "option-read-with-its-default",
    ),
    Construct(
        'a module-level dict keyed by strings (`OPTIONS = {"margin": 1, ...}`) the module never changes',
        "modelled",
        "its literal entries (numbers, strings, flags); `OPTIONS.get(key, default)` also its default",
        "module-level-dict-of-options",
    ),
    Construct(
        "`functools.reduce(lambda c, stage: stage(c), STAGES, Ctx(...))` over a module-level tuple of functions",
        "modelled",
        "each stage in turn on the record; the stages are fault-path code; a dataclass field "
        "`field(default_factory=set)` starts empty and keeps what the stages write",
        "stages-reduced-over-a-context-record",
    ),
    Construct(
        "`for req in reqs: req.num_in_flight_tokens = 0` on every path of the body",
        "modelled",
        "zero for every request after the loop (a boundary computed from it later is late)",
        "counters-zeroed-in-a-loop-before-the-boundary",
    ),
    Construct(
        "`functools.reduce(lambda a, b: a + b, per_group, [])` (also `|`, `operator.or_`, `set.union`)",
        "modelled",
        "every id in the collections it folds",
        "reduce-uniting-per-group-ids",
    ),
    Construct(
        "`EVICT = os.environ.get('FT_EVICT', '1') == '1'` at module level (also `os.getenv`, `.strip().lower()`, `in`)",
        "modelled",
        "its value with no variable set: strings, their comparisons and `int(...)` are computed",
        "environment-flag-with-its-default",
    ),
    Construct(
        "a dataclass field with a literal default (`evict: bool = True`) the constructor leaves out",
        "modelled",
        "that default",
        "record-field-with-a-literal-default",
    ),
    Construct(
        "`Settings.from_env()`, a classmethod building a record from the environment",
        "modelled",
        "the record it builds, fields computed as for module-level flags (also as an `__init__` attribute)",
        "settings-read-from-the-environment",
    ),
    Construct(
        "`hasattr(kv, 'evict_blocks')`, a probe of vLLM's own API",
        "modelled",
        "true (the API the analysis models is there); another name stays unknown",
        "hasattr-probe-of-the-api",
    ),
    Construct(
        "`kv = getattr(sched, 'kv_cache_manager', None); if kv is None: return`",
        "modelled",
        "the scheduler's KV objects are never None (`is None` on a group, a request or a record is decided too)",
        "api-object-probed-for-none",
    ),
    Construct(
        "`isinstance(req, Request)` of a running request",
        "modelled",
        "true: no request is skipped",
        "isinstance-of-a-request",
    ),
    Construct(
        "`math.ceil(confirmed / block_size)` (`math.floor`, `int`)",
        "modelled",
        "rounding up is past the block the boundary is in; rounding down is that block",
        "ceiling-of-the-block-ratio",
    ),
    Construct(
        "`a if flag else b` and `a and b` / `a or b` with the test known",
        "modelled",
        "the side the test picks",
        "group-probed-for-none",
    ),
    Construct(
        "`running[:-1]`, `running[1:]`, `running[:len(running) - 1]`: a slice of the queue leaving a request out",
        "modelled",
        "part of the running requests: an eviction over it misses the others (with `running[0]` also "
        "evicted, every request); bounds it cannot compute (`running[i:i + n]`) stay every request",
        "slice-of-the-queue-leaving-one-out",
    ),
    Construct(
        "`end = (i + 1) * block_size; if end > confirmed:` in a loop over positions",
        "unknown",
        "a filter on numbers made from the position: where the range starts is unknown (never broad)",
        "position-filter-on-token-numbers",
    ),
    Construct(
        "`pos = 0; for blk in row: if pos >= first: ...; pos += 1`",
        "modelled",
        "a position counted by hand, filtered as `enumerate`'s index is",
        "position-counted-by-hand",
    ),
    Construct(
        "`if book.count > 0: evict(book.ids)`: a count kept on the object whose ids are evicted",
        "modelled",
        "as `if ids:` (the path skipping it had nothing to evict); not on `self` (a switch)",
        "count-kept-beside-the-ids",
    ),
    Construct(
        "`print(ids)`, `logger.warning('%s', ids)`",
        "modelled",
        "no eviction: a builtin that only reads or a logging call keeps no ids to evict later",
        "ids-printed-and-logged",
    ),
    Construct(
        "`managers[FULL]` with `FULL = 0` at module level; `managers[:1]`, `islice(managers, 1)`",
        "modelled",
        "one KV-cache group, as `managers[0]`",
        "group-picked-by-a-module-constant",
    ),
    Construct(
        "`if len(ids) == 0:` (`< 1`), `if len(ids) > 0:` (`!= 0`, `>= 1`)",
        "modelled",
        "as `if not ids:` and `if ids:`",
        "length-of-the-ids-tested",
    ),
    Construct(
        "`map(f, reqs)`, `map(f, a, b)`, `itertools.starmap(f, pairs)` with `f` a function or lambda it knows",
        "modelled",
        "`f` called on each element, as in `[f(r) for r in reqs]`; `itertools.product(a, b)` gives "
        "pairs as `zip` does; a callable it cannot see mapped over the requests may set their counters",
        "function-mapped-over-the-requests",
    ),
    Construct(
        "`if spans := [(r, ...) for r in reqs]:` (a list with an element per request)",
        "modelled",
        "empty only when no request runs: nothing to evict on that side",
        "list-made-per-request-tested",
    ),
    Construct(
        "`skip = False; if <test of the request>: skip = True; ...; if not skip: ids |= tail(req)`",
        "modelled",
        "as `if <test>: continue`: the ids of the requests the test keeps (a flag decided on a path splits nothing)",
        "skip-flag-set-by-a-test-of-the-request",
    ),
    Construct(
        "`if request.num_output_tokens == 0: continue`, `filter(has_output, running)`, "
        "`[r for r in running if r.num_computed_tokens > r.num_prompt_tokens]`",
        "modelled",
        "a test of the request's phase (prefill or decode), not of its tail: part of the running requests",
        "skip-on-the-request-phase",
    ),
    Construct(
        "`(Preempt() if resume else Abort()).release(...)` (also returned by a factory)",
        "modelled",
        "either object's method (each a path), as for callables picked by a flag",
        "test_object_picked_by_a_conditional_expression",
    ),
    Construct(
        "`_reset = methodcaller('reset_prefix_cache')`, `_kv = attrgetter('kv_cache_manager')`, "
        "`clear = methodcaller('__setattr__', field, 0)` bound at module level",
        "modelled",
        "the callable each makes, read where the module's functions call it (`__setattr__`: setattr)",
        "test_module_level_method_callers",
    ),
    Construct(
        "`(confirmed + block_size - 1) // block_size`",
        "modelled",
        "the boundary rounded up, as `cdiv`: past the block the dirty tail begins in",
        "boundary-rounded-up-by-adding-a-block",
    ),
    Construct(
        "`if row is not None: j = first; while j < len(row): ids.add(...)` then `if len(ids) > 0:`",
        "modelled",
        "as a `for` over the positions: a path that added nothing for one request covers no other "
        "(also `while True: if len(running) == 0: break; req = running.pop()`)",
        "positions-walked-by-a-while-counter",
    ),
    Construct(
        "`_FINISH = {'abort': _abort, 'resume': _requeue}` at module level; `dataclasses.replace(plan, mode=...)`",
        "modelled",
        "a table of those functions; the record with the fields given. What a function only a value "
        "leads to leaves (no fault-path function of the static scope) is reported at the call reaching it",
        "test_table_of_functions_and_a_replaced_record",
    ),
    Construct(
        "`EVICT = 'evict_blocks'` in the class body (never set through `self`), `getattr(kv, self.EVICT)(...)`",
        "modelled",
        "that string, so the primitive it names (a class-level flag or number stays unknown: a switch)",
        "test_class_level_name_of_the_primitive",
    ),
    Construct(
        "`saved = []; for k in range(len(running)): saved.append(running[k])`",
        "modelled",
        "a copy of the running queue (its requests, read later by position)",
        "requests-copied-by-appending",
    ),
    Construct(
        "`reqs[k]` read again in the same loop body (`for k in range(len(reqs) - 1, -1, -1)`)",
        "modelled",
        "one request: what is done to each `reqs[k]` of the body is done to it",
        "test_request_indexed_again_in_a_reversed_loop",
    ),
    Construct(
        "`ids = tails(...) if option_on() else set()` with the option known to be off",
        "modelled",
        "no tail looked for: an `if ids:` after it skips the dirty tails (not 'nothing was dirty')",
        "option-off-leaves-the-ids-empty",
    ),
    Construct(
        "`from opts import EVICT` (an option, a `methodcaller`, a table of functions in another module)",
        "modelled",
        "read in that module, as its own module-level values are",
        "test_option_imported_from_another_module",
    ),
    Construct(
        "`utils = SimpleNamespace(evict=lambda ...: ..., on=True)` at module level",
        "modelled",
        "its attributes: `utils.evict(...)` calls the lambda, `utils.on` is the flag",
        "function-kept-in-a-simple-namespace",
    ),
    Construct(
        "`if not ids: return` (also `if not (n := len(ids)): return 0`) before `evict(ids)`, `ids` unknown",
        "modelled",
        "the path that returns had nothing to evict (as for ids the walk knows)",
        "early-return-when-unknown-ids-are-empty",
    ),
    Construct(
        "`with ExitStack() as stack: stack.callback(f, *args)`",
        "modelled",
        "`f(*args)` when the block leaves, the last registered first; one the walk cannot call may evict",
        "callbacks-of-an-exit-stack",
    ),
    Construct(
        '`self.cfg = SimpleNamespace(evict=True, mode="abort")` in `__init__`',
        "modelled",
        "its literal fields, unless a module of the class assigns that field (`self.cfg.mode = ...`) or sets fields by name",
        "test_flag_kept_in_a_namespace_made_in_init",
    ),
    Construct(
        "`if opts.evict and (ids := tail()):` with the flag known",
        "modelled",
        "the failing side is the one where the ids are empty (also `(ids := tail()) and flag`, `off or ids`)",
        "test_ids_bound_in_one_side_of_a_test",
    ),
    Construct(
        '`evict: bool = field(default_factory=lambda: _flag("FT_EVICT", "1"))` in a record class',
        "modelled",
        "what the lambda computes in the class's module with no variable set",
        "test_record_field_made_by_a_default_factory",
    ),
    Construct(
        '`EVICT = True` and `EVICT = _flag("FT_EVICT", "1")` at module level',
        "modelled",
        "the literal (unless a `global` statement rebinds it); the module function's result, computed from the module's top",
        "test_module_level_boolean",
    ),
    Construct(
        "`flag and kv.evict_blocks(ids)` as a statement (`or` likewise)",
        "modelled",
        "with the flag unknown, also the path that skips the call; `dirty and evict(dirty)` skips it only when `dirty` is empty",
        "test_eviction_on_the_right_of_and_or",
    ),
    Construct(
        "`if dirty.size:` / `dirty.numel() > 0` of an array or tensor",
        "modelled",
        "as `if dirty:` (`dirty.any()` is not its emptiness)",
        "test_size_of_an_array_of_ids",
    ),
    Construct(
        "a comprehension over items the walk cannot see (`[s for s in self.steps if ...]`)",
        "unknown",
        "a list of unknown items, not the running queue (their `.block_ids` are not a request's blocks)",
        "test_comprehension_over_unknown_items",
    ),
    Construct(
        "`for op in plan: if isinstance(op, Evict): ... elif ...: free` over a plan the walk cannot see",
        "unknown",
        "the order and number of its steps: the frees and preempts its body makes give no finding",
        "test_interpreter_loop_over_an_unknown_plan",
    ),
    Construct(
        'a literal plan (`[(Op.EVICT, reqs), (Op.ABORT, reqs)]`, `(Item("abort", ids),) if ids else ()`) looped over',
        "modelled",
        "each step in turn, in order; an empty plan runs nothing; `Op.EVICT.value` is its string, `.name` its name",
        "test_steps_of_a_literal_plan_run_in_order",
    ),
    Construct(
        '`getattr(self, f"_op_{op.value}")(...)`, `"_op_" + name`',
        "modelled",
        "the method the string names when every part is known (a conversion or format spec: unknown)",
        "test_steps_of_a_literal_plan_run_in_order",
    ),
    Construct(
        "`full, *_ = managers` (`first, second = managers`)",
        "modelled",
        "the first name as `managers[0]`, the first group; another position as `managers[1]`",
        "test_managers_unpacked",
    ),
    Construct(
        "`_release = {False: lambda s, rs: ..., True: _requeue}` in the class body, `self._release[flag](...)`",
        "modelled",
        "each entry a path (a key the walk computes picks one); not when a method assigns or changes it",
        "test_table_of_functions_in_the_class_body",
    ),
    Construct(
        "`post_preempt = (_clear,)` in the class body, `for fn in self.post_preempt: fn(request)`",
        "modelled",
        "each function in turn, in order",
        "test_tuple_of_functions_in_the_class_body",
    ),
    Construct(
        "numpy / torch over block ids: `np.asarray(ids)`, `np.unique`, `torch.as_tensor`, `ids.tolist()`, `np.concatenate(parts)`, `torch.cat`",
        "modelled",
        "the same ids (the join of the parts); `np.empty(0)` holds none; `np.ceil(ratio)` rounds as `math.ceil`",
        "test_block_ids_through_numpy_and_torch",
    ),
    Construct(
        "`ids[np.arange(ids.size) >= first]` (and'ed with another mask, broadcast `[:, None]`), `flat[flat > 0]`",
        "modelled",
        "as `ids[first:]`; a mask on the ids' own values keeps every position; another mask: an unknown start",
        "test_block_ids_through_numpy_and_torch",
    ),
    Construct(
        "`for fn in self.hooks[name]: fn(request)` with hooks the walk cannot list",
        "unknown",
        "when a project function sets a request's in-flight counter to 0, a callable computed at run time given the request may: its counters are not reported",
        "test_run_time_hook_given_the_request_may_reset_it",
    ),
    Construct(
        "`before_abort = Signal()` at module level; `import receivers` for the listeners it registers",
        "modelled",
        "an object of that class (its methods walked); the imported project modules count among those whose code a callable computed at run time may be",
        "test_signal_object_at_module_level_and_receivers_imported",
    ),
    Construct(
        "`worker.start()` of a `threading.Thread` subclass, `Thread(target=f, args=...)`, `executor.submit(f, ...)`, `loop.run_in_executor(pool, f, ...)`, `asyncio.to_thread(f, ...)`",
        "modelled",
        "`run()` / `f(...)` with those arguments, where started (the handler joins or awaits it); `[Worker(m) for m in managers]` holds such objects",
        "test_work_handed_to_threads_and_executors",
    ),
    Construct(
        '`_TABLE = {}` filled by a decorator of its module (`@connect("abort")`, `_HOOKS.append(fn)` in `@register`), read as `_TABLE.get(name, [])`',
        "modelled",
        "the functions registered under each key in the modules loaded or imported, in the order defined (a key whose functions lie in several modules: unknown); `[fn(...) for fn in those]` calls each in turn",
        "test_listeners_registered_by_a_decorator",
    ),
    Construct(
        '`self.subs = defaultdict(list)` then `self.subs["abort"].append(self.abort)` in `__init__`',
        "modelled",
        'the lists `__init__` leaves (changed nowhere else in the module); `"a" if flag else "b"` is either string, each on its path',
        "test_subscriptions_built_in_init",
    ),
    Construct(
        "a nested function reading a name of the function that defines it (`attn = managers[0]; def tail(req): ... attn ...`)",
        "modelled",
        "that name's value where the function is defined (when that function calls it: its value at the call)",
        "test_nested_function_reads_the_names_of_its_definer",
    ),
    Construct(
        "`asyncio.run(coro)`, `loop.run_until_complete(coro)`, `await asyncio.gather(*aws)`",
        "modelled",
        "the coroutine, walked where it was made; what each awaitable gives, in a list",
        "test_coroutines_gathered_and_run",
    ),
    Construct(
        "a switch tested twice (`if self.resume: ...` and later `if self.resume: ...` again)",
        "modelled",
        "one decision: on each path the later test goes the way the first went (unless the flag is set anew in between)",
        "test_a_switch_tested_twice_is_one_decision",
    ),
    Construct(
        "`[a] if self.flag else [b]` in a method the handler calls, then `if self.flag:` in the handler",
        "modelled",
        "the same decision: the handler's own flags are recorded across the methods it calls",
        "test_a_switch_tested_in_an_expression_then_a_statement",
    ),
    Construct(
        "`for _ in range(limit):` over a state the walk knows (`step = Step.SCAN`, then `action, step = self.table[step]`)",
        "modelled",
        "a recovery machine: the body step by step (up to 12), each path in the state it is in; where the state stops being known, the rest runs as any loop",
        "machine_aborts_then_evicts",
    ),
    Construct(
        "a table `__init__` sets of states and actions (`{Step.A: (self._scan, Step.B)}`, `{St.X: lambda: St.Y}`), indexed by an enum member",
        "modelled",
        "the entry of that member; `callable(entry)` is true of a function, false of a state",
        "machine_chooser_evicts_whole",
    ),
    Construct(
        "`ctx.state.final` of a state object whose class (or base) says `final = True`",
        "modelled",
        "that flag (not for a class defining a handler: its switch is flipped from outside)",
        "state_objects_settle_after_parking",
    ),
    Construct(
        "`getattr(self, name, None)` that found a method, tested `is not None`",
        "modelled",
        "true: the method is called",
        "getattr_finds_the_eviction",
    ),
    Construct(
        "`r.status == RequestStatus.PREEMPTED` of a request preempted on the path (its counters not yet reset)",
        "modelled",
        "true",
        "reset_when_preempted",
    ),
    Construct(
        "a counter reset on an item of a list the walk cannot see into (`for item in self._batch:`) after a preempt of such an item",
        "unknown",
        "it may be the same request: the preempt is not reported",
        "batch_in_self_reset",
    ),
    Construct(
        "a handler method of a class with abstract methods, or of an `ABC` a handler class inherits it from",
        "modelled",
        "walked only for the subclasses (no object of the class itself is made)",
        "abstract_base_subclass_evicts",
    ),
    Construct(
        "`super().hook(...)` in a mixin combined with others (`class H(LogMixin, EvictMixin, Base)`)",
        "modelled",
        "the next class after the mixin in the method resolution order of the object's class",
        "mixins_chain_to_the_eviction",
    ),
    Construct(
        "`if not span.empty:` (a record's property testing whether the tail is dirty) in a loop inside another loop",
        "modelled",
        "a test of whether the request has a dirty tail, not a gate",
        "span_tested_in_an_inner_loop",
    ),
    Construct(
        "`had_tail = False`, then `had_tail = True` only beside each add to the ids `if had_tail:` evicts",
        "modelled",
        "whether those ids hold any: where none were added, nothing to evict",
        "flag_raised_beside_each_add",
    ),
    Construct(
        "`blocks is None` (`not blocks`) of `mgr.req_to_blocks.get(rid)`, skipped with `continue`",
        "modelled",
        "a request holding no blocks in that group: no tail skipped",
        "block_list_absent",
    ),
    Construct(
        "`reqs[i]` read several times in one pass of a `while` counter loop over a copy of the running queue",
        "modelled",
        "one request per pass",
        "counter_loop_resets_each",
    ),
    Construct(
        "`if confirmed < 0: confirmed = 0` (also `0 > confirmed`, `>= 0`) of a token count or its block",
        "modelled",
        "never below 0: the clamp never runs",
        "clamp_of_the_boundary",
    ),
    Construct(
        "`if buf:` whose body iterates `buf` into the ids it evicts",
        "modelled",
        "as `if ids:`: where `buf` is empty there was nothing to evict",
        "buffer_iterated_into_the_eviction",
    ),
    Construct(
        "`[Victim(r) for r in reqs]` (an object whose `__init__` keeps the request), then `for v in reversed(victims)`",
        "modelled",
        "one object per request, its attributes as `__init__` set them (`v.request` is this loop's request); `reversed`, `list`, `sorted` keep them",
        "objects_made_per_request_not_reset",
    ),
    Construct(
        "`if EVICT_TAIL:` (a switch the walk reads as off by default) around what collects or evicts the ids",
        "modelled",
        "an empty set of ids later is not nothing to evict: the requests it skipped keep their tails",
        "collection_switched_off_by_default",
    ),
    Construct(
        "`int(math.ceil(confirmed / block_size))` (`int()` of a whole number)",
        "modelled",
        "the number itself: here past the block the dirty tail begins in",
        "whole_number_of_a_ceiling",
    ),
    Construct(
        "`collect(kv, req, into)` with `into` a set of block ids the caller made (an out-parameter the callee fills, never rebinds)",
        "modelled",
        "the caller's set holds what the callee added",
        "out_parameter_filled_late",
    ),
    Construct(
        "`np.zeros(n)` (`torch.zeros`, `zeros_like`), its items, `.tolist()` or `zeros[i]`",
        "modelled",
        "0: `setattr(r, name, z)` over its items resets the counter named",
        "zeros_array_resets_one",
    ),
    Construct(
        "a loop over what `finish_requests(None, ...)` returned (every request it finished)",
        "modelled",
        "the running requests it freed: their block lists read afterwards are empty",
        "evicted_from_what_the_abort_returned",
    ),
    Construct(
        "what a function that calls itself returns (`collect(lo, mid) | collect(mid, hi)`, a recursive generator)",
        "unknown",
        "the walk follows one level: a base case is not what the call computes",
        "recursive_split_evicts_tails",
    ),
    Construct(
        "`if confirmed <= 0: return 0` (also `== 0`, `< 1`, `not confirmed`) in a helper computing the first block",
        "modelled",
        "that 0 is the block the dirty tail begins in (the confirmed count is 0 there)",
        "zero_confirmed_returns_block_zero",
    ),
    Construct(
        "`self.evict = evict or kv.evict_blocks` in `__init__` (a collaborator passed in, its default when none is), then `self.evict(ids)`",
        "modelled",
        "the default, as for a handler given no collaborators (`FaultHandler(engine)`); also a lambda there, and a KV-cache group an `__init__` keeps",
        "injected_defaults_first_group_only",
    ),
    Construct(
        "a call of a function the walk is already inside that zeroes some counters (`self._requeue(rest)` after `last.num_stale_output_tokens = 0`)",
        "modelled",
        "those counters zeroed for any request: the others a preempt left set stay set",
        "recursion_resets_one",
    ),
    Construct(
        "`while i < len(scheduler.running):` whose body removes from the queue itself (`del running[i]`, `remove`, `pop`) and steps `i += 1`",
        "modelled",
        "the list shifts under the index: the request after each one removed is skipped",
        "index_stepped_while_removing",
    ),
    Construct(
        "a `try` body's statement the walk followed whole (a project helper, reads, arithmetic), then an `except` or `finally` that frees",
        "modelled",
        "no exception out of it: only a call the walk cannot follow, an eviction, or a `raise` it reaches may raise",
        "try_around_followed_code",
    ),
    Construct(
        "`raise AbortInstead()` in a helper the `try` body calls, caught by the caller",
        "modelled",
        "the caller's `except` clause runs on the path that raised, with what the helper did before the `raise`",
        "raised_in_a_helper_before_the_eviction",
    ),
    Construct(
        "`while scheduler.running: req = scheduler.running[-1]; ...; scheduler.running.pop()`",
        "modelled",
        "another request on each pass (a loop that removes nothing reads the same one)",
        "preempt_guarded_then_reset",
    ),
    Construct(
        "`view.in_flight = 0` where the class of `view` makes `in_flight` a descriptor with `__set__`",
        "unknown",
        "it may write any request's counter: no preempt before it is reported",
        "counters_reset_through_descriptors",
    ),
    Construct(
        "a call the walk cannot resolve, given no block ids",
        "unknown",
        "no effect on the KV cache",
        "unknown-call-given-ids",
    ),
    Construct(
        "a slice or filter boundary the walk cannot read",
        "unknown",
        "taken as the tail: never broad",
        "test_set_difference_is_the_tail",
    ),
)


def markdown() -> str:
    """The table as docs/rules.md shows it."""
    rows = [
        "## What the analysis models",
        "",
        "The path walk behind the eviction rules (broad eviction, read after free, dirty tail left cached) follows these constructs; anything else is an unknown",
        "value, which never produces a finding (`--verbose` names each place it gave up).",
        "",
        "| Construct | Status | Taken as |",
        "|---|---|---|",
    ]
    for row in MODELLED:
        construct = row.construct.replace("|", "\\|")
        rows.append(f"| {construct} | {row.status} | {row.meaning} |")
    return "\n".join(rows) + "\n"
