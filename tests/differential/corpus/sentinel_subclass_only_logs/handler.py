# Intended: bug. Subclasses vLLM's EngineCoreSentinel to log the fault and
# delegates to upstream's on_fault, which aborts without evicting the tail.
import logging

from vllm.v1.fault_tolerance.engine_core_sentinel import EngineCoreSentinel

logger = logging.getLogger(__name__)


class FaultHandler(EngineCoreSentinel):
    def __init__(self, engine):
        super().__init__(engine, engine.scheduler.vllm_config.parallel_config)

    def on_fault(self, exc):
        logger.error("engine core fault: %s", exc)
        super().on_fault(exc)
