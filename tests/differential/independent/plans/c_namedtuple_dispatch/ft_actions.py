"""Plain-data recovery actions and the interpreter that applies them."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Iterable

from vllm.v1.request import RequestStatus

# kind: "evict" | "abort";  group: KV-cache group index (evict only);
# ids: block ids (evict) or request ids (abort).
Action = namedtuple("Action", ["kind", "group", "ids"])


def evict(group: int, block_ids: Iterable[int]) -> Action:
    return Action("evict", group, tuple(sorted(block_ids)))


def abort(request_ids: Iterable[str]) -> Action:
    return Action("abort", None, tuple(request_ids))


class Interpreter:
    """Applies actions to a scheduler by dispatching on ``Action.kind``."""

    def __init__(self, scheduler, on_aborted: Callable[[list], None] | None = None):
        self.scheduler = scheduler
        self.on_aborted = on_aborted
        self._table = {"evict": self._evict, "abort": self._abort}

    def run(self, actions: Iterable[Action]) -> None:
        for action in actions:
            try:
                handler = self._table[action.kind]
            except KeyError:
                raise ValueError(f"unknown recovery action {action.kind!r}") from None
            handler(action)

    def _evict(self, action: Action) -> None:
        if action.ids:
            self.scheduler.kv_cache_manager.evict_blocks(set(action.ids))

    def _abort(self, action: Action) -> None:
        finished = self.scheduler.finish_requests(list(action.ids), RequestStatus.FINISHED_ABORTED)
        if self.on_aborted is not None and finished:
            self.on_aborted(finished)
