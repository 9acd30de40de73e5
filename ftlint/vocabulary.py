"""Public spelling of vLLM's names ftlint knows: `from ftlint import vocabulary as V` (docs/runtime.md).

A re-export of `ftlint.core.vocabulary`, so runtime checks written in users' code import it
from the package top as the docs show.
"""

from __future__ import annotations

from ftlint.core.vocabulary import *  # noqa: F403 (every public name, as the docs promise)
