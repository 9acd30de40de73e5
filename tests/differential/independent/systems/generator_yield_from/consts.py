"""Module-level constants and aliases shared by the walker and the handler."""
from typing import Iterator, Tuple

BlockRef = Tuple[int, int, int]  # (group, position, block id)
BlockStream = Iterator[BlockRef]

ABORT_STATUS_NAME = "FINISHED_ABORTED"
NO_BLOCK = -1
