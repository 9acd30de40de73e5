"""Issue 21: idioms two more unseen sets (class hierarchies; procedural code with index loops)
and the state-machine set showed the walk losing track of, each modelled by value, both
verdicts (a handler and its twin that differs in the one thing that matters).

- A recovery machine run by a bounded loop (`for _ in range(limit):`) over a state the walk
  knows: the body step by step, each path in the state it is in; a transition table set in
  `__init__` (`{Step.A: (self._scan, Step.B), ...}`, enum members as keys, lambdas choosing the
  next state, `callable(nxt)`); state objects whose class says `final = True`.
- `getattr(self, name, None)` that found a method is not None.
- `r.status == RequestStatus.PREEMPTED` of a request preempted on the path holds.
- A request of a list the walk cannot see into (`self._batch`), reset after one preempted
  from such a list: it may be the same request (no FT008).
- A class with abstract methods (or an `ABC` whose subclasses inherit the handler) is walked
  only for its subclasses; `super().hook()` in a mixin goes on to the next class of the MRO of
  the class that combines them.
- `if not span.empty:` in an inner loop is a test of the dirty tail, not a gate.
- `had_tail = True` only beside each add to the ids evicted under `if had_tail:`: the flag is
  whether the ids hold any.
- `blocks is None` / `not blocks` of a request's block list: a request holding no blocks.
- `reqs[i]` read several times in one pass of a `while` counter loop: one request.
- `confirmed < 0` is false (a token count is never negative): the clamp never runs.
- `if buf:` whose body iterates `buf` into the ids it evicts: the empty `buf` had none.
(The handlers evicting in `on_fault`'s own body also get FT002.) One project holds every
handler (one ftlint run); each test reads its own file's findings."""

import pytest

from tests.helpers import findings_json, write_project

TAIL = """
def tail_ids(kv, reqs):
    ids = set()
    for req in reqs:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            ids |= {b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]}
    return ids
"""

MACHINE = (
    """import enum
from vllm.v1.request import RequestStatus
"""
    + TAIL
    + """

class Step(enum.Enum):
    SCAN = 1
    EVICT = 2
    ABORT = 3
    DONE = 4


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.table = {
            Step.SCAN: (self._scan, FIRST),
            Step.EVICT: (self._evict, AFTER_EVICT),
            Step.ABORT: (self._abort, AFTER_ABORT),
        }

    def on_fault(self, exc):
        step = Step.SCAN
        for _ in range(10):
            if step is Step.DONE:
                break
            action, step = self.table[step]
            action()
        else:
            raise RuntimeError("stuck")

    def _scan(self):
        self.reqs = list(self.engine.scheduler.running)

    def _evict(self):
        kv = self.engine.scheduler.kv_cache_manager
        kv.evict_blocks(tail_ids(kv, list(self.engine.scheduler.running)))

    def _abort(self):
        self.engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
"""
)


def _machine(first: str, after_evict: str, after_abort: str) -> str:
    return MACHINE.replace("FIRST", first).replace("AFTER_EVICT", after_evict).replace("AFTER_ABORT", after_abort)


CHOOSER = (
    """import enum
from vllm.v1.request import RequestStatus
"""
    + TAIL
    + """

class St(enum.Enum):
    BEGIN = "begin"
    EVICT = "evict"
    ABORT = "abort"
    END = "end"


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.actions = {St.BEGIN: lambda: None, St.EVICT: self._evict, St.ABORT: self._abort}
        self.transitions = {St.BEGIN: lambda: St.EVICT, St.EVICT: St.ABORT, St.ABORT: St.END}

    def on_fault(self, exc):
        state = St.BEGIN
        while state is not St.END:
            self.actions[state]()
            nxt = self.transitions[state]
            state = nxt() if callable(nxt) else nxt

    def _evict(self):
        kv = self.engine.scheduler.kv_cache_manager
        kv.evict_blocks(EVICTED)

    def _abort(self):
        self.engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
"""
)

STATE_OBJECTS = (
    TAIL
    + """

class State:
    final = False

    def run(self, handler):
        return self


class Evict(State):
    def run(self, handler):
        kv = handler.engine.scheduler.kv_cache_manager
        kv.evict_blocks(tail_ids(kv, list(handler.engine.scheduler.running)))
        return PARK


class Park(State):
    def run(self, handler):
        sched = handler.engine.scheduler
        for req in reversed(handler.reqs):
            sched.running.remove(req)
            sched._preempt_request(req, 0.0)
        return AFTER_PARK


class Settle(State):
    def run(self, handler):
        for req in handler.reqs:
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
        return DONE


class Done(State):
    final = True


EVICT = Evict()
PARK = Park()
SETTLE = Settle()
DONE = Done()


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.reqs = []

    def on_fault(self, exc):
        self.reqs = list(self.engine.scheduler.running)
        state = EVICT
        for _ in range(8):
            if state.final:
                break
            state = state.run(self)
"""
)

GETATTR = (
    """from vllm.v1.request import RequestStatus
"""
    + TAIL
    + """

class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        work = getattr(self, "NAME", None)
        if work is not None:
            work(sched.kv_cache_manager, list(sched.running))
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)

    def _evict_tails(self, kv, reqs):
        kv.evict_blocks(tail_ids(kv, reqs))

    def _log_tails(self, kv, reqs):
        print(len(reqs))
"""
)

RESUME = (
    TAIL
    + """

class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self._batch = []

    def on_fault(self, exc):
        sched = self.engine.scheduler
        self._batch = list(sched.running)
        kv = sched.kv_cache_manager
        kv.evict_blocks(tail_ids(kv, list(sched.running)))
        self._requeue()
        self._settle()

    def _requeue(self):
        sched = self.engine.scheduler
        for req in reversed(self._batch):
            sched.running.remove(req)
            sched._preempt_request(req, 0.0)

    def _settle(self):
        SETTLE
"""
)

STATUS = (
    """from vllm.v1.request import RequestStatus
"""
    + TAIL
    + """

class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        reqs = list(sched.running)
        kv = sched.kv_cache_manager
        kv.evict_blocks(tail_ids(kv, reqs))
        for req in reversed(reqs):
            sched.running.remove(req)
            sched._preempt_request(req, 0.0)
        for req in reqs:
            if req.status == RequestStatus.STATUS:
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
"""
)

ABSTRACT = (
    """import abc
from vllm.v1.request import RequestStatus
"""
    + TAIL
    + """

class RecoveringHandler(abc.ABC):
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        self.invalidate(sched.kv_cache_manager, list(sched.running))
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)

    @abc.abstractmethod
    def invalidate(self, kv, reqs): ...


class FaultHandler(RecoveringHandler):
    def invalidate(self, kv, reqs):
        INVALIDATE
"""
)

MIXINS = (
    """import abc
from vllm.v1.request import RequestStatus
"""
    + TAIL
    + """

class Base(abc.ABC):
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        reqs = list(self.engine.scheduler.running)
        self.before_release(reqs)
        self.engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)

    def before_release(self, reqs):
        pass


class LogMixin:
    def before_release(self, reqs):
        print(len(reqs))
        super().before_release(reqs)


class EvictMixin:
    def before_release(self, reqs):
        super().before_release(reqs)
        kv = self.engine.scheduler.kv_cache_manager
        kv.evict_blocks(tail_ids(kv, reqs))


class FaultHandler(BASES):
    pass
"""
)

SPANS = """from dataclasses import dataclass
from vllm.v1.request import RequestStatus


@dataclass(frozen=True)
class Span:
    rid: str
    start: int
    stop: int

    @classmethod
    def of(cls, r):
        return cls(r.request_id, r.num_computed_tokens - r.num_in_flight_tokens, r.num_computed_tokens)

    @property
    def empty(self):
        return self.stop <= self.start

    def ids(self, mgr):
        blocks = mgr.req_to_blocks.get(self.rid, [])
        return [b.block_id for b in blocks[self.start // mgr.block_size:]]


def invalidate(kv, spans):
    dirty = set()
    for mgr in kv.coordinator.single_type_managers:
        for span in spans:
            if TEST:
                dirty.update(span.ids(mgr))
    kv.evict_blocks(dirty)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        invalidate(sched.kv_cache_manager, [Span.of(r) for r in sched.running])
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
"""

PROCEDURAL = """from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        mgrs = kvm.coordinator.single_type_managers
        ids = []
        evict = set()
        had_tail = False
        i = 0
        while i < len(sched.running):
            req = sched.running[i]
            ids.append(req.request_id)
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            if confirmed < 0:
                confirmed = 0
            g = 0
            while g < len(mgrs):
                blocks = mgrs[g].req_to_blocks.get(req.request_id)
                if SKIP:
                    g = g + 1
                    continue
                j = confirmed // mgrs[g].block_size
                while j < len(blocks):
                    if not blocks[j].is_null:
                        evict.add(blocks[j].block_id)
                        RAISE
                    j = j + 1
                g = g + 1
            OTHER
            i = i + 1
        if had_tail:
            kvm.evict_blocks(evict)
        sched.finish_requests(ids, RequestStatus.FINISHED_ABORTED)
"""


def _procedural(raise_: str = "had_tail = True", other: str = "pass") -> str:
    return PROCEDURAL.replace("SKIP", "blocks is None").replace("RAISE", raise_).replace("OTHER", other)


COUNTER_LOOP = """import time


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        reqs = []
        i = 0
        while i < len(sched.running):
            reqs.append(sched.running[i])
            i = i + 1
        ids = set()
        for r in reqs:
            confirmed = r.num_computed_tokens - r.num_in_flight_tokens
            for mgr in kvm.coordinator.single_type_managers:
                ids |= {b.block_id for b in mgr.req_to_blocks[r.request_id][confirmed // mgr.block_size:]}
        kvm.evict_blocks(ids)
        now = time.monotonic()
        i = len(reqs) - 1
        while i >= 0:
            sched.running.remove(reqs[i])
            sched._preempt_request(reqs[i], now)
            RESET
            i = i - 1
"""

ZEROING = """from vllm.v1.request import RequestStatus


def scrub(kvm, mgrs, rid, computed, in_flight):
    first = computed - in_flight
    if first < 0:
        first = 0
    FIRST
    aligned = first
    bs = mgrs[0].block_size
    if aligned % bs != 0:
        aligned = aligned - aligned % bs
    kvm.record_blocks_for_zeroing(rid, aligned)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        mgrs = kvm.coordinator.single_type_managers
        for r in list(sched.running):
            scrub(kvm, mgrs, r.request_id, r.num_computed_tokens, r.num_in_flight_tokens)
"""

BUFFER = """import time

_BUF = []


def fill(kvm, request_ids, buf):
    del buf[:]
    i = 0
    while i < len(request_ids):
        per_group = kvm.get_block_ids(request_ids[i])
        g = 0
        while g < len(per_group):
            k = 0
            while k < len(per_group[g]):
                if per_group[g][k] != 0:
                    buf.append(per_group[g][k])
                k += 1
            g += 1
        i += 1


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        fill(kvm, [r.request_id for r in sched.running], _BUF)
        if TEST:
            s = set()
            for b in _BUF:
                s.add(b)
            kvm.evict_blocks(s)
        now = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            sched._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
"""

GROUPS_LOOP = """from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        ids = set()
        for req in list(sched.running):
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            g = 0
            while g < len(kv.coordinator.single_type_managers):
                mgr = kv.coordinator.single_type_managers[g]
                blocks = mgr.req_to_blocks.get(req.request_id)
                if SKIP:
                    g = g + 1
                    continue
                ids |= {b.block_id for b in blocks[confirmed // mgr.block_size:]}
                g = g + 1
        kv.evict_blocks(ids)
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
"""

VICTIMS = (
    """from vllm.v1.request import RequestStatus
"""
    + TAIL
    + """

class Victim:
    def __init__(self, request):
        self.request = request


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        victims = [Victim(r) for r in sched.running]
        kv = sched.kv_cache_manager
        kv.evict_blocks(tail_ids(kv, [v.request for v in victims]))
        for v in reversed(victims):
            sched.running.remove(v.request)
            sched._preempt_request(v.request, 0.0)
        for v in victims:
            RESET
"""
)

SWITCHED_OFF = (
    """import os
from vllm.v1.request import RequestStatus
"""
    + TAIL
    + """
EVICT_TAIL = os.environ.get("FT_EVICT_TAIL", "0") == "1"


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        ids = set()
        for r in list(sched.running):
            if SWITCH:
                ids |= tail_ids(kv, [r])
        if len(ids) > 0:
            kv.evict_blocks(ids)
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
"""
)

ROUNDED = """import math
from vllm.v1.request import RequestStatus


def tail(kv, req):
    confirmed = req.num_computed_tokens - req.num_in_flight_tokens
    ids = set()
    for mgr in kv.coordinator.single_type_managers:
        first = int(math.ROUND(confirmed / mgr.block_size))
        ids |= {b.block_id for b in mgr.req_to_blocks[req.request_id][first:]}
    return ids


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        for r in list(sched.running):
            kv.evict_blocks(tail(kv, r))
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
"""

OUT_PARAM = """from vllm.v1.request import RequestStatus


def collect(kv, req, into):
    confirmed = req.num_computed_tokens - req.num_in_flight_tokens
    for mgr in kv.coordinator.single_type_managers:
        for b in mgr.req_to_blocks[req.request_id][START:]:
            into.add(b.block_id)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        out = set()
        for r in list(sched.running):
            collect(kv, r, out)
        if out:
            kv.evict_blocks(out)
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
"""

ZEROS = (
    """import time

import numpy as np

_COUNTERS = FIELDS
"""
    + TAIL
    + """

class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        reqs = list(sched.running)
        kv = sched.kv_cache_manager
        kv.evict_blocks(tail_ids(kv, reqs))
        now = time.monotonic()
        while sched.running:
            sched._preempt_request(sched.running.pop(), now)
        zeros = np.zeros(len(reqs), dtype=np.int64)
        for name in _COUNTERS:
            for r, z in zip(reqs, zeros.tolist()):
                setattr(r, name, z)
"""
)

AFTER_ABORT = """from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        EARLY
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        LATE
        self.engine._send_abort_outputs(aborted)

    def evict(self, kv, reqs):
        ids = set()
        i = 0
        while i < len(reqs):
            req = reqs[i]
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                ids |= {b.block_id for b in mgr.req_to_blocks.get(req.request_id, [])[confirmed // mgr.block_size:]}
            i = i + 1
        if ids:
            kv.evict_blocks(ids)
"""

GRID = """from vllm.v1.request import RequestStatus


class Grid:
    def __init__(self, requests, managers):
        self.requests = requests
        self.managers = managers

    def cell(self, r, g):
        req, mgr = self.requests[r], self.managers[g]
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        return {b.block_id for b in mgr.req_to_blocks.get(req.request_id, [])[START:]}

    def collect(self, r0=0, r1=None, g0=0, g1=None):
        r1 = len(self.requests) if r1 is None else r1
        g1 = len(self.managers) if g1 is None else g1
        if r0 >= r1 or g0 >= g1:
            return set()
        if r1 - r0 == 1 and g1 - g0 == 1:
            return self.cell(r0, g0)
        if r1 - r0 >= g1 - g0:
            mid = (r0 + r1) // 2
            return self.collect(r0, mid, g0, g1) | self.collect(mid, r1, g0, g1)
        mid = (g0 + g1) // 2
        return self.collect(r0, r1, g0, mid) | self.collect(r0, r1, mid, g1)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        stale = Grid(list(sched.running), kv.coordinator.single_type_managers).collect()
        if stale:
            kv.evict_blocks(stale)
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
"""

FIRST_BLOCK = """from vllm.v1.request import RequestStatus


def first_block(confirmed, block_size):
    if confirmed <= 0:
        return 0
    return confirmed // block_size


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        ids = set()
        for req in list(sched.running):
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                start = first_block(confirmed, mgr.block_size)STEP
                ids |= {b.block_id for b in mgr.req_to_blocks[req.request_id][start:]}
        kv.evict_blocks(ids)
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
"""

INJECTED = """import logging
from vllm.v1.request import RequestStatus


class GroupReader:
    def __init__(self, kv_cache_manager):
        self._manager = kv_cache_manager.coordinator.SOURCE
        self.block_size = self._manager.block_size

    def blocks(self, request_id):
        return list(self._manager.req_to_blocks.get(request_id) or [])


class FaultHandler:
    def __init__(self, engine, reader=None, evict=None, abort=None, logger=None):
        self.engine = engine
        scheduler = engine.scheduler
        self.reader = reader or GroupReader(scheduler.kv_cache_manager)
        self.evict = evict or scheduler.kv_cache_manager.evict_blocks
        self.abort = abort or (lambda ids: scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED))
        self.logger = logger or logging.getLogger(__name__)

    def _tail(self, request):
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        start = confirmed // self.reader.block_size
        return {b.block_id for b in self.reader.blocks(request.request_id)[start:]}

    def on_fault(self, exc):
        running = list(self.engine.scheduler.running)
        dirty = set()
        for request in running:
            dirty |= self._tail(request)
        if dirty:
            self.evict(dirty)
        self.abort([r.request_id for r in running])
"""

RECURSIVE_RESUME = (
    """import time
"""
    + TAIL
    + """

class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        reqs = list(sched.running)
        kv.evict_blocks(tail_ids(kv, reqs))
        self._requeue(sched, reqs, len(reqs) - 1, time.monotonic())

    def _requeue(self, sched, reqs, i, now):
        if i < 0:
            return
        req = reqs[i]
        sched.running.remove(req)
        sched._preempt_request(req, now)
        RESET
        self._requeue(sched, reqs, i - 1, now)
"""
)

SHIFTING = (
    """import time
"""
    + TAIL
    + """

class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        now = time.monotonic()
        i = 0
        while i < len(sched.running):
            req = sched.running[i]
            kv.evict_blocks(tail_ids(kv, [req]))
            del sched.running[i]
            sched._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
            STEP
"""
)

GUARDED = (
    """from vllm.v1.request import RequestStatus
"""
    + TAIL
    + """

class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        try:
            BEFORE
            kv.evict_blocks(tail_ids(kv, list(sched.running)))
        except Exception:
            pass
        finally:
            sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
"""
)

THROWN = (
    """import time
from vllm.v1.request import RequestStatus
"""
    + TAIL
    + """

class AbortInstead(Exception):
    pass


class FaultHandler:
    RESUME = True

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        try:
            self._resume(sched)
        except AbortInstead:
            sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)

    def _resume(self, sched):
        kv = sched.kv_cache_manager
        FIRST
        SECOND
        now = time.monotonic()
        for req in reversed(list(sched.running)):
            sched.running.remove(req)
            sched._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
"""
)
RAISE_UNLESS_RESUME = "if not self.RESUME:\n            raise AbortInstead()"
EVICT_ALL = "kv.evict_blocks(tail_ids(kv, list(sched.running)))"

PREEMPT_GUARDED = (
    """import time
"""
    + TAIL
    + """

class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        now = time.monotonic()
        while sched.running:
            req = sched.running[-1]
            kv.evict_blocks(tail_ids(kv, [req]))
            sched.running.pop()
            try:
                sched._preempt_request(req, now)
            except AssertionError:
                pass
            else:
                RESET
"""
)

DESCRIPTOR = (
    """import time
"""
    + TAIL
    + """

class Forward:
    def __init__(self, field):
        self.field = field

    def __get__(self, view, owner=None):
        return self if view is None else getattr(view.request, self.field)

    def __set__(self, view, value):
        setattr(view.request, self.field, value)


class View:
    FIELDS

    def __init__(self, request):
        self.request = request

    def forget(self):
        self.in_flight = 0
        self.stale = 0


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        views = [View(r) for r in sched.running]
        kv.evict_blocks(tail_ids(kv, [v.request for v in views]))
        now = time.monotonic()
        for v in reversed(views):
            sched.running.remove(v.request)
            sched._preempt_request(v.request, now)
            v.forget()
"""
)

RESET_BOTH = "reqs[i].num_in_flight_tokens = 0\n            reqs[i].num_stale_output_tokens = 0"

# file stem: (handler source, the codes it must get)
CASES = {
    "machine_evicts_then_aborts": (_machine("Step.EVICT", "Step.ABORT", "Step.DONE"), []),
    "machine_aborts_then_evicts": (_machine("Step.ABORT", "Step.DONE", "Step.EVICT"), ["FT006", "FT007"]),
    "machine_never_evicts": (_machine("Step.ABORT", "Step.DONE", "Step.DONE"), ["FT007"]),
    "machine_chooser_evicts_tails": (
        CHOOSER.replace("EVICTED", "tail_ids(kv, list(self.engine.scheduler.running))"),
        [],
    ),
    "machine_chooser_evicts_whole": (
        CHOOSER.replace("EVICTED", "{b.block_id for r in self.engine.scheduler.running for b in r.get_blocks()}"),
        ["FT004"],
    ),
    "state_objects_settle_after_parking": (STATE_OBJECTS.replace("AFTER_PARK", "SETTLE"), []),
    "state_objects_done_after_parking": (STATE_OBJECTS.replace("AFTER_PARK", "DONE"), ["FT008"]),
    "getattr_finds_the_eviction": (GETATTR.replace("NAME", "_evict_tails"), []),
    "getattr_finds_no_eviction": (GETATTR.replace("NAME", "_log_tails"), ["FT007"]),
    "batch_in_self_reset": (
        RESUME.replace(
            "SETTLE",
            "for req in self._batch:\n            req.num_in_flight_tokens = 0\n            req.num_stale_output_tokens = 0",
        ),
        ["FT002"],
    ),
    "batch_in_self_not_reset": (RESUME.replace("SETTLE", "pass"), ["FT002", "FT008"]),
    "reset_when_preempted": (STATUS.replace("STATUS", "PREEMPTED"), ["FT002"]),
    "reset_when_running": (STATUS.replace("STATUS", "RUNNING"), ["FT002", "FT008"]),
    "abstract_base_subclass_evicts": (ABSTRACT.replace("INVALIDATE", "kv.evict_blocks(tail_ids(kv, reqs))"), []),
    "abstract_base_subclass_evicts_nothing": (ABSTRACT.replace("INVALIDATE", "print(len(reqs))"), ["FT007"]),
    "mixins_chain_to_the_eviction": (MIXINS.replace("BASES", "LogMixin, EvictMixin, Base"), []),
    "mixins_without_the_eviction": (MIXINS.replace("BASES", "LogMixin, Base"), ["FT007"]),
    "span_tested_in_an_inner_loop": (SPANS.replace("TEST", "not span.empty"), []),
    "span_gated_in_an_inner_loop": (SPANS.replace("TEST", "span.rid.startswith('x')"), ["FT007"]),
    "flag_raised_beside_each_add": (_procedural(), ["FT002", "FT002", "FT002"]),
    "flag_raised_elsewhere": (
        _procedural(raise_="pass", other="if req.num_output_tokens:\n                had_tail = True"),
        ["FT002", "FT002", "FT002", "FT007"],
    ),
    "block_list_absent": (GROUPS_LOOP.replace("SKIP", "blocks is None"), ["FT002"] * 3),
    "block_list_empty": (GROUPS_LOOP.replace("SKIP", "not blocks"), ["FT002"] * 3),
    "block_list_gated": (GROUPS_LOOP.replace("SKIP", "self.engine.skip(req)"), ["FT002"] * 3 + ["FT007"]),
    "counter_loop_resets_each": (COUNTER_LOOP.replace("RESET", RESET_BOTH), ["FT002", "FT002"]),
    "counter_loop_resets_none": (COUNTER_LOOP.replace("RESET", "pass"), ["FT002", "FT002", "FT008"]),
    "clamp_of_the_boundary": (ZEROING.replace("FIRST", "pass"), []),
    "zeroing_from_token_zero": (ZEROING.replace("FIRST", "first = 0"), ["FT004"]),
    "buffer_iterated_into_the_eviction": (BUFFER.replace("TEST", "_BUF"), ["FT002"]),
    "buffer_gated_by_a_flag": (BUFFER.replace("TEST", "self.engine.evicting"), ["FT002", "FT007"]),
    "objects_made_per_request_reset": (
        VICTIMS.replace(
            "RESET", "v.request.num_in_flight_tokens = 0\n            v.request.num_stale_output_tokens = 0"
        ),
        ["FT002"],
    ),
    "objects_made_per_request_not_reset": (VICTIMS.replace("RESET", "pass"), ["FT002", "FT008"]),
    "collection_switched_off_by_default": (SWITCHED_OFF.replace("SWITCH", "EVICT_TAIL"), ["FT002", "FT007"]),
    "collection_switched_on_by_default": (SWITCHED_OFF.replace("SWITCH", "not EVICT_TAIL"), ["FT002"]),
    "whole_number_of_a_ceiling": (ROUNDED.replace("ROUND", "ceil"), ["FT002", "FT007"]),
    "whole_number_of_a_floor": (ROUNDED.replace("ROUND", "floor"), ["FT002"]),
    "out_parameter_filled_with_the_tail": (OUT_PARAM.replace("START", "confirmed // mgr.block_size"), ["FT002"]),
    "out_parameter_filled_late": (OUT_PARAM.replace("START", "confirmed // mgr.block_size + 1"), ["FT002", "FT007"]),
    "zeros_array_resets_both": (
        ZEROS.replace("FIELDS", '("num_stale_output_tokens", "num_in_flight_tokens")'),
        ["FT002"],
    ),
    "zeros_array_resets_one": (ZEROS.replace("FIELDS", '("num_stale_output_tokens",)'), ["FT002", "FT008"]),
    "evicted_before_the_abort": (
        AFTER_ABORT.replace("EARLY", "self.evict(kv, list(sched.running))").replace("LATE", "pass"),
        [],
    ),
    "evicted_from_what_the_abort_returned": (
        AFTER_ABORT.replace("EARLY", "pass").replace("LATE", "self.evict(kv, aborted)"),
        ["FT006", "FT007"],
    ),
    "recursive_split_evicts_tails": (GRID.replace("START", "confirmed // mgr.block_size"), ["FT002"]),
    "recursive_split_evicts_whole": (GRID.replace("START", "0"), ["FT002"]),
    "zero_confirmed_returns_block_zero": (FIRST_BLOCK.replace("STEP", ""), ["FT002", "FT002"]),
    "zero_confirmed_then_one_more": (FIRST_BLOCK.replace("STEP", " + 1"), ["FT002", "FT002", "FT007"]),
    "injected_defaults_first_group_only": (INJECTED.replace("SOURCE", "single_type_managers[0]"), ["FT002", "FT007"]),
    "recursion_resets_both": (
        RECURSIVE_RESUME.replace("RESET", "req.num_in_flight_tokens = 0\n        req.num_stale_output_tokens = 0"),
        ["FT002"],
    ),
    "recursion_resets_one": (RECURSIVE_RESUME.replace("RESET", "req.num_stale_output_tokens = 0"), ["FT002", "FT008"]),
    "index_kept_while_removing": (SHIFTING.replace("STEP", "pass"), ["FT002"]),
    "index_stepped_while_removing": (SHIFTING.replace("STEP", "i += 1"), ["FT002", "FT007"]),
    "try_around_followed_code": (GUARDED.replace("BEFORE", "ids = tail_ids(kv, list(sched.running))"), ["FT002"]),
    "try_around_an_unfollowed_call": (GUARDED.replace("BEFORE", "self.engine.drain()"), ["FT002", "FT007"]),
    "raised_in_a_helper_before_the_eviction": (
        THROWN.replace("FIRST", RAISE_UNLESS_RESUME).replace("SECOND", EVICT_ALL),
        ["FT007"],
    ),
    "raised_in_a_helper_after_the_eviction": (
        THROWN.replace("FIRST", EVICT_ALL).replace("SECOND", RAISE_UNLESS_RESUME),
        [],
    ),
    "preempt_guarded_then_reset": (
        PREEMPT_GUARDED.replace(
            "RESET", "req.num_in_flight_tokens = 0\n                req.num_stale_output_tokens = 0"
        ),
        ["FT002"],
    ),
    "preempt_guarded_never_reset": (PREEMPT_GUARDED.replace("RESET", "pass"), ["FT002", "FT008"]),
    "counters_reset_through_descriptors": (
        DESCRIPTOR.replace(
            "FIELDS", 'in_flight = Forward("num_in_flight_tokens")\n    stale = Forward("num_stale_output_tokens")'
        ),
        ["FT002"],
    ),
    "counters_set_on_the_view_only": (DESCRIPTOR.replace("FIELDS", "in_flight = stale = 1"), ["FT002", "FT008"]),
}


@pytest.fixture(scope="module")
def findings(tmp_path_factory):
    root = write_project(tmp_path_factory.mktemp("idioms"), {f"{name}.py": src for name, (src, _) in CASES.items()})
    code, found = findings_json("--select", "FT002,FT004,FT005,FT006,FT007,FT008", ".", cwd=root)
    assert code in (0, 1)
    return found


@pytest.mark.parametrize("name", sorted(CASES))
def test_class_and_loop_idiom_verdict(findings, name):
    got = sorted(f["code"] for f in findings if f["path"] == f"{name}.py")
    assert got == CASES[name][1], (got, CASES[name][0])
