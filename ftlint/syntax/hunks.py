"""A fix's unified diff built from where the fix changed the text (issue 23).

difflib compares the whole file again (0.5 MB took 5 s, 2 MB 244 s, 9 MB did not finish);
the fixes already know what they changed. A `Change` is ``(old start, old end, new start,
new end)``: text offsets of a changed range before and after. `compose` chains the changes
of several steps (fix rounds, `pass` inserted after removals). `unified_diff` widens each
change to whole lines, merges those that touch, and writes the hunks as
``difflib.unified_diff`` does (3 lines of context, the same headers and counts, each line
with its own newline, no "\\ No newline at end of file" line): linear in the file and
its changes. Where a line could be aligned in two ways (a line removed beside an equal one)
the hunks may place it where difflib would not; the diff still turns one text into the
other.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from itertools import accumulate

from ftlint.core.source import split_lines

__all__ = ["Change", "apply_changes", "compose", "unified_diff"]

Change = tuple[int, int, int, int]  # (old start, old end, new start, new end): text offsets
_Opcode = tuple[str, int, int, int, int]  # as difflib.SequenceMatcher.get_opcodes gives them

CONTEXT = 3  # lines, as diff -u and difflib.unified_diff


def compose(first: Sequence[Change], second: Sequence[Change]) -> list[Change]:
    """The changes from text 0 to text 2, given `first` (0 -> 1) and `second` (1 -> 2)."""
    if not first:
        return list(second)
    if not second:
        return list(first)
    # each change as a range of text 1, with how much it makes text 1 (first) or text 2 longer
    ranges = sorted(
        [(ns, ne, (ne - ns) - (oe - os), 0) for os, oe, ns, ne in first]
        + [(os, oe, 0, (ne - ns) - (oe - os)) for os, oe, ns, ne in second]
    )
    out: list[Change] = []
    grew_1 = grew_2 = 0  # text 1 and text 2 longer than text 0 and 1 before the current group
    start, end, group_1, group_2 = ranges[0]
    for s, e, d1, d2 in ranges[1:]:
        if s <= end:  # overlaps or touches: one change
            end, group_1, group_2 = max(end, e), group_1 + d1, group_2 + d2
            continue
        out.append((start - grew_1, end - grew_1 - group_1, start + grew_2, end + grew_2 + group_2))
        grew_1, grew_2 = grew_1 + group_1, grew_2 + group_2
        start, end, group_1, group_2 = s, e, d1, d2
    out.append((start - grew_1, end - grew_1 - group_1, start + grew_2, end + grew_2 + group_2))
    return out


def apply_changes(before: str, after: str, changes: Sequence[Change]) -> str | None:
    """`before` with each change's range replaced by its range of `after`; None when the
    changes are not sorted, overlap or fall outside the texts."""
    pieces = []
    position = 0
    shift = 0
    for os, oe, ns, ne in changes:
        if not (position <= os <= oe <= len(before) and 0 <= ns <= ne <= len(after)) or ns != os + shift:
            return None
        pieces.append(before[position:os])
        pieces.append(after[ns:ne])
        position = oe
        shift += (ne - ns) - (oe - os)
    pieces.append(before[position:])
    return "".join(pieces)


def whole_change(before: str, after: str) -> list[Change]:
    """One change from the first differing character to the last (when nothing better is known)."""
    if before == after:
        return []
    limit = min(len(before), len(after))
    head = _longest(lambda n: before[:n] == after[:n], limit)
    tail = _longest(lambda n: before[len(before) - n :] == after[len(after) - n :], limit - head)
    return [(head, len(before) - tail, head, len(after) - tail)]


def _longest(holds: Callable[[int], bool], limit: int) -> int:
    """The largest n <= limit for which holds(n), holds being true up to some n and false after."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if holds(middle):
            low = middle
        else:
            high = middle - 1
    return low


def unified_diff(before: str, after: str, changes: Sequence[Change] | None, fromfile: str, tofile: str) -> str:
    """``difflib.unified_diff`` of the lines of `before` and `after` (headers `fromfile`,
    `tofile`), from `changes`; checked against the texts first (a change list that does
    not turn `before` into `after` is replaced by one covering every difference)."""
    if changes is None or apply_changes(before, after, changes) != after:
        changes = whole_change(before, after)
    old = split_lines(before, keepends=True)
    new = split_lines(after, keepends=True)
    opcodes = _opcodes(old, new, _line_regions(before, after, old, new, changes))
    if not opcodes:
        return ""
    out = [f"--- {fromfile}\n", f"+++ {tofile}\n"]
    for group in _grouped(opcodes):
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(" " + line for line in old[i1:i2])
                continue
            out.extend("-" + line for line in old[i1:i2])
            out.extend("+" + line for line in new[j1:j2])
    return "".join(out)


def _bounds(lines: Sequence[str]) -> list[int]:
    """The offsets where lines start, and the text's length."""
    return [0, *accumulate(len(line) for line in lines)]


def _is_bound(bounds: Sequence[int], offset: int) -> bool:
    at = bisect_left(bounds, offset)
    return at < len(bounds) and bounds[at] == offset


def _line_regions(
    before: str, after: str, old: Sequence[str], new: Sequence[str], changes: Sequence[Change]
) -> list[tuple[int, int, int, int]]:
    """The changes widened to whole lines of both texts, those that touch merged:
    (first old line, old line after, first new line, new line after), 0-based."""
    old_bounds, new_bounds = _bounds(old), _bounds(new)
    regions: list[list[int]] = []  # [old start, old end, new start, new end]: offsets on line bounds
    k = 0
    while k < len(changes):
        os, oe, ns, ne = changes[k]
        limit = regions[-1][1] if regions else 0
        index = bisect_right(old_bounds, os) - 1
        while old_bounds[index] > limit and not _is_bound(new_bounds, ns - (os - old_bounds[index])):
            index -= 1  # a line start of one text only (a CR then an inserted LF): one line earlier
        if regions and old_bounds[index] <= limit:
            region = regions.pop()
        else:
            region = [old_bounds[index], 0, ns - (os - old_bounds[index]), 0]
        index = bisect_left(old_bounds, oe)
        while True:
            end = old_bounds[index]
            bound = _is_bound(new_bounds, ne + (end - oe))
            if k + 1 < len(changes) and (end > changes[k + 1][0] or (end == changes[k + 1][0] and not bound)):
                k += 1  # the next change lies on these lines: one region
                _, oe, _, ne = changes[k]
                index = max(index, bisect_left(old_bounds, oe))
                continue
            if bound:
                break
            index += 1
        region[1], region[3] = end, ne + (end - oe)
        regions.append(region)
        k += 1
    return [
        (
            bisect_left(old_bounds, a1),
            bisect_left(old_bounds, a2),
            bisect_left(new_bounds, b1),
            bisect_left(new_bounds, b2),
        )
        for a1, a2, b1, b2 in regions
    ]


def _opcodes(old: Sequence[str], new: Sequence[str], regions: Sequence[tuple[int, int, int, int]]) -> list[_Opcode]:
    """difflib's opcodes (equal runs included) for the changed line regions; [] if none changes."""
    opcodes: list[_Opcode] = []
    i = j = 0
    for i1, i2, j1, j2 in regions:
        while i1 < i2 and j1 < j2 and old[i1] == new[j1]:  # lines a change left as they were
            i1, j1 = i1 + 1, j1 + 1
        while i1 < i2 and j1 < j2 and old[i2 - 1] == new[j2 - 1]:
            i2, j2 = i2 - 1, j2 - 1
        if i1 == i2 and j1 == j2:
            continue
        if i1 > i:
            opcodes.append(("equal", i, i1, j, j1))
        opcodes.extend(_region_opcodes(old, new, i1, i2, j1, j2))
        i, j = i2, j2
    if not opcodes:
        return []
    if i < len(old):
        opcodes.append(("equal", i, len(old), j, len(new)))
    return opcodes


def _region_opcodes(old: Sequence[str], new: Sequence[str], i1: int, i2: int, j1: int, j2: int) -> list[_Opcode]:
    if i1 == i2:
        return [("insert", i1, i2, j1, j2)]
    if j1 == j2:
        return [("delete", i1, i2, j1, j2)]
    if set(old[i1:i2]).isdisjoint(new[j1:j2]):
        return [("replace", i1, i2, j1, j2)]
    # a line kept inside what changed (rare: fix edits are minimal): difflib on these lines only
    import difflib

    matcher = difflib.SequenceMatcher(None, old[i1:i2], new[j1:j2])
    return [(tag, a1 + i1, a2 + i1, b1 + j1, b2 + j1) for tag, a1, a2, b1, b2 in matcher.get_opcodes()]


def _grouped(opcodes: list[_Opcode]) -> Iterator[list[_Opcode]]:
    """The hunks: difflib's SequenceMatcher.get_grouped_opcodes(CONTEXT) on these opcodes."""
    codes = list(opcodes)
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = (tag, max(i1, i2 - CONTEXT), i2, max(j1, j2 - CONTEXT), j2)
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = (tag, i1, min(i2, i1 + CONTEXT), j1, min(j2, j1 + CONTEXT))
    group: list[_Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * CONTEXT:  # a long unchanged run ends the hunk
            group.append((tag, i1, min(i2, i1 + CONTEXT), j1, min(j2, j1 + CONTEXT)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - CONTEXT), max(j1, j2 - CONTEXT)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _range(start: int, stop: int) -> str:
    """A hunk header's range, as difflib writes it (``start,length``; one line: ``start``)."""
    beginning = start + 1
    length = stop - start
    if length == 1:
        return f"{beginning}"
    if not length:
        beginning -= 1
    return f"{beginning},{length}"
