"""Line/column ranges of the few nodes a run reports, from one plain codegen pass.

LibCST's PositionProvider records a range for every node of the file, which costs
about six times generating the code; a run needs ranges only for the nodes it
reports (usually none). `ranges_of` gives the same ranges as PositionProvider for the
nodes asked (tests/perf/test_fast_paths.py compares them on the installed vLLM's files).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from itertools import accumulate

import libcst as cst
from libcst._nodes.internal import CodegenState  # the hook PositionProvider uses too
from libcst._position import CodePosition, CodeRange

_NEWLINE = re.compile(r"\r\n?|\n")


class _NoRecord:
    """The context a node nobody asked about gets: nothing to record."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


_NO_RECORD = _NoRecord()


class _AllFound(Exception):
    """Every node asked for has its range: the rest of the file need not be generated."""


class _RangeRecorder(CodegenState):
    """Codegen that notes token indices for the wanted nodes only (and for the child
    nodes their syntactic range is hoisted from)."""

    def __init__(self, module: cst.Module, wanted: set[int]) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.wanted = wanted
        self.asked = set(wanted)
        self.computed: dict[int, tuple[int, int]] = {}  # id(node) -> (start token, end token)
        self.stack: list[int] = []

    def before_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.wanted:
            self.stack.append(len(self.tokens))

    def after_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.wanted:
            start = self.stack.pop()
            # a syntactic range recorded while generating the node wins (as in LibCST)
            self.computed.setdefault(id(node), (start, len(self.tokens)))
            self.asked.discard(id(node))
            if not self.asked and not self.stack:
                raise _AllFound  # a node's range is final once its codegen is over

    def pop_trailing_newline(self) -> None:
        pass  # positions count the module's final newline, as PositionProvider does

    # LibCST's is a @contextmanager; its caller only needs a context manager (and this one
    # avoids a generator for every node nobody asked about)
    def record_syntactic_position(  # type: ignore[override]
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> AbstractContextManager[None]:
        if id(node) not in self.wanted:
            return _NO_RECORD
        return self._record(node, start_node, end_node)

    @contextmanager
    def _record(
        self, node: cst.CSTNode, start_node: cst.CSTNode | None, end_node: cst.CSTNode | None
    ) -> Iterator[None]:
        for hoisted in (start_node, end_node):
            if hoisted is not None:
                self.wanted.add(id(hoisted))
        start = len(self.tokens)
        try:
            yield
        finally:
            end = len(self.tokens)
            if start_node is not None:
                start = self.computed[id(start_node)][0]
            if end_node is not None:
                end = self.computed[id(end_node)][1]
            self.computed[id(node)] = (start, end)


def ranges_of(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[int, CodeRange]:
    """id(node) -> its CodeRange (PositionProvider's syntactic range) for each node of
    `module` given; nodes not in the module are left out."""
    asked = {id(node) for node in nodes}
    if not asked:
        return {}
    state = _RangeRecorder(module, set(asked))
    try:
        module._codegen(state)
    except _AllFound:
        pass
    text = "".join(state.tokens)
    offsets = list(accumulate(map(len, state.tokens), initial=0))
    line_starts = [0] + [match.end() for match in _NEWLINE.finditer(text)]

    def position(token_index: int) -> CodePosition:
        offset = offsets[token_index]
        line = bisect_right(line_starts, offset) - 1
        return CodePosition(line + 1, offset - line_starts[line])

    return {
        key: CodeRange(position(start), position(end)) for key, (start, end) in state.computed.items() if key in asked
    }
