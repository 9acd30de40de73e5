"""Findings a change leaves behind: on lines it did not change, inside a function it edits.

``--filter added`` keeps the findings on added or modified lines; a defect on an unchanged
line of the very handler the change edits would then go unsaid, and a "fix" that leaves the
defect in place would look clean. :func:`left_in_edited_functions` finds those findings (the
lint's own findings of the changed files that the filter dropped), and
``pr_checks.left_behind`` reports them as one pull-request-level finding (PR005) per edited
function, in the report's summary: the lines are not the change's, so they are not commented
inline, but they are not silent either.

A function is *edited* when an added or modified line lies in it (its lines today) or a
deleted line lay in it at the base revision (the function of the same qualified name). Its
lines are found with the project index's outline (Python's parser; nothing is linted again).
The file rules report only in fault-path code, so a finding of theirs in an edited function
is a fault-path function's.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ftlint.core.finding import Finding
from ftlint.review.diff import Diff, FileDiff, show_file
from ftlint.review.pr_checks import base_functions

__all__ = ["Left", "left_in_edited_functions"]


@dataclass
class Left:
    """Findings left on unchanged lines of one edited function."""

    path: str  # repo-relative
    function: str  # qualified name
    findings: list[Finding]


def left_in_edited_functions(
    dropped: Iterable[tuple[Finding, FileDiff]], diff: Diff, texts: Mapping[str, str | None]
) -> list[Left]:
    """``dropped``: the findings the filter left out, each with its file's diff. ``texts``:
    absolute path -> the text the lint read (the file is read again when absent)."""
    groups: dict[tuple[str, str], Left] = {}
    edited_of: dict[str, list[tuple[int, int, str]]] = {}
    for finding, fd in dropped:
        if not fd.path or finding.line <= 0:
            continue
        if fd.path not in edited_of:
            edited_of[fd.path] = _edited_spans(fd, diff, texts)
        enclosing = [span for span in edited_of[fd.path] if span[0] <= finding.line <= span[1]]
        if not enclosing:
            continue
        qualname = max(enclosing, key=lambda span: span[0])[2]  # the innermost edited one
        group = groups.setdefault((fd.path, qualname), Left(fd.path, qualname, []))
        group.findings.append(finding)
    return sorted(groups.values(), key=lambda g: (g.path, g.function))


def _edited_spans(fd: FileDiff, diff: Diff, texts: Mapping[str, str | None]) -> list[tuple[int, int, str]]:
    """(first line, last line, qualname) today of the functions of ``fd`` the change edits."""
    absolute = os.path.abspath(diff.root / fd.path)
    text = texts.get(absolute)
    if text is None:
        try:
            text = Path(absolute).read_bytes().decode("utf-8", "surrogateescape")
        except OSError:
            return []
    spans = base_functions(absolute, text)
    edited = {fn.qualname for start, end, fn in spans if any(start <= n <= end for n in fd.added)}
    if fd.deleted and fd.old_path:
        before = show_file(diff.base_commit, fd.old_path, diff.root)
        old_spans = base_functions(os.path.abspath(diff.root / fd.old_path), before) if before else []
        for start, end, fn in old_spans:
            if any(start <= n <= end for n in fd.deleted):
                edited.add(fn.qualname)
    return [(start, end, fn.qualname) for start, end, fn in spans if fn.qualname in edited]
