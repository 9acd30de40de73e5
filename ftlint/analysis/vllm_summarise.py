"""vllm_summaries.py's data, computed from a vLLM source tree by ftlint's own interpreter
(scripts/vllm_summaries.py writes it; tests/test_vllm_summaries.py compares)."""

from __future__ import annotations

from pathlib import Path

from ftlint.analysis.faultpath import FaultPaths, handler_matcher
from ftlint.analysis.vllm_summaries import SUMMARISED_CLASSES, PathEffects
from ftlint.core import vocabulary as V
from ftlint.index.project import Project


def generate(source_root: Path) -> dict[str, dict[str, list[PathEffects] | None]]:
    """Summaries of SUMMARISED_CLASSES read from `source_root` (the directory holding the
    `vllm` package), computed by the interpreter itself (Interpreter.path_effects)."""
    project = Project(source_root, source_root)
    paths = FaultPaths(project, handler_matcher(()), vllm_api=V.CURRENT.name)
    interp = paths.interpreter
    out: dict[str, dict[str, list[PathEffects] | None]] = {}
    for module, name in SUMMARISED_CLASSES:
        path = source_root.joinpath(*module.split(".")).with_suffix(".py")
        info = project.module_at(path)
        cls = info.classes.get(name) if info is not None else None
        if cls is None:
            raise ValueError(f"{path}: no class {name}")
        out[f"{module}:{name}"] = {method: interp.path_effects(fn) for method, fn in cls.methods.items()}
    return out
