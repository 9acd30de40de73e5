"""Code the rules' VALID/INVALID examples share (`ftlint.rule.Valid` / `Invalid` take
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
