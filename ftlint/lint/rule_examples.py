"""Code the rules' VALID/INVALID examples share (`ftlint.lint.rule.Valid` / `Invalid` take
the result like any example text).

Most examples of the path rules need "some eviction before the free" or "some eviction
helper" beside the code they are about; `with_methods` appends such shared helper
methods to the example's last class instead of each example spelling them out again.
"""

from __future__ import annotations

import inspect
import textwrap

# The helper methods (written at column 0; `with_methods` indents them into the class).
EVICT_TAILS = """
def _evict_tails(self):
    self.kv.evict_blocks(set())
"""
EVICT_TAIL = """
def _evict_tail(self, req):
    self.kv.evict_blocks(set())
"""
SCHEDULER_EVICT_TAIL = """
def _evict_tail(self, req):
    self.scheduler.kv_cache_manager.evict_blocks(set())
"""
SCHEDULER_EVICT_TAILS = """
def _evict_tails(self):
    self.scheduler.kv_cache_manager.evict_blocks(set())
"""


def with_methods(code: str, *methods: str) -> str:
    """`code` (an example whose last statement is a class) followed by `methods`, each a
    method's source, as methods of that class, one blank line apart."""
    text = inspect.cleandoc(code)
    for method in methods:
        text += "\n\n" + textwrap.indent(inspect.cleandoc(method), "    ")
    # a leading newline: Valid/Invalid clean the text up again, and inspect.cleandoc
    # takes the margin from the lines after the first
    return "\n" + text + "\n"


def handler(body: str, *methods: str, before: str = "", cls: str = "Sentinel") -> str:
    """An example module: `before` (imports, constants, other classes), then class `cls`
    whose `on_fault(self, exc)` runs `body`, then `methods` (with_methods)."""
    text = inspect.cleandoc(before) + "\n\n" if before else ""
    text += f"class {cls}:\n    def on_fault(self, exc):\n" + textwrap.indent(inspect.cleandoc(body), " " * 8)
    return with_methods("\n" + text, *methods)


# vLLM's abort status, and its import (`finish_requests` takes a RequestStatus, not a string).
STATUS_IMPORT = "from vllm.v1.request import RequestStatus"
ABORTED = "RequestStatus.FINISHED_ABORTED"

# A preempt for resume of the running request `req`, and the resets that make it resumable.
PREEMPT = "self.scheduler._preempt_request(req, 0.0)"
RESETS = ("req.num_in_flight_tokens = 0", "req.num_stale_output_tokens = 0")


def each_running(*lines: str, before: str = "") -> str:
    """A handler that evicts the tails (EVICT_TAILS), then runs `lines` (indent nested
    lines yourself) for each running request `req`."""
    body = "self._evict_tails()\nfor req in list(self.scheduler.running):\n" + textwrap.indent("\n".join(lines), "    ")
    return handler(body, EVICT_TAILS, before=before)


def aborting(*lines: str, kv: bool = True) -> str:
    """A handler (RequestStatus imported) that runs `lines` with `sched` (and `kv`, its
    kv_cache_manager) bound, then aborts every request."""
    head = "sched = self.engine.scheduler\n" + ("kv = sched.kv_cache_manager\n" if kv else "")
    body = "\n".join(inspect.cleandoc(line) for line in lines)
    return handler(head + body + f"\nsched.finish_requests(None, {ABORTED})", before=STATUS_IMPORT)


def then(code: str, *lines: str, indent: int) -> str:
    """An example's code with `lines` appended at `indent` spaces (the text `--fix`
    leaves when it adds lines at the end)."""
    return "\n" + inspect.cleandoc(code) + "\n" + textwrap.indent("\n".join(lines), " " * indent) + "\n"
