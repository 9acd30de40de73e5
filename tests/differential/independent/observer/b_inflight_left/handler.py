# Intended: buggy: on the resume path the after_preempt listener clears num_stale_output_tokens but leaves num_in_flight_tokens set, so the requeued request's confirmed boundary (num_computed_tokens - num_in_flight_tokens) is off by the lost step.
# Idioms: an event bus class defined in the handler module with on()/emit(), listener lists per event name, before_preempt / after_preempt / before_abort hooks, one listener object per concern.
# switch: RESUME
import time

from vllm.v1.request import RequestStatus


class EventBus:
    def __init__(self):
        self._listeners = {}

    def on(self, name, listener):
        self._listeners.setdefault(name, []).append(listener)

    def emit(self, name, *args):
        for listener in self._listeners.get(name, ()):
            listener(*args)


class TailEvictor:
    def __init__(self, scheduler):
        self.scheduler = scheduler

    def __call__(self, request):
        kv = self.scheduler.kv_cache_manager
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        victims = set()
        for mgr in kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(request.request_id) or []
            for i in range(confirmed // mgr.block_size, len(blocks)):
                if not blocks[i].is_null:
                    victims.add(blocks[i].block_id)
        kv.evict_blocks(victims)


class StaleOutputReset:
    """After the preempt the scheduler would wait for the failed step's
    output before rescheduling the request; that output is gone."""

    def __call__(self, request):
        request.num_stale_output_tokens = 0


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine
        self.bus = EventBus()
        evictor = TailEvictor(engine.scheduler)
        self.bus.on("before_abort", evictor)
        self.bus.on("before_preempt", evictor)
        self.bus.on("after_preempt", StaleOutputReset())

    def on_fault(self, exc):
        sched = self.engine.scheduler
        if not self.RESUME:
            victims = list(sched.running)
            for req in victims:
                self.bus.emit("before_abort", req)
            self.engine._send_abort_outputs(
                sched.finish_requests([r.request_id for r in victims], RequestStatus.FINISHED_ABORTED)
            )
            return
        stamp = time.monotonic()
        for req in reversed(list(sched.running)):
            self.bus.emit("before_preempt", req)
            sched.running.remove(req)
            sched._preempt_request(req, stamp)
            self.bus.emit("after_preempt", req)
