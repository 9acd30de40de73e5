"""Effect summaries of vLLM's own methods, for a linter that runs without vLLM installed.

A handler that subclasses vLLM's `EngineCoreSentinel` and calls `super().on_fault(exc)`
reaches code that is not in the project. Where vLLM's source can be read (the `vllm-source`
setting, else the installed package, located without importing it) the interpreter walks
that method as it walks a project helper. Where it cannot (pre-commit's isolated
environment), it applies the method's shipped summary: what each path through the method
leaves in the walk's state (requests freed, tails evicted, counters zeroed, requests left
pending a counter reset), as the interpreter itself computed it from the real source.

The summaries ship in `ftlint/analysis/vllm_data/<vLLM version>.json`, one file per supported
vLLM version, picked by the handler's API generation (`vllm-api`, or detected). They are
derived facts, never source: `scripts/vllm_summaries.py` writes them from a vLLM tree (vllm_summarise.py), and
`tests/test_vllm_summaries.py` regenerates them from the installed vLLM and compares.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from ftlint.core import vocabulary as V

#: the classes whose methods user code reaches through `super()`, by defining module
SUMMARISED_CLASSES: tuple[tuple[str, str], ...] = (
    ("vllm.v1.fault_tolerance.engine_core_sentinel", "EngineCoreSentinel"),
)

#: the vLLM release whose summaries stand for each API generation (vocabulary.GENERATIONS);
#: releases of the older generations have no `EngineCoreSentinel` (added in 0.27)
VERSION_FOR_GENERATION: dict[str, str] = {V.CURRENT.name: "0.34.0"}

FORMAT = 1
_PACKAGE = "ftlint.analysis.vllm_data"

#: one path through a summarised method: {"freed": [key], "evicted": [[key, quality]],
#: "zeroed": [[key, field]], "pending": [[key, [counter]]]}; a method is a list of them, or
#: None when its effects cannot be stated without its arguments (not followed, like any
#: unresolved call)
PathEffects = dict[str, list[Any]]


def data_file(version: str) -> str:
    return f"{version}.json"


@functools.cache
def load(version: str) -> dict[str, Any] | None:
    """The shipped summaries of one vLLM version, or None when none ship."""
    from importlib import resources  # not at the top: its import (tempfile, shutil, ...) is only for this

    try:
        text = resources.files(_PACKAGE).joinpath(data_file(version)).read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError):
        return None
    data: dict[str, Any] = json.loads(text)
    return data if data.get("format") == FORMAT else None


def for_generation(generation: V.Generation) -> dict[str, Any] | None:
    version = VERSION_FOR_GENERATION.get(generation.name)
    return load(version) if version is not None else None


def lookup(data: dict[str, Any], imported_from: str, class_name: str, method: str) -> list[PathEffects] | bool | None:
    """The summary of `class_name.method` for a base class imported from module
    `imported_from` (its defining module, or a package above it that re-exports it):
    a list of paths, None when the method is known but not summarised, False when the
    class or method is not in the data."""
    for key, methods in data.get("classes", {}).items():
        module, _, name = key.partition(":")
        if name != class_name or not (module == imported_from or module.startswith(imported_from + ".")):
            continue
        if method in methods:
            found: list[PathEffects] | None = methods[method]
            return found
    return False


def calls_on_self(data: dict[str, Any], imported_from: str, class_name: str, method: str) -> set[str]:
    """The methods vLLM's `method` calls on `self`, directly or through its own class's
    methods: a subclass overriding one of them makes the summary not hold."""
    for key, methods in data.get("calls-on-self", {}).items():
        module, _, name = key.partition(":")
        if name == class_name and (module == imported_from or module.startswith(imported_from + ".")):
            return set(methods.get(method, ()))
    return set()


def dump(version: str, generated: dict[str, dict[str, dict[str, Any]]]) -> str:
    """The data file's text (generated: vllm_summarise.generate's): stable order, one line
    per path."""
    lines = [
        "{",
        f' "format": {FORMAT},',
        f' "vllm": {json.dumps(version)},',
        ' "generated-by": "scripts/vllm_summaries.py: effects computed by ftlint\'s interpreter from vLLM\'s source",',
    ]
    for part in ("calls-on-self", "classes"):
        classes = generated[part]
        lines.append(f" {json.dumps(part)}: {{")
        for i, (cls, methods) in enumerate(sorted(classes.items())):
            lines.append(f"  {json.dumps(cls)}: {{")
            for j, (method, value) in enumerate(sorted(methods.items())):
                comma = "," if j < len(methods) - 1 else ""
                if part == "calls-on-self" or value is None:
                    lines.append(f"   {json.dumps(method)}: {json.dumps(value)}{comma}")
                    continue
                lines.append(f"   {json.dumps(method)}: [")
                lines.extend(f"    {json.dumps(p)}{',' if k < len(value) - 1 else ''}" for k, p in enumerate(value))
                lines.append(f"   ]{comma}")
            lines.append("  }" + ("," if i < len(classes) - 1 else ""))
        lines.append(" }" + ("," if part != "classes" else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"
