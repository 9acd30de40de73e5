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
