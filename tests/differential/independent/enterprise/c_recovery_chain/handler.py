# Intended: correct.
# Idioms: chain of responsibility (linked abstract handler links with set_next), a context object passed down the chain, a factory function assembling the default chain; abort-only.
"""Fault handling as a chain of responsibility: each link does one job and passes on."""

from __future__ import annotations

from recovery_chain import FaultContext, build_default_chain


class FaultHandler:
    def __init__(self, engine, chain=None) -> None:
        self.engine = engine
        self._chain = chain or build_default_chain()

    def on_fault(self, exc: Exception) -> None:
        context = FaultContext(engine=self.engine, cause=exc)
        self._chain.handle(context)
