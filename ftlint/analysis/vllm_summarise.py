"""vllm_summaries.py's data, computed from a vLLM source tree by ftlint's own interpreter
(scripts/vllm_summaries.py writes it; tests/test_vllm_summaries.py compares)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ftlint.analysis.faultpath import FaultPaths, handler_matcher
from ftlint.analysis.vllm_summaries import SUMMARISED_CLASSES
from ftlint.core import vocabulary as V
from ftlint.index.project import ClassInfo, Project
from ftlint.syntax import ir


def generate(source_root: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """Summaries of SUMMARISED_CLASSES read from `source_root` (the directory holding the
    `vllm` package), computed by the interpreter itself (Interpreter.path_effects), and the
    methods each calls on `self` (vllm_summaries.calls_on_self)."""
    project = Project(source_root, source_root)
    paths = FaultPaths(project, handler_matcher(()), vllm_api=V.CURRENT.name)
    interp = paths.interpreter
    classes: dict[str, dict[str, Any]] = {}
    calls: dict[str, dict[str, Any]] = {}
    for module, name in SUMMARISED_CLASSES:
        path = source_root.joinpath(*module.split(".")).with_suffix(".py")
        info = project.module_at(path)
        cls = info.classes.get(name) if info is not None else None
        if cls is None:
            raise ValueError(f"{path}: no class {name}")
        key = f"{module}:{name}"
        classes[key] = {method: interp.path_effects(fn) for method, fn in cls.methods.items()}
        calls[key] = {method: _calls_on_self(cls, method) for method in cls.methods}
    return {"classes": classes, "calls-on-self": calls}


def _calls_on_self(cls: ClassInfo, method: str) -> list[str]:
    """The names `cls.method` calls as `self.name(...)`, and those calls' own, transitively."""
    found: set[str] = set()
    todo = [method]
    while todo:
        fn = cls.methods.get(todo.pop())
        if fn is None:
            continue
        for effect in ir.iter_effects(fn.ir):
            refs = [effect.callee, *effect.alternatives] if effect.callee is not None else list(effect.alternatives)
            for kind, name in refs:
                if effect.handed and name not in cls.methods:
                    continue  # `f(self.engine)`: an attribute handed on, no method
                if kind == "self" and name not in found:
                    found.add(name)
                    todo.append(name)
    return sorted(found)
