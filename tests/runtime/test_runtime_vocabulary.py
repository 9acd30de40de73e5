"""Issue 13: every vLLM name the runtime reads comes from ftlint/core/vocabulary.py.

The guarded reads take the names from the vocabulary; the fast paths of the snapshot
and the checks read a few of them as plain attributes (``block.block_hash``), which is
what keeps the verifier cheap.  This test keeps both in step: no string literal in the
runtime spells a vocabulary name, and each fast-path attribute is a vocabulary name
(rename one in vocabulary.py and this fails until the fast path follows).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ftlint.core import vocabulary as V

RUNTIME = Path(__file__).resolve().parents[2] / "ftlint" / "runtime"


def _vocabulary_names() -> set[str]:
    names: set[str] = set()

    def add(value):
        if isinstance(value, str):
            names.add(value)
        elif isinstance(value, (tuple, frozenset, set, list)):
            for v in value:
                add(v)

    for key, value in vars(V).items():
        if key.isupper():
            add(value)
    names |= set(V.CURRENT.counters) | set(V.LEGACY.counters)
    return {n for n in names if n.isidentifier()}


VOCABULARY = _vocabulary_names()

# The plain attribute reads of the fast paths, by module: vocabulary names only.
FAST_PATH = {
    "snapshot.py": {V.REQUEST_ID, *V.TAIL_BOUNDARY, V.BLOCK_IS_NULL, V.BLOCK_HASH_ATTR, V.BLOCK_ID_ATTR},
    "checks.py": {
        V.REQUEST_STATUS,
        V.TAIL_BOUNDARY[1],
        V.CURRENT.counters[1],
        V.NUM_OUTPUT_PLACEHOLDERS,
        V.BLOCK_REF_CNT,
    },
}
# Attributes of the verifier's own objects that share a vocabulary name.
OWN = {"block_size", "block_id", "request_id", "requests", "scheduler"}  # ManagerRecord, FaultReport...


def _strings_and_attributes(path: Path) -> tuple[list[tuple[int, str]], set[str]]:
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    # Keys (of a dict display, or subscripts) name the verifier's own fields, not vLLM's.
    keys = {id(k) for node in ast.walk(tree) if isinstance(node, ast.Dict) for k in node.keys if k is not None}
    keys |= {id(node.slice) for node in ast.walk(tree) if isinstance(node, ast.Subscript)}
    strings = [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings | keys
    ]
    attributes = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    return strings, attributes


@pytest.mark.parametrize(
    "module", ["snapshot.py", "checks.py", "verify.py", "report.py", "pytest_plugin.py", "vllm_cpu.py"]
)
def test_no_vllm_name_spelled_as_a_string(module):
    strings, _ = _strings_and_attributes(RUNTIME / module)
    spelled = [(line, s) for line, s in strings if s in VOCABULARY]
    assert not spelled, f"{module}: use ftlint.core.vocabulary's names for {spelled}"


@pytest.mark.parametrize("module", sorted(FAST_PATH))
def test_fast_path_attributes_are_vocabulary_names(module):
    _, attributes = _strings_and_attributes(RUNTIME / module)
    expected = FAST_PATH[module]
    assert expected <= VOCABULARY
    assert expected <= attributes, f"{module} no longer reads {expected - attributes} plainly: update FAST_PATH"
    read = (attributes & VOCABULARY) - OWN
    assert read <= expected, f"{module} reads {read - expected} plainly: a vocabulary name, add it to FAST_PATH"
