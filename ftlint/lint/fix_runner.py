"""`check --fix` / `--diff`: lint, combine every file's fixes on the exact text that was
linted, write the files back safely, lint again until nothing more applies (like ruff,
at most a few rounds).

Each file is read through writeback.read_source (its codec, BOM and newlines kept) and
must still hold the text the findings were computed on; the combined text must parse
(textedits.combine); writeback.write_back replaces the file atomically or says why not.
"""

from __future__ import annotations

import gc
import os
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ftlint.core.config import Config
from ftlint.core.finding import Finding
from ftlint.core.source import ParseFailure
from ftlint.core.writeback import WriteProblem, read_source, write_back
from ftlint.lint.engine import LintResult, lint_paths
from ftlint.syntax import textedits

MAX_ROUNDS = 10  # fixes that touch are applied one per round (ruff: 100 rounds)


@dataclass
class FixOutcome:
    """What fixing did besides the findings left: problems per file and what was fixed."""

    problems: list[WriteProblem] = field(default_factory=list)
    fixed_findings: list[Finding] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return any(problem.error for problem in self.problems)


def applicable(finding: Finding, unsafe: bool) -> bool:
    return bool(finding.fix) and (unsafe or finding.fix_applicability != "unsafe")


def fix_paths(
    paths: Sequence[Path | str],
    config: Config,
    selected: Collection[str],  # read once per round
    *,
    write: bool,
    unsafe: bool = False,
    exhaustive: bool = False,
    force_exclude: bool = False,
    outcome: FixOutcome | None = None,
    want_diff: bool = True,
) -> tuple[LintResult, str]:
    """Returns the findings left after fixing, and the unified diff of all fixes.
    Per-file problems (a file changed since it was linted, refused or failed writes)
    go to `outcome`; the other files are still fixed."""
    outcome = outcome if outcome is not None else FixOutcome()
    originals: dict[str, str] = {}
    current: dict[str, str] = {}
    changes: dict[str, list[textedits.Change]] = {}  # where current differs from originals (the diff's hunks)
    given_up: set[str] = set()
    applied_total = 0
    result = lint_paths(paths, config, selected, exhaustive=exhaustive, force_exclude=force_exclude)
    gc.collect()  # the round's trees hold cycles: freed now, not kept beside the next round's (issue 23)
    for _ in range(MAX_ROUNDS):
        by_file: dict[str, list[Finding]] = defaultdict(list)
        for finding in result.findings:
            if applicable(finding, unsafe) and finding.path not in given_up:
                by_file[finding.path].append(finding)
        if not by_file:
            break
        changed = False
        for path, findings in sorted(by_file.items()):
            source = read_source(Path(path))
            if isinstance(source, ParseFailure):
                outcome.problems.append(WriteProblem(Path(path), f"not fixed: {source.message}", True))
                given_up.add(path)
                continue
            linted = result.texts.get(os.path.abspath(path))
            if linted is None or source.text != linted:
                outcome.problems.append(
                    WriteProblem(Path(path), "skipped: the file changed since it was linted (run ftlint again)", False)
                )
                given_up.add(path)
                continue
            combined = textedits.combine(source.text, [f.fix for f in findings])
            if not combined.applied or combined.text == source.text:
                continue
            if write:
                problem = write_back(source, combined.text)
                if problem is not None:
                    outcome.problems.append(problem)
                    given_up.add(path)
                    continue
            originals.setdefault(path, source.text)
            changes[path] = textedits.compose(changes.get(path, []), combined.changes)
            current[path] = combined.text
            applied_total += len(combined.applied)
            outcome.fixed_findings.extend(findings[i] for i in combined.applied)
            changed = True
        if not changed or not write:
            break
        result = lint_paths(paths, config, selected, exhaustive=exhaustive, force_exclude=force_exclude)
        gc.collect()
    # the diff only when asked; its hunks come from the changes (linear: issue 23)
    diff = (
        "".join(textedits.unified_diff(p, originals[p], current[p], changes[p]) for p in sorted(current))
        if want_diff
        else ""
    )
    result.fixed = {p: (originals[p], current[p]) for p in current}
    result.fixes_applied = applied_total
    if not write:
        # --diff: what remains is what the fixes would not remove
        fixed = {id(f) for f in outcome.fixed_findings}
        result.findings = [f for f in result.findings if id(f) not in fixed]
    return result, diff
