# Intended: correct.
# Idioms: classic Subject/Observer classes (abstract update(event)) in a helper module, observers attached in __init__, two notification phases (prepare, retire) on one notice object.
# switch: resume
from fault_observers import FaultNotice, FaultSubject, RequestRetirer, UnconfirmedTailEvictor


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine
        self.subject = FaultSubject()
        self.subject.attach(UnconfirmedTailEvictor())
        self.subject.attach(RequestRetirer())

    def on_fault(self, exc):
        sched = self.engine.scheduler
        notice = FaultNotice("prepare", sched, list(sched.running), self.resume)
        self.subject.notify(notice)
        notice.phase = "retire"
        self.subject.notify(notice)
        if notice.aborted:
            self.engine._send_abort_outputs(notice.aborted)
