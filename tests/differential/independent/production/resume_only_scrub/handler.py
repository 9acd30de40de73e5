# Intended: buggy: the abort path frees the requests without evicting their unconfirmed tails (only the resume path scrubs), so after an abort the never-written blocks keep their prefix-cache hashes and the next request with the same prefix reuses garbage KV.
# Two strategy objects typed by a Protocol are looked up by the boolean switch; a DirtySpan dataclass describes each request's unconfirmed range.
# switch: resume
from __future__ import annotations

import logging
from typing import Any

from strategies import AbortAll, FaultStrategy, RequeueAll

logger = logging.getLogger(__name__)


class FaultHandler:
    resume = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self._strategies: dict[bool, FaultStrategy] = {False: AbortAll(), True: RequeueAll()}

    def on_fault(self, exc: BaseException) -> None:
        strategy = self._strategies[bool(self.resume)]
        logger.warning(f"engine step failed ({exc!r}); applying {type(strategy).__name__}")
        strategy.apply(self.engine)
