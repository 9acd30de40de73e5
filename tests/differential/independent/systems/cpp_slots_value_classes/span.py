"""Small value types, C++ struct style."""

Token = int
BlockId = int


class TailSpan:
    """[first_block, end_block) of one request in one KV-cache group."""

    __slots__ = ("req_id", "group", "first_block", "end_block")

    def __init__(self, req_id: str, group: int, first_block: int, end_block: int) -> None:
        self.req_id = req_id
        self.group = group
        self.first_block = first_block
        self.end_block = end_block

    def empty(self) -> bool:
        return self.first_block >= self.end_block

    @staticmethod
    def make(req_id: str, group: int, computed: Token, in_flight: Token, block_size: int, n_blocks: int) -> "TailSpan":
        settled: Token = computed - in_flight
        return TailSpan(req_id, group, settled // block_size, n_blocks)
