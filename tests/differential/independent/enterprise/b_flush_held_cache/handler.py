# Intended: buggy: instead of evicting the unconfirmed tail, a chain link resets the whole prefix cache while the running requests still hold their blocks, which the KV-cache manager refuses (it returns False, ignored here), so nothing is evicted before the abort and the dirty blocks stay cached.
# Idioms: chain of responsibility with an abstract link class and a fluent builder for the chain, a shared mutable context object, abort-only.
"""Fault handler assembled as a chain of recovery links."""

from __future__ import annotations

from fault_chain import ChainBuilder, FlushPrefixCacheLink, AbortRunningLink, NotifyLink, RecoveryContext


class FaultHandler:
    def __init__(self, engine, chain=None) -> None:
        self.engine = engine
        self.chain = chain or (
            ChainBuilder().then(FlushPrefixCacheLink()).then(AbortRunningLink()).then(NotifyLink()).build()
        )

    def on_fault(self, exc: Exception) -> None:
        self.chain.handle(RecoveryContext(self.engine, exc))
