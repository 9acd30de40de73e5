"""`check --fix` / `--diff`: lint, apply every non-overlapping fix, lint again until
nothing more applies (like ruff, at most a few rounds)."""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path
from typing import Sequence

from ftlint import fixes
from ftlint.config import Config
from ftlint.engine import LintResult, lint_paths

MAX_ROUNDS = 4


def fix_paths(
    paths: Sequence[Path],
    config: Config,
    selected,
    *,
    write: bool,
    exhaustive: bool = False,
    force_exclude: bool = False,
) -> tuple[LintResult, str]:
    """Returns the findings left after fixing, and the unified diff of all fixes."""
    originals: dict[str, str] = {}
    current: dict[str, str] = {}
    applied_total = 0
    result = lint_paths(paths, config, selected, exhaustive=exhaustive, force_exclude=force_exclude)
    for _ in range(MAX_ROUNDS):
        by_file = defaultdict(list)
        for finding in result.findings:
            if finding.fix:
                by_file[finding.path].append(finding.fix)
        if not by_file:
            break
        changed = False
        for path, groups in by_file.items():
            text = current.get(path)
            if text is None:
                text = Path(path).read_text(encoding="utf-8")
                originals[path] = text
            new_text, applied = fixes.apply_edits(text, groups)
            if applied and new_text != text:
                current[path] = new_text
                applied_total += applied
                changed = True
                if write:
                    _write(Path(path), new_text)
        if not changed or not write:
            break
        result = lint_paths(paths, config, selected, exhaustive=exhaustive, force_exclude=force_exclude)
    diff = "".join(fixes.unified_diff(p, originals[p], current[p]) for p in sorted(current))
    result.fixed = {p: (originals[p], current[p]) for p in current}
    result.fixes_applied = applied_total
    if not write:
        # --diff: what remains is what the fixes would not remove
        fixed_paths = set(current)
        result.findings = [f for f in result.findings if not (f.fix and f.path in fixed_paths)]
    return result, diff


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.ftlint-fix.{os.getpid()}")
    with open(tmp, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    os.replace(tmp, path)
