# Intended: correct on both paths. Helpers live in a package (ftfork) that
# uses relative imports between its modules; the handler calls the package's
# recover() which evicts the tail first, then aborts or resumes.
# switch: resume_on_fault
from ftfork.recover import recover


class FaultHandler:
    resume_on_fault = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        recover(self.engine.scheduler, self.resume_on_fault)
