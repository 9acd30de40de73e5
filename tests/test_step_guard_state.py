"""A step guard is a fault path when its `except` branch can reach the request state the
analysis models (reach.StateScreen): an `except` around a `step()` that is no engine's
(a streaming parser's, a detokenizer's) and only builds an error reply is left out, read
with `ast` alone; a branch that reaches a free through a helper in another module, a method
table, `functools.partial`, a string constant or `super()` stays in and is reported."""

from __future__ import annotations

import textwrap

import pytest

from ftlint.index.prefilter import class_names_defined
from tests.helpers import codes_at, findings_json, run_ftlint, write_project

# Serving code in vLLM's shape: `processor.step()` parses a stream, the branch answers an error.
SERVING = """
from replies import error_reply

class ChatServing:
    def __init__(self):
        super().__init__()

    async def stream(self, processor, chunks):
        for chunk in chunks:
            try:
                delta = processor.step(chunk)
            except Exception as err:
                yield self.error_event(err)
                yield error_reply(str(err))
                return
            yield delta

    def error_event(self, err):
        return {"error": str(err), "status": "waiting for the engine"}
"""

REPLIES = """
# the reply a client gets while requests are waiting
def error_reply(message):
    return {"message": message}
"""


def test_a_guard_that_reaches_no_request_state_is_no_fault_path(tmp_path):
    root = write_project(tmp_path, {"serving.py": SERVING, "replies.py": REPLIES})
    run = run_ftlint("check", "--verbose", "serving.py", "replies.py", cwd=root)
    assert run.returncode == 0, run.stdout + run.stderr
    # `super()` in another method, "waiting" in a string and a comment: not what the branch reaches
    assert "ChatServing.stream: its `except` around an engine step reaches no request state" in run.stderr


# Each: a guard whose branch frees every running request (no eviction: FT007) only through
# code the screen must follow. The free's line is where FT007 points (in the guard's file).
REACHED = {
    "a helper in another module": (
        {
            "cleanup.py": """
            def abort_all(scheduler):
                for req in list(scheduler.running):
                    scheduler.finish_requests(req.request_id, "aborted")
            """,
        },
        """
        from cleanup import abort_all

        class Loop:
            def run(self):
                try:
                    self.step()
                except Exception:
                    abort_all(self.scheduler)
        """,
    ),
    "a method table": (
        {},
        """
        class Loop:
            def _abort(self):
                for req in list(self.scheduler.running):
                    self.scheduler.finish_requests(req.request_id, "aborted")

            def run(self):
                try:
                    self.step()
                except Exception:
                    table = {"abort": self._abort}
                    table["abort"]()
        """,
    ),
    "functools.partial": (
        {
            "cleanup.py": """
            def abort_all(scheduler):
                for req in list(scheduler.running):
                    scheduler.finish_requests(req.request_id, "aborted")
            """,
        },
        """
        import functools
        from cleanup import abort_all

        class Loop:
            def run(self):
                try:
                    self.step()
                except Exception:
                    functools.partial(abort_all, self.scheduler)()
        """,
    ),
    "a module constant naming the primitive": (
        {},
        """
        FREE = "finish_requests"

        class Loop:
            def run(self):
                try:
                    self.step()
                except Exception:
                    for req in list(self.scheduler.running):
                        getattr(self.scheduler, FREE)(req.request_id, "aborted")
        """,
    ),
    "super() into a base class": (
        {
            "base.py": """
            class BaseLoop:
                def recover(self):
                    for req in list(self.scheduler.running):
                        self.scheduler.finish_requests(req.request_id, "aborted")
            """,
        },
        """
        from base import BaseLoop

        class Loop(BaseLoop):
            def recover(self):
                super().recover()

            def run(self):
                try:
                    self.step()
                except Exception:
                    self.recover()
        """,
    ),
}


@pytest.mark.parametrize("how", sorted(REACHED))
def test_a_guard_reaching_a_free_is_still_a_fault_path(tmp_path, how):
    others, loop = REACHED[how]
    files = {name: textwrap.dedent(text) for name, text in others.items()}
    files["loop.py"] = textwrap.dedent(loop)
    root = write_project(tmp_path, files)
    code, findings = findings_json(*files, cwd=root)
    assert code == 1, findings
    assert "FT007" in {code for _, _, code in codes_at(findings)}, findings
    run = run_ftlint("check", "--verbose", *files, cwd=root)
    assert "reaches no request state" not in run.stderr


def test_step_guard_files_add_no_classes_to_the_subclass_scan(tmp_path):
    """The forked subclass scan looks for subclasses of the classes a handler may be in: a
    file that holds only step guards names none (a subclass never inherits a guard)."""
    root = write_project(
        tmp_path,
        {
            "serving.py": SERVING,
            "sentinel.py": "class Sentinel:\n    def on_fault(self, exc):\n        pass\n",
        },
    )
    files = [str(root / "serving.py"), str(root / "sentinel.py")]
    assert class_names_defined(files) == {"ChatServing", "Sentinel"}
    assert class_names_defined(files, ("on_fault",)) == {"Sentinel"}
