"""Planning package for the fault handler: immutable state and pure steps."""

from .model import RecoveryState, initial_state
from .steps import with_dirty_tail, with_mode

__all__ = ["RecoveryState", "initial_state", "with_dirty_tail", "with_mode"]
