"""Issue 24 item 2: an edit of a big file re-outlines only the top-level chunks it touched
(outline.chunked_outline_ops with the file's last Chunked): the outline equals a full
outline of the new text after every one of many random edits, and the chunks the edit
did not touch are not parsed again."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from ftlint.core import source
from ftlint.core.config import load_config
from ftlint.index.outline import chunked_outline_ops, outline_ops
from ftlint.lint.workspace import Workspace

HANDLER = (
    "class Sentinel{i}:\n    def on_fault(self, exc):\n        for r in list(self.scheduler.running):\n"
    "            r.drop_stale_output = True\n            helper_{i}(r)\n\n\n"
)
SNIPPETS = [
    "def added(a, b):\n    return a\n",
    "    x = 1\n",
    "@decorated\n",
    "class Added(Base):\n    def method(self):\n        pass\n",
    "import os as o\n",
    "from .mod import name\n",
    '"""\n',
    "(\n",
    "async def coroutine():\n    def inner():\n        pass\n",
    "if x:\n    def conditional():\n        pass\nelse:\n    pass\n",
    "\r\n",
    "\r",
    "\n",
    "# a comment\n",
    "        y = 2  # deeper\n",
]


def _text(functions: int) -> str:
    return "".join(
        HANDLER.format(i=i) if i % 10 == 0 else f"def helper_{i}(r):\n    return [r, {i}][0]\n\n\n"
        for i in range(functions)
    )


def _edit(text: str, rng: random.Random) -> str:
    kind = rng.randrange(4)
    at = rng.randrange(len(text) + 1)
    if kind == 0:  # a snippet at a line's start
        at = text.rfind("\n", 0, at) + 1
        return text[:at] + rng.choice(SNIPPETS) + text[at:]
    if kind == 1:  # characters inserted anywhere
        return text[:at] + rng.choice(["1", " ", "]", "'", ":", "\n", "\r\n", "def ", "    "]) + text[at:]
    if kind == 2:  # a span removed
        return text[:at] + text[at + rng.randrange(1, 400) :]
    lines = text.splitlines(keepends=True)  # a line replaced by a changed copy
    n = rng.randrange(len(lines))
    lines[n] = lines[n].replace("return", "yield", 1).replace("helper", "assistant", 1)
    return "".join(lines)


@pytest.mark.parametrize("seed", range(4))
def test_random_edits_outline_as_a_full_outline_does(seed: int, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(source, "CHUNK_CHARS", 3_000)  # many chunks in a file a test outlines fast
    rng = random.Random(seed)
    text = _text(600)
    ops, chunked = chunked_outline_ops(text)
    assert chunked is not None and len(chunked.chunks) > 6  # the file is outlined in chunks
    assert ops == outline_ops(text)
    good, reused = text, 0
    for step in range(150):
        base = text if rng.random() < 0.2 else good  # mostly edits of a text that parses
        text = _edit(base, rng)
        ops, chunked_now = chunked_outline_ops(text, chunked)
        assert ops == outline_ops(text), f"seed {seed}, edit {step}"
        if chunked_now is not None:
            chunked, good, reused = chunked_now, text, reused + 1
    assert reused > 30  # most edits leave a text that parses in chunks: those reuse chunks


def test_an_edit_parses_only_the_chunks_it_touched(monkeypatch: pytest.MonkeyPatch):
    text = _text(10_000)
    _, chunked = chunked_outline_ops(text)
    assert chunked is not None and len(chunked.chunks) >= 6
    parsed: list[int] = []
    real_parse = ast.parse

    def counting(source, *args, **kwargs):
        parsed.append(len(source))
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting)
    new = text.replace("return [r, 5001][0]\n", "return [r, 5001][0]  # edited\n    extra = 2\n")
    ops, now = chunked_outline_ops(new, chunked)
    assert now is not None
    edited = next(a for a, b in zip(chunked.chunks, chunked.chunks[1:], strict=False) if b[0] > new.index("# edited"))
    size = next(b[0] for b in chunked.chunks if b[0] > edited[0]) - edited[0]
    assert sum(parsed) <= size + 100, (parsed, size)  # the edited chunk (and its edit), nothing else
    assert sum(parsed) < len(new) / 5
    monkeypatch.setattr(ast, "parse", real_parse)
    assert ops == outline_ops(new)
    # lines after the edit are shifted: a function after it is where a full outline puts it
    later = [op for op in ops if op[0] == "f" and op[1] == "helper_9001"]
    assert later and later[0][4] == new.splitlines().index("def helper_9001(r):") + 1


def test_the_server_workspace_lints_a_big_file_after_edits_as_a_fresh_one(tmp_path: Path):
    root = tmp_path
    (root / "pyproject.toml").write_text("[tool.ftlint]\n")
    path = root / "sentinel.py"
    text = _text(3_000)
    path.write_text(text)
    ws = Workspace(load_config(root), {"FT001"}, cwd=root)
    assert len(ws.lint(path).findings) == 300
    rng = random.Random(7)
    for _ in range(3):
        lines = text.splitlines(keepends=True)
        n = rng.randrange(len(lines))
        lines.insert(n, f"def inserted_{n}(r):\n    return r\n\n" if lines[n].startswith("def ") else "")
        text = "".join(lines).replace("r.drop_stale_output = True\n            helper_10(r)", "helper_10(r)")
        ws.set_text(path, text)
        fresh = Workspace(load_config(root), {"FT001"}, cwd=root)
        fresh.set_text(path, text)
        got = [(f.code, f.line, f.column) for f in ws.lint(path).findings]
        assert got == [(f.code, f.line, f.column) for f in fresh.lint(path).findings]
        assert len(got) == 299


def test_an_edit_screens_the_step_guards_of_the_edited_file_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The scope built again after an edit keeps the step-guard screens (steps.StepGuards,
    by file and text) of the files that did not change: each edit parsed every reached
    file that calls a step with `ast` again."""
    from ftlint.index import prefilter, step_scan

    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    (tmp_path / "loop.py").write_text(
        "class Core:\n    def run_busy_loop(self):\n        try:\n            self.step()\n"
        "        except Exception:\n            self.scheduler.finish_requests()\n"
    )
    handler = tmp_path / "sentinel.py"
    text = "from loop import Core\n\n\nclass Sentinel(Core):\n    def on_fault(self, exc):\n        self.step()\n"
    handler.write_text(text)
    screened: list[str] = []

    def counting(real):  # the ast screens: the prefilter's (bytes) and StepGuards' own (text)
        def screen(source, *args):
            screened.append(source.decode("utf-8", "replace") if isinstance(source, bytes) else source)
            return real(source, *args)

        return screen

    monkeypatch.setattr(step_scan, "guarded_functions", counting(step_scan.guarded_functions))
    monkeypatch.setattr(prefilter, "guarded_functions", counting(prefilter.guarded_functions))
    ws = Workspace(load_config(tmp_path), {"FT001", "FT007"}, cwd=tmp_path)
    ws.lint(handler)
    assert any("run_busy_loop" in source for source in screened)  # the helper file was screened
    for n in range(3):
        screened.clear()
        ws.set_text(handler, text + f"# edit {n}\n")
        ws.lint(handler)
        assert not any("run_busy_loop" in source for source in screened), n


@pytest.mark.parametrize(
    "deep",
    ["x = " + "(" * 250 + "1" + ")" * 250 + "\n", "x = " + "-" * 5000 + "1\n"],
    ids=["brackets", "operators"],
)
def test_an_edit_nesting_too_deep_is_found_in_the_chunk_it_touched(deep: str):
    """Only the re-outlined text is checked for nesting (source.nesting_failure): an edit
    that nests too deep there is found as a full outline finds it (False: parsed whole)."""
    text = _text(3_000)
    _, chunked = chunked_outline_ops(text)
    at = text.index("def helper_1501(")
    new = text[:at] + deep + text[at:]
    ops, now = chunked_outline_ops(new, chunked)
    assert ops == outline_ops(new)
    assert ops is False and now is None
