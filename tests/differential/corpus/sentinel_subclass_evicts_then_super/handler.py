# Intended: correct. Subclasses vLLM's own EngineCoreSentinel: evicts the
# unconfirmed tail, then lets upstream's on_fault abort everything.
from vllm.v1.fault_tolerance.engine_core_sentinel import EngineCoreSentinel

from kv import evict_tail


class FaultHandler(EngineCoreSentinel):
    def __init__(self, engine):
        super().__init__(engine, engine.scheduler.vllm_config.parallel_config)

    def on_fault(self, exc):
        evict_tail(self.engine.scheduler)
        super().on_fault(exc)
