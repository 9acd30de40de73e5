"""Runtime verifier: what a fault handler actually did to vLLM's prefix cache.

Importing this package is cheap: it imports neither vLLM nor torch (only
:mod:`ftlint.runtime.vllm_cpu`, :mod:`ftlint.runtime.demo` and
:func:`assert_blocks_zeroed` do, when used).  See docs/runtime.md.
"""

from .checks import CHECKS, RuntimeCheck, runtime_check, unregister_check
from .device import assert_blocks_zeroed
from .report import (
    CODES,
    FaultInvariantError,
    FaultReport,
    FaultVerificationWarning,
    Violation,
)
from .verify import (
    FaultObservation,
    check_fault_handling,
    observe_fault_handling,
    verify_fault_handling,
)

__all__ = [
    "CHECKS",
    "CODES",
    "FaultInvariantError",
    "FaultObservation",
    "FaultReport",
    "FaultVerificationWarning",
    "RuntimeCheck",
    "Violation",
    "assert_blocks_zeroed",
    "check_fault_handling",
    "observe_fault_handling",
    "runtime_check",
    "unregister_check",
    "verify_fault_handling",
]
