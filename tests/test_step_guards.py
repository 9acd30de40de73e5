"""Issue 21, item 0: the `except` branch that catches a failed engine step is a fault path
(`fault-steps`), by default, though the function around it is no handler: the fork's
busy-loop wrapper preempts every running request there without evicting the dirty tails."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest

from ftlint.analysis.steps import StepGuards, _BranchFinder
from ftlint.core.config import DEFAULT_FAULT_STEPS, handler_name_matcher
from ftlint.index.project import index_module
from ftlint.index.step_scan import guarded_functions
from tests.helpers import codes_at, findings_json, write_project

# A decorator around an engine's busy loop (written for this test, in the fork's shape).
WRAPPER = """
import time

def fault_tolerant(busy_loop_func):
    def run_guarded(self):
        self.scheduler.reset_prefix_cache()
        while True:
            try:
                busy_loop_func(self)
            except SystemExit:
                raise
            except Exception:
                now = time.monotonic()
                while self.scheduler.running:
                    request = self.scheduler.running.pop()
                    self.scheduler.preempt_request(request, now)
                continue
    return run_guarded
"""

STEP = """
from helpers import abort_all, evict_then_abort

class EngineLoop:
    def loop(self):
        try:
            outputs = self.step()
        except (KeyboardInterrupt, RuntimeError):
            abort_all(self.scheduler)
        try:
            self.model_executor.execute_model(None)
        except:
            evict_then_abort(self.scheduler)
        if 0 <= self.i < len(self.blocks):
            self.scheduler.reset_prefix_cache()
        try:
            self.step()
        except Exception:
            self.scheduler.reset_prefix_cache()
"""

HELPERS = """
def abort_all(scheduler):
    for req in list(scheduler.running):
        scheduler.finish_requests(req.request_id, "aborted")

def evict_then_abort(scheduler):
    for req in list(scheduler.running):
        scheduler.kv_cache_manager.evict_blocks(set())
        scheduler.finish_requests(req.request_id, "aborted")
"""


def test_the_busy_loop_wrappers_except_branch_is_a_fault_path_by_default(tmp_path):
    root = write_project(tmp_path, {"loop.py": WRAPPER})
    code, findings = findings_json("loop.py", cwd=root)
    assert code == 1
    # the preempt in the branch; not FT005 for the reset before the loop (no fault path there)
    assert codes_at(findings) == [("loop.py", 15, "FT007"), ("loop.py", 15, "FT008")]


def test_fault_steps_empty_turns_it_off(tmp_path):
    root = write_project(tmp_path, {"loop.py": WRAPPER}, config="fault-steps = []\n")
    assert findings_json("loop.py", cwd=root) == (0, [])


def test_branches_reach_helpers_and_only_the_branches_are_fault_paths(tmp_path):
    root = write_project(tmp_path, {"engine.py": STEP, "helpers.py": HELPERS})
    code, findings = findings_json(cwd=root)
    assert code == 1
    assert codes_at(findings) == [
        ("engine.py", 8, "FT007"),  # the helper frees without evicting (reported at its call)
        ("engine.py", 18, "FT005"),  # a reset inside a branch
        # not the range check or the reset at lines 13-14: not in a branch
    ]


def test_configured_step_names(tmp_path):
    source = """
        def serve(engine):
            try:
                engine.run_model_once()
            except Exception:
                engine.scheduler.finish_requests(None, "aborted")
    """
    root = write_project(tmp_path, {"serve.py": source})
    assert findings_json("serve.py", cwd=root) == (0, [])
    root = write_project(tmp_path, {"serve.py": source}, config='fault-steps = ["run_model*"]\n')
    assert codes_at(findings_json("serve.py", cwd=root)[1]) == [("serve.py", 5, "FT007")]


def test_exhaustive_and_cached_runs_agree(tmp_path):
    root = write_project(tmp_path, {"engine.py": STEP, "helpers.py": HELPERS, "loop.py": WRAPPER})
    (root / ".git").mkdir()
    normal = findings_json(cwd=root)
    assert normal == findings_json("--exhaustive", cwd=root)
    assert normal == findings_json(cwd=root)  # warm cache
    assert normal == findings_json("--no-cache", cwd=root)


# --- the ast screen names exactly the branches the LibCST walk finds ---------------------

NESTINGS = """
import asyncio

def top(engine):
    try:
        engine.step()
    except SystemExit:
        pass
    except Exception:
        pass
    for x in engine.xs:
        if x:
            try:
                pass
            finally:
                pass
        else:
            with engine.lock:
                try:
                    engine.execute_model(x)
                except (asyncio.CancelledError, KeyboardInterrupt):
                    pass
                try:
                    engine.execute_model(x)
                except* ValueError:
                    pass
    def inner():
        try:
            engine.step()
        except Exception:
            pass
        class Local:
            def method(self):
                try:
                    lambda: self.step()
                except Exception:
                    pass
                try:
                    self.run_busy_loop()
                except BaseException:
                    pass
        return Local
    match engine.mode:
        case 1:
            try:
                engine.step_with_batch_queue()
            except:
                pass
    return inner

class Outer:
    def method(self):
        while True:
            try:
                self.step()
            except OSError:
                pass
            else:
                try:
                    self.step()
                except KeyboardInterrupt:
                    pass

def top(engine):  # the same name again: walked with LibCST
    try:
        engine.step()
    except Exception:
        pass
"""


def test_ast_screen_matches_the_libcst_walk():
    text = textwrap.dedent(NESTINGS)
    info = index_module(Path("/tmp/nestings.py"), text, cst.parse_module(text))
    guards = StepGuards(DEFAULT_FAULT_STEPS)
    matches = handler_name_matcher(DEFAULT_FAULT_STEPS)
    seen = 0
    for fn in info.functions:
        finder = _BranchFinder(matches)
        fn.node.body.visit(finder)
        assert guards.of(fn) == finder.branches, fn.qualname
        seen += len(finder.branches)
    assert seen == 7
    names = guarded_functions(text, matches)
    assert names is not None
    assert sorted(names) == ["Outer.method", "top", "top.<locals>.inner", "top.inner.Local.method"]
    assert {fn.qualname for fn in info.functions} >= set(names)


@pytest.mark.parametrize(
    "source, expected",
    [
        (b"try:\n    x.step()\nexcept E:\n    pass\n", True),
        (b"try:\n    x.step ()\nexcept E:\n    pass\n", True),
        (b"x.step()\n", False),  # no except
        (b"try:\n    stepper()\nexcept E:\n    pass\n", False),
        (b"try:\n    x.steps()\nexcept E:\n    pass\n", False),
        (b"try:\n    my_busy_loop_2(self)\nexcept E:\n    pass\n", True),
    ],
)
def test_the_bytes_test(source, expected):
    from ftlint.index.prefilter import StepCalls

    assert StepCalls(DEFAULT_FAULT_STEPS).calls_step(source) is expected


@pytest.mark.parametrize(
    "source",
    [
        b"# x.step() in a comment\ntry:\n    pass\nexcept E:\n    pass\n",
        b"try:\n    pass\n    # then x.step()\nexcept E:\n    pass\n",
        b"x.step()\ntry:\n    pass\nexcept E:\n    pass\n",  # the call before any `try:`
        b"try:\n    pass\nexcept E:\n    pass\nx.step()\n",  # the call after the last `except`
        b"retry: int = 1\nx.step()\nexcept_count = 0\n",  # `retry:` is no `try` header
    ],
)
def test_the_bytes_test_wants_a_try_before_and_an_except_after_the_call(source):
    from ftlint.index.prefilter import StepCalls

    assert StepCalls(DEFAULT_FAULT_STEPS).calls_step(source) is False


def test_names_holding_another_name_are_read_where_that_one_is_found():
    """`step` is in `step_with_batch_queue`: one bytes.find pass finds calls of both. Over
    generated bytes, the calls found are those of one pass per name (the reference)."""
    import random

    from ftlint.index.prefilter import _CALL_AFTER_NAME, _IDENT_BYTE, StepCalls

    names = ["step", "step_with_batch_queue", "step_step", "xstepx", "execute_model", "a"]
    steps = StepCalls(names)
    assert sorted(steps._anchored_names) == [b"a", b"execute_model", b"step"]  # one pass each

    def reference(data: bytes, start: int, end: int) -> set[int]:
        found = set()
        for name in (n.encode() for n in names):
            at = data.find(name, start, end)
            while at != -1:
                before = data[at - 1 : at] if at else b""
                if not (before and _IDENT_BYTE.match(before)) and _CALL_AFTER_NAME.match(data, at + len(name)):
                    found.add(at)
                at = data.find(name, at + 1, end)
        return found

    rng = random.Random(11)
    pieces = [*names, *(f"{n}(" for n in names), "x", "_", ".", " ", "(", ")", "\\\n", "\n", "é", "tep", "step_"]
    checked = 0
    for _ in range(3000):
        data = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 14))).encode()
        start = rng.choice([0, rng.randint(0, len(data))])
        end = rng.choice([len(data), rng.randint(start, len(data))])
        got = set(steps._call_starts(data, start, end))
        assert got == reference(data, start, end), (data, start, end)
        checked += bool(got)
    assert checked > 500


def test_a_guarded_module_is_read_by_ast_once(tmp_path, monkeypatch):
    """The prefilter's `ast` reading of a guarded file is the analysis's: StepGuards does not
    parse the module again (it did: two parses of each guarded module on a cold run)."""
    import ast
    import types

    from ftlint.core.config import load_config
    from ftlint.index import step_scan
    from ftlint.lint.engine import lint_paths
    from ftlint.lint.registry import known_codes

    root = write_project(tmp_path, {"engine.py": STEP, "helpers.py": HELPERS, "loop.py": WRAPPER})
    parsed: list[str] = []

    def counting_parse(source, *args, **kwargs):
        text = source.decode() if isinstance(source, bytes) else source
        if not text.startswith(step_scan.WINDOW_HEAD):  # a `try` statement's own lines, not the module
            parsed.append("engine.py" if "class Engine" in text else "loop.py" if "busy_loop" in text else "other")
        return ast.parse(source, *args, **kwargs)

    monkeypatch.setattr(step_scan, "ast", types.SimpleNamespace(**{**vars(ast), "parse": counting_parse}))
    result = lint_paths([], load_config(root), set(known_codes()), cwd=root)
    assert {f.code for f in result.findings} >= {"FT007"}
    assert sorted(parsed) == ["engine.py", "loop.py"]


def test_the_bytes_test_with_a_glob_of_several_wildcards():
    from ftlint.index.prefilter import StepCalls

    steps = StepCalls(["*busy*loop*"])
    assert steps.calls_step(b"try:\n    my_busy_x_loop(self)\nexcept E:\n    pass\n") is True
    assert steps.calls_step(b"try:\n    pass\nexcept E:\n    pass\nmy_busy_x_loop(self)\n") is False
    assert steps.calls_step(b"try:\n    pass\n    # my_busy_x_loop(self)\nexcept E:\n    pass\n") is False
    # the glob's literal is looked for between the first `try` and the last `except` only
    assert steps.calls_step(b"my_busy_x_loop(self)\ntry:\n    pass\nexcept E:\n    pass\n") is False
    assert steps.calls_step(b"x = 1\ntry:\n    my_busy_x_loop(self)\nexcept E:\n    pass\nbusy_loop()\n") is True


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (b"self.run_busy_loop()", True),
        (b"busy_loop_busy_loop (x)", True),  # the glob's literal twice in one name
        (b"x = busy_loop; run(x)", False),  # named, not called
        (b"busy_loops_done = 1; done()", False),
        (b"busy_loop\\\n  (self)", True),  # a continuation before the parenthesis
        (b"my_busy\xc3\xa9_loop()", False),  # a UTF-8 name that does not spell the literal
    ],
)
def test_the_bytes_test_reads_only_names_spelling_a_globs_literal(call, expected):
    """A glob with a wildcard on both sides (`*busy_loop*`) is tested on the called names
    holding its literal (memchr speed), found whole around it."""
    from ftlint.index.prefilter import StepCalls

    source = b"try:\n    " + call + b"\nexcept E:\n    pass\n"
    assert StepCalls(["*busy_loop*"]).calls_step(source) is expected


def test_the_bytes_test_reads_every_called_name_in_another_encoding():
    """In a file whose coding cookie names another encoding the literal's UTF-8 bytes need
    not be there: every called name is tested (one that is not UTF-8 passes)."""
    from ftlint.index.prefilter import StepCalls

    source = b"# -*- coding: latin-1 -*-\ntry:\n    run_busy\xe9_loop(self)\nexcept E:\n    pass\n"
    assert StepCalls(["*busy\u00e9_loop*"]).calls_step(source) is True


@pytest.mark.parametrize("size", ["small", "chunked"])
def test_a_guarded_modules_outline_comes_from_the_step_scans_tree(monkeypatch, size):
    """The prefilter parses a module to confirm its step guards; the module's outline is made
    from that tree (no second parse), the same outline a fresh parse gives: for a small
    file, and for a big one the outliner would read in top-level chunks."""
    import ast

    from ftlint.index import outline
    from ftlint.index.prefilter import StepCalls

    filler = "".join(f"def helper_{i}(x):\n    return [x] * {i}\n\n\n" for i in range(2500 if size == "chunked" else 3))
    text = (
        textwrap.dedent(
            """
        class Loop:
            def run(self):
                try:
                    self.step()
                except Exception:
                    self.abort_all()
        """
        )
        + filler
    )
    from ftlint.core.source import CHUNK_CHARS

    assert (len(text) > CHUNK_CHARS) == (size == "chunked")
    fresh = outline.outline_ops(text)
    assert StepCalls(DEFAULT_FAULT_STEPS).search(text.encode())  # the prefilter's confirmation
    parses = []
    real_parse = ast.parse
    monkeypatch.setattr(ast, "parse", lambda *a, **k: parses.append(1) or real_parse(*a, **k))
    assert outline.outline_ops(text, check_nesting=False) == fresh
    assert parses == []
    assert outline.outline_ops(text, check_nesting=False) == fresh  # used once: read again after
    assert parses


@pytest.mark.parametrize("deep", [False, True])
def test_a_guarded_modules_nesting_check_reads_the_step_scans_tree(monkeypatch, deep):
    """A guarded module whose nesting needs Python's tree to check (a long line of operators,
    brackets nested past the quick check): the check reads the step scan's tree, with the
    verdict a fresh check gives (too deep: no outline, the file is parsed whole and reports
    it), and the module is parsed once."""
    import ast

    from ftlint.core import source
    from ftlint.index import outline
    from ftlint.index.prefilter import StepCalls

    depth = source.MAX_NESTING_DEPTH + 5 if deep else source.BRACKET_CHECK_DEPTH + 5
    text = (
        "class Loop:\n    def run(self):\n        try:\n            self.step()\n"
        "        except Exception:\n            self.abort_all()\n\n\n"
        f"x = {'[' * depth}1{']' * depth}\n"
    )
    assert (source.nesting_failure(text) is not None) is deep
    fresh = outline.outline_ops(text)
    assert (fresh is False) is deep
    assert StepCalls(DEFAULT_FAULT_STEPS).search(text.encode())  # the prefilter's confirmation
    parses = []
    real_parse = ast.parse
    monkeypatch.setattr(ast, "parse", lambda *a, **k: parses.append(1) or real_parse(*a, **k))
    assert outline.outline_ops(text) == fresh
    assert parses == []


def _window_verdicts(source: bytes) -> tuple[bool, object]:
    """(outside_guards before the end, what the whole file's `ast` reading finds)."""
    from ftlint.index.step_scan import outside_guards

    is_step = handler_name_matcher(DEFAULT_FAULT_STEPS)
    return outside_guards(source, len(source), is_step), guarded_functions(source, is_step)


@pytest.mark.parametrize(
    "source",
    [
        # a string's line at the left margin inside the guard's body, before the call: the
        # window ends there, inside the string, and does not parse
        b'class A:\n    def f(self):\n        try:\n            x = """\nnote\n"""\n'
        b"            self.step()\n        except Exception:\n            pass\n",
        # the same with brackets: a continuation line at the left margin
        b"def f(self):\n    try:\n        x = g(\n1)\n        self.step()\n    except Exception:\n        pass\n",
        # a `try` inside a string whose window parses and swallows the real `try` into a
        # string of its own: every header is read on its own
        b'class A:\n    def f(self):\n        a = """\n    try:\n        pass\n    except E:\n        pass\n'
        b'        z = """\n        try:\n            self.step()\n        except Exception:\n'
        b'            recover()\n        b = """\n        y = 1\n"""\n',
        # a clause of the guard after a comment at the left margin
        b"def f(self):\n    try:\n        self.step()\n# note\n    except Exception:\n        pass\n",
        # the guard's body on the header's line
        b"def f(self):\n    try: self.step()\n    except Exception: pass\n",
        b"def f(self):\n    try:\n        self.step()\n    except* Exception:\n        pass\n",
    ],
)
def test_the_window_reading_never_clears_a_guarded_file(source):
    """outside_guards is exact: on bytes holding a guard it says False, whatever strings,
    brackets or comments do to the lines' indentation."""
    outside, guards = _window_verdicts(source)
    assert guards, "the sample holds a guard"
    assert outside is False


@pytest.mark.parametrize(
    "source",
    [
        b"def f(self):\n    try:\n        pass\n    except Exception:\n        self.step()\n",  # in the branch
        b"def f(self):\n    try:\n        pass\n    finally:\n        self.step()\n",
        b"def f(self):\n    try:\n        def g():\n            self.step()\n    except Exception:\n        pass\n",
        b"def f(self):\n    try:\n        self.step()\n    except KeyboardInterrupt:\n        pass\n",
        b"try:\n    engine.step()\nexcept Exception:\n    pass\n",  # at module level: no function
        b"def f(self):\n    try:\n        pass\n    except E:\n        pass\n    self.step()\n",
    ],
)
def test_the_window_reading_clears_a_file_whose_step_calls_no_try_guards(source):
    outside, guards = _window_verdicts(source)
    assert guards == {}
    assert outside is True


@pytest.mark.parametrize(
    "source",
    [
        b"def f(self):\n\ttry:\n\t\tpass\n\texcept E:\n\t\tpass\n\tself.step()\n",  # tabs
        b"def f(self):\r    try:\r        pass\r    except E:\r        pass\r    self.step()\r",  # lone CR
        b"# -*- coding: latin-1 -*-\ndef f(self):\n    try:\n        pass\n    except E:\n        pass\n"
        b"    self.step()\n",
    ],
)
def test_the_window_reading_leaves_unreadable_indentation_to_the_whole_file(source):
    assert _window_verdicts(source)[0] is False


def _generated_module(rng) -> str:
    """A module of functions whose `try` statements, strings, brackets and comments sit at
    random indentations (strings holding `try`/`except` lines of their own)."""
    pieces = []

    def block(depth: int, budget: int) -> list[str]:
        pad = "    " * depth
        lines: list[str] = []
        for _ in range(rng.randint(1, 3)):
            kind = rng.choice(["call", "try", "string", "brackets", "comment", "def", "if"]) if budget else "call"
            if kind == "call":
                lines.append(pad + rng.choice(["self.step()", "engine.step(batch)", "x = 1", "self.other()"]))
            elif kind == "string":
                inner_pad = " " * rng.choice([0, 1, 4, len(pad), len(pad) + 4])
                lines.append(pad + rng.choice(["s = ", "", "doc = "]) + '"""')
                lines.extend(
                    inner_pad + rng.choice(["try:", "    self.step()", "except Exception:", "pass", ""])
                    for _ in range(rng.randint(1, 3))
                )
                lines.append(" " * rng.choice([0, len(pad)]) + '"""')
            elif kind == "brackets":
                lines.append(pad + "v = g(")
                lines.append(" " * rng.choice([0, 2, len(pad) + 4]) + rng.choice(["1,", "self.step(),", "try_ := 2,"]))
                lines.append(" " * rng.choice([0, len(pad)]) + ")")
            elif kind == "comment":
                lines.append(" " * rng.choice([0, len(pad) + 8]) + rng.choice(["# try:", "# self.step()", "# note"]))
            elif kind == "def":
                lines.append(pad + "def inner():")
                lines.extend(block(depth + 1, budget - 1))
            elif kind == "if":
                lines.append(pad + "if cond:")
                lines.extend(block(depth + 1, budget - 1))
            else:
                lines.append(pad + "try:")
                lines.extend(block(depth + 1, budget - 1))
                handlers = ["except Exception:", "except KeyboardInterrupt:", "finally:"]
                for handler in sorted(rng.sample(handlers, rng.randint(1, 2)), key=handlers.index):
                    lines.append(pad + handler)
                    lines.extend(block(depth + 1, budget - 1))
        return lines

    for n in range(rng.randint(1, 3)):
        pieces.append(f"class C{n}:\n    def f(self):\n" + "\n".join(block(2, 3)) + "\n")
    return "\n".join(pieces)


def test_the_window_reading_agrees_with_the_whole_file_on_generated_modules():
    """Over generated modules that Python parses, a file the windows clear holds no guard
    (never a guarded file cleared), and the windows do clear files (it is not vacuous)."""
    import random

    from ftlint.index.step_scan import outside_guards

    is_step = handler_name_matcher(DEFAULT_FAULT_STEPS)
    rng = random.Random(2026)
    cleared = guarded = 0
    for _ in range(3000):
        data = _generated_module(rng).encode()
        guards = guarded_functions(data, is_step)
        if guards is None:
            continue  # not Python: nothing to compare
        outside = outside_guards(data, len(data), is_step)
        assert not (outside and guards), data.decode()
        cleared += outside
        guarded += bool(guards)
    assert cleared > 300 and guarded > 300, (cleared, guarded)


# the regexes the window reading's byte scans replaced (memchr first): the reference they must equal
_HEADER_REGEX = __import__("re").compile(rb"^( +)try(?![\w\x80-\xff])", __import__("re").MULTILINE)
_UNREADABLE_REGEX = __import__("re").compile(
    rb"^ *[\t\f]|\r(?!\n)|\A(?:[^\n]*\n)?[ \t\f]*#[^\n]*coding[:=]", __import__("re").MULTILINE
)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"try:\n    x\n",  # at the left margin: no header
        b" try:\n",
        b"def f():\n    try:\n        pass\n    retry()\n    entry = 1\n    try_it()\n    x.try_ = 1\n",
        b"def f():\n  \ttry:\n",  # a tab in the indentation
        b"def f():\n\ttry:\n",
        b"x = '\t'\n",  # a tab inside a line: readable
        b"x = 1\r\ny = 2\r\n",
        b"x = 1\ry = 2\n",
        b"x = 1\r",
        b"\x0cdef f(): pass\n",
        b"# -*- coding: latin-1 -*-\n",
        b"#!/usr/bin/env python\n# vim: set fileencoding=utf-8 :\n",
        b"x = 1\ny = 2\n# coding: latin-1\n",  # third line: not a cookie
        b"def f():\n    try" + "\u00e9".encode() + b":\n    try\n    try",
    ],
)
def test_the_window_scans_equal_their_regexes(data):
    from ftlint.index.step_scan import _indented_try_headers, _unreadable_indentation

    assert _unreadable_indentation(data) == (_UNREADABLE_REGEX.search(data) is not None)
    for before in range(len(data) + 1):
        expected = [(m.start(), len(m.group(1))) for m in _HEADER_REGEX.finditer(data, 0, before)]
        assert list(_indented_try_headers(data, before)) == expected, before


def test_the_window_scans_equal_their_regexes_on_generated_and_real_modules():
    import random

    from ftlint.index.step_scan import _indented_try_headers, _unreadable_indentation

    rng = random.Random(7)
    samples = [_generated_module(rng).encode() for _ in range(300)]
    # blanks and line endings the generator never writes, spliced in at random places
    for sample in samples[:100]:
        at = rng.randrange(len(sample))
        samples.append(sample[:at] + rng.choice([b"\t", b"\x0c", b"\r", b"\r\n", b" try"]) + sample[at:])
    samples.extend(path.read_bytes() for path in sorted(Path(__file__).parents[1].joinpath("ftlint").rglob("*.py")))
    for data in samples:
        assert _unreadable_indentation(data) == (_UNREADABLE_REGEX.search(data) is not None)
        before = rng.randrange(len(data) + 1)
        expected = [(m.start(), len(m.group(1))) for m in _HEADER_REGEX.finditer(data, 0, before)]
        assert list(_indented_try_headers(data, before)) == expected


def test_a_guarded_files_windows_holding_a_step_call_are_read_first(monkeypatch):
    """A guard after many `try` statements that call no step: one window is parsed (the
    guard's), not one per `try` before it; a file with none still reads every window."""
    from ftlint.index import step_scan
    from ftlint.index.prefilter import StepCalls

    others = "".join(f"    try:\n        x{i} = {i}\n    except Exception:\n        pass\n" for i in range(20))
    guarded = (
        b"def f(self):\n" + others.encode() + b"    try:\n        self.step()\n    except Exception:\n        pass\n"
    )
    cleared = (
        b"def f(self):\n"
        + others.encode()
        + b"    try:\n        pass\n    except Exception:\n        self.step()\n"  # in the branch: no guard
        + b"    try:\n        pass\n    except Exception:\n        pass\n"
    )
    parsed: list[bytes] = []
    real_parse = step_scan._parse
    monkeypatch.setattr(step_scan, "_parse", lambda source: parsed.append(source) or real_parse(source))
    steps = StepCalls(DEFAULT_FAULT_STEPS)
    assert steps.cleared(guarded) is False
    assert len(parsed) == 1 and b"self.step()" in parsed[0]
    parsed.clear()
    assert steps.cleared(cleared) is True
    assert len(parsed) == 21 and b"self.step()" in parsed[0]  # every `try` before the call, alone


def test_the_step_scan_reads_the_tree_the_outliner_just_parsed(monkeypatch):
    """An edited file is outlined, then screened for step guards (the language server):
    one parse, not two; the guards are those of a parse of their own."""
    from ftlint.index import outline, step_scan

    text = textwrap.dedent(WRAPPER)
    is_step = handler_name_matcher(DEFAULT_FAULT_STEPS)
    alone = guarded_functions(text, is_step)
    assert alone  # the wrapper's guard
    parses: list[object] = []
    real_parse = step_scan._parse
    monkeypatch.setattr(step_scan, "_parse", lambda source: parses.append(source) or real_parse(source))
    assert outline.chunked_outline_ops(text)[0]  # the language server's outline of a small file
    assert guarded_functions(text, is_step) == alone and parses == []
    other = text + "\n# another version\n"
    assert guarded_functions(other, is_step) == alone and parses == [other]  # not the tree of another text
    outline.outline_ops(other)  # the CLI's outline keeps no tree (its peak memory)
    assert guarded_functions(other, is_step) == alone and parses == [other, other]


def test_step_guards_read_a_kept_tree_whole_without_its_windows(monkeypatch):
    """The language server's edited file: its outline kept Python's tree of it, so its
    guards are read from that tree; the `try` statements alone are read first otherwise."""
    from ftlint.index import outline, prefilter, step_scan

    monkeypatch.setattr(step_scan, "_FOUND", {})  # nothing the prefilter read
    windows: list[bytes] = []
    real = prefilter.outside_guards
    monkeypatch.setattr(prefilter, "outside_guards", lambda data, *a: windows.append(data) or real(data, *a))
    text = textwrap.dedent(WRAPPER)
    expected = guarded_functions(text, handler_name_matcher(DEFAULT_FAULT_STEPS))
    screen = StepGuards(DEFAULT_FAULT_STEPS)
    assert outline.chunked_outline_ops(text)[0]
    assert screen._guards(text, text.encode()) == expected and windows == []
    other = text + "# another version\n"
    assert screen._guards(other, other.encode()) == expected and windows == [other.encode()]
