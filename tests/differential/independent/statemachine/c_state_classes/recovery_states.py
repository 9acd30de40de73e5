"""States of the abort-on-fault recovery, one class each (State pattern).

Every state has ``enter``/``exit`` hooks and a ``run`` that returns the next
state instance, or ``None`` when the machine is finished.
"""

from __future__ import annotations

import logging

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class State:
    name = "state"

    def enter(self, machine) -> None:
        logger.debug("-> %s", self.name)

    def run(self, machine) -> "State | None":
        raise NotImplementedError

    def exit(self, machine) -> None:
        logger.debug("<- %s", self.name)


class Snapshot(State):
    """Remember which requests were on the device when the step failed."""

    name = "snapshot"

    def run(self, machine):
        machine.victims = list(machine.scheduler.running)
        if not machine.victims:
            return None
        return MarkTails()


class MarkTails(State):
    """Find, per KV-cache group, the blocks written by the lost step."""

    name = "mark_tails"

    def enter(self, machine):
        super().enter(machine)
        machine.tail_ids = set()

    def run(self, machine):
        coordinator = machine.scheduler.kv_cache_manager.coordinator
        for req in machine.victims:
            boundary = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in coordinator.single_type_managers:
                held = mgr.req_to_blocks.get(req.request_id) or ()
                start = max(boundary, 0) // mgr.block_size
                for blk in held[start:]:
                    if not blk.is_null:
                        machine.tail_ids.add(blk.block_id)
        return DropFromPrefixCache()


class DropFromPrefixCache(State):
    name = "drop_from_prefix_cache"

    def run(self, machine):
        if machine.tail_ids:
            machine.scheduler.kv_cache_manager.evict_blocks(machine.tail_ids)
        return Abort()

    def exit(self, machine):
        super().exit(machine)
        logger.info("evicted %d unconfirmed block(s)", len(machine.tail_ids))


class Abort(State):
    name = "abort"

    def run(self, machine):
        ids = [r.request_id for r in machine.victims]
        machine.aborted = machine.scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED)
        return NotifyClients()


class NotifyClients(State):
    name = "notify_clients"

    def run(self, machine):
        if machine.aborted:
            machine.engine._send_abort_outputs(machine.aborted)
        return None
