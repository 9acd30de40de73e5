"""Every ```python block in README.md and docs/*.md runs (issue 25 item 4).

A block that is a fragment on purpose (it names an engine, a scheduler or a fixture the page
set up in prose, or needs vLLM, Ray or a GPU) is fenced ```` ```python no-run ````: GitHub
still highlights it as Python, and this test leaves it out. The rest execute as written, so
a documented import such as `from ftlint import matchers as m` cannot rot.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# A fence at the start of a line (possibly indented, as in a list), info string "python".
FENCE = re.compile(r"^(?P<indent>[ \t]*)```python(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S)


def code_blocks(text: str) -> list[tuple[int, str, str]]:
    """(line, info string after `python`, dedented body) of each ```python block."""
    blocks = []
    for match in FENCE.finditer(text):
        indent = match["indent"]
        body = "".join(
            line[len(indent) :] if line.startswith(indent) else line for line in match["body"].splitlines(True)
        )
        blocks.append((text.count("\n", 0, match.start()) + 1, match["info"].strip(), body))
    return blocks


#: FT000's documented example is the unparsable input FT000 reports (docs/rules.md is generated
#: from the registry, each example fenced as Python): it must fail to compile, not run.
UNPARSABLE_EXAMPLE = "def on_fault(self, exc)\n    pass  # missing colon\n"


def runnable_blocks() -> list[object]:
    cases = []
    for page in PAGES:
        for line, info, body in code_blocks(page.read_text(encoding="utf-8")):
            if "no-run" not in info.split() and body != UNPARSABLE_EXAMPLE:
                cases.append(pytest.param(body, id=f"{page.relative_to(ROOT)}:{line}"))
    return cases


@pytest.mark.parametrize("body", runnable_blocks())
def test_documented_python_block_runs(body: str, tmp_path: Path) -> None:
    """Each block in a fresh interpreter (a block may register a runtime check: that must not
    leak into the other tests' registry), from an empty directory, with the project importable."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [sys.executable, "-c", body], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, body + "\n" + done.stderr


def test_ft000_documented_example_is_unparsable() -> None:
    rules_md = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert UNPARSABLE_EXAMPLE in [body for _, _, body in code_blocks(rules_md)]
    with pytest.raises(SyntaxError):
        compile(UNPARSABLE_EXAMPLE, "<FT000 example>", "exec")


def test_the_documented_public_imports_resolve() -> None:
    """README's `from ftlint import matchers as m` and docs/runtime.md's vocabulary import."""
    import libcst as cst

    from ftlint import matchers as m
    from ftlint import vocabulary as v

    assert m.matches(cst.parse_expression("len(x)"), m.Call(func=m.Name("len")))
    assert v.SCHEDULER_RUNNING == "running"


def test_the_block_finder_sees_indented_and_no_run_blocks() -> None:
    text = "x\n```python\na = 1\n```\n- item\n  ```python no-run\n  b = c\n  ```\n"
    assert code_blocks(text) == [(2, "", "a = 1\n"), (6, "no-run", "b = c\n")]
