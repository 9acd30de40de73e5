"""Block-index arithmetic: a shift when the block size is a power of two, division otherwise."""


class BlockMath:
    __slots__ = ("size", "shift")

    def __init__(self, size: int) -> None:
        self.size = size
        is_pow2 = size > 0 and (size & (size - 1)) == 0
        self.shift = size.bit_length() - 1 if is_pow2 else -1

    def index_of(self, token: int) -> int:
        if self.shift >= 0:
            return token >> self.shift
        return token // self.size

    @staticmethod
    def is_power_of_two(n: int) -> bool:
        return n > 0 and (n & (n - 1)) == 0
