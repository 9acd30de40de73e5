from enum import Enum, auto


class RecoveryMode(Enum):
    ABORT = auto()
    RESUME = auto()
