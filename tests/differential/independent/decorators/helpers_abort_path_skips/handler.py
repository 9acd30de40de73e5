# Intended: buggy: only the resume path evicts the unconfirmed tail (inside helpers.requeue); the abort path calls helpers.abort_all directly, so after an abort the dirty blocks keep their hashes in the prefix cache.
# Module-level helper functions in a sibling module, imported as `import helpers`, do the work for both paths.
# switch: resume
import helpers


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        if self.resume:
            helpers.requeue(sched, list(sched.running))
        else:
            self.engine._send_abort_outputs(helpers.abort_all(sched))
