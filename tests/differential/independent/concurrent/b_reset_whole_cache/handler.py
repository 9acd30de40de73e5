# Intended: buggy: it resets the whole prefix cache while the faulted requests still hold their blocks, which vLLM refuses (the reset returns False and the return value is ignored), so nothing is evicted and the dirty tail stays cached.
# Idioms: a fresh event loop with run_until_complete, loop.run_in_executor for the blocking cache reset, asyncio.wait_for with a timeout, contextlib.suppress of the timeout, abort only.
"""Abort-on-fault handler that invalidates the prefix cache before aborting."""

from __future__ import annotations

import asyncio
import contextlib

from vllm.v1.request import RequestStatus


class FaultHandler:
    reset_timeout_s = 5.0

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._recover(loop))
        finally:
            loop.run_until_complete(loop.shutdown_default_executor())
            loop.close()

    async def _recover(self, loop):
        sched = self.engine.scheduler
        # KV written by the failed step cannot be trusted: drop every cached hash
        # so that no request can hit it. A slow reset must not block the abort.
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(
                loop.run_in_executor(None, sched.kv_cache_manager.reset_prefix_cache),
                self.reset_timeout_s,
            )
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
