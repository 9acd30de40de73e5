"""The FT001 "safe" fix removes the discard write and nothing else (issue 23): the other
targets of a chained assignment, a popped or called target base, a value that is a call,
the comment lines above, and the statement before a `;` stay as they were. Property test
on a seeded generator: random statements (chained assignments, calls, pops, comments,
`;` lines) around one discard write; the fixed module equals the original with the
discard statement replaced by what it must leave."""

from __future__ import annotations

import random
from pathlib import Path

from ftlint.core.config import load_config
from ftlint.lint.engine import lint_paths
from ftlint.syntax import textedits

# (discard statement, what the fix must leave in its place; None: the line goes)
DISCARDS = [
    ("r.async_tokens_to_discard = r.retries = 3", "r.retries = 3"),
    ("r.retries = r.async_tokens_to_discard = 3", "r.retries = 3"),
    ("running.pop().drop_stale_output = True", "running.pop()"),
    ("r.async_tokens_to_discard = audit_log(r)", "audit_log(r)"),
    ("r.drop_stale_output = True", None),
    ("r.async_tokens_to_discard = r.num_output_placeholders", None),
]
AROUND = [
    "# a comment of the user",
    "s._preempt_request(r, 0.0)",
    "running.pop()",
    "a = b = c = 1",
    "r.retries = r.budget = 0",
    "audit_log(r)",
    "s.waiting.append(r); audit_log(r)",
    "x = running.pop()  # trailing comment",
]


def _module(rng: random.Random) -> tuple[str, str]:
    before = [rng.choice(AROUND) for _ in range(rng.randint(0, 4))]
    after = [rng.choice(AROUND) for _ in range(rng.randint(0, 3))]
    discard, left = rng.choice(DISCARDS)
    prefix = rng.choice(["", "", "audit_log(r); "]) if left is None else ""
    head = "class Sentinel:\n    def on_fault(self, exc):\n        s = self.scheduler\n        running = s.running\n"
    head += "        for r in list(running):\n"
    pad = "            "

    def block(lines: list[str]) -> str:
        return "".join(pad + line + "\n" for line in lines)

    original = head + block(before) + pad + prefix + discard + "\n" + block(after)
    statements_left = [line for line in before + after if not line.startswith("#")]
    if left is not None:
        middle = pad + left + "\n"
    elif prefix:
        middle = pad + prefix.rstrip("; ") + "\n"
    elif not statements_left or (before and before[-1].startswith("#") and not after):
        # the block's last statement (or its last one under a comment): `pass` keeps it (and the comment)
        middle = pad + "pass\n"
    else:
        middle = ""
    expected = head + block(before) + middle + block(after)
    return original, expected


def test_ft001_fix_leaves_every_other_statement_and_comment(tmp_path: Path):
    rng = random.Random(2023)
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\nselect = ['FT001']\n")
    config = load_config(tmp_path)
    checked = 0
    for _ in range(120):
        original, expected = _module(rng)
        path = tmp_path / "sentinel.py"
        path.write_text(original)
        result = lint_paths([path], config, {"FT001"}, cwd=tmp_path)
        fixes = [f.fix for f in result.findings if f.code == "FT001" and f.fix and f.fix_applicability == "safe"]
        fixed, _ = textedits.apply_edits(original, fixes)
        if fixed == original:
            continue
        checked += 1
        assert fixed == expected, original
    assert checked > 60
