# Intended: correct.
# Idioms: builder (fluent FaultHandlerBuilder producing an immutable policy), an Enum for the recovery mode, @property getters on the built policy, the public FaultHandler delegating to the built object; a class-attribute switch.
# switch: RESUME
"""Public entry point: builds the default recovery policy and delegates to it."""

from __future__ import annotations

from policy_builder import FaultPolicyBuilder, RecoveryMode


class FaultHandler:
    RESUME = False

    def __init__(self, engine, builder: FaultPolicyBuilder | None = None) -> None:
        self.engine = engine
        self._builder = builder or FaultPolicyBuilder()

    def on_fault(self, exc: Exception) -> None:
        policy = (
            self._builder.for_engine(self.engine)
            .with_mode(RecoveryMode.RESUME if self.RESUME else RecoveryMode.ABORT)
            .evicting_unconfirmed_tail()
            .build()
        )
        policy.apply(exc)
