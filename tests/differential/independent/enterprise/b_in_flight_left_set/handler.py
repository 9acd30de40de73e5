# Intended: buggy: on resume the handler clears num_stale_output_tokens after the preemption but never resets num_in_flight_tokens, so the requeued request keeps the lost step in its in-flight count and its confirmed boundary is wrong when it runs again.
# Idioms: template method (abstract recovery skeleton with hook methods), a mixin supplying the tail eviction, a per-request post-preemption hook list (observer-like callbacks); resume-only.
"""Resume handler: requeue every running request after evicting its unconfirmed tail."""

from __future__ import annotations

import time

from recovery_base import RecoverySkeleton, TailEvictionMixin


def _clear_stale_output(request) -> None:
    request.num_stale_output_tokens = 0


class FaultHandler(TailEvictionMixin, RecoverySkeleton):
    post_preempt_hooks = (_clear_stale_output,)

    def release(self, requests) -> None:
        scheduler = self.engine.scheduler
        ts = time.monotonic()
        for request in reversed(requests):
            scheduler.running.remove(request)
            scheduler._preempt_request(request, ts)
            for hook in self.post_preempt_hooks:
                hook(request)
