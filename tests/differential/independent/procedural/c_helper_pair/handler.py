# Intended: correct.
# Idioms: two helper modules of module-level functions with long positional argument lists, out-parameters (a dict of per-group counts, a list of handled ids), module-level counter dict, while loops with manual counters and continue, an abort/resume switch.
# switch: PREEMPT_INSTEAD_OF_ABORT
import ftr_blockmath
import ftr_requeue


class FaultHandler:
    PREEMPT_INSTEAD_OF_ABORT = False

    def __init__(self, engine):
        self.engine = engine
        self.handled = []

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        mgrs = kvm.coordinator.single_type_managers
        per_group = {}
        ids = []
        i = 0
        while i < len(sched.running):
            r = sched.running[i]
            ids.append(r.request_id)
            ftr_blockmath.evict_tail(kvm, mgrs, len(mgrs), r.request_id,
                                     r.num_computed_tokens, r.num_in_flight_tokens, per_group)
            i = i + 1
        self.handled = []
        if self.PREEMPT_INSTEAD_OF_ABORT:
            ftr_requeue.requeue_all(sched, None, self.handled)
        else:
            ftr_requeue.abort_all(sched, self.engine, ids, self.handled)
