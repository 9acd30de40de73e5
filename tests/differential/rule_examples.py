"""The rules' own examples that are whole fault handlers, run through the same oracle.

A VALID/INVALID example of a mapped rule (agreement.SELECT) is a *whole handler* when
its main file defines a class with an ``on_fault(self, exc)`` method (the last such
class is the handler) or a module-level ``on_fault(engine, exc)``.  Each is written as
a corpus directory: the example's files as the rule test writes them
(``ftlint.testing.write_example``) plus a ``handler.py`` adapter the oracle imports,
``FaultHandler(engine)``, which *is* the example's class (a subclass that only binds
what the examples reach for: ``self.engine``, ``self.scheduler`` = the real scheduler,
``self.kv`` = its real ``kv_cache_manager``) or calls the example's ``on_fault``.  An
``if self.ATTR:`` test in the handler becomes the case's switch (both paths run).
The static side lints the example's own files exactly as the rule test does, every
rule selected, and maps the codes as agreement.py does.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from ftlint.testing import Example, examples, lint_example, write_example
from tests.differential.agreement import RULE_TO_RUNTIME, SELECT

ADAPTER_CLASS = """\
# Intended: the rule example {id} (a {kind} example of {code}).
{header}import example as _module

_Example = _module.{cls}


class FaultHandler(_Example):
    def __init__(self, engine):
        self.engine = engine
        self.scheduler = engine.scheduler
        self.kv = engine.scheduler.kv_cache_manager
"""

ADAPTER_FUNCTION = """\
# Intended: the rule example {id} (a {kind} example of {code}).
from example import on_fault as _on_fault


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        _on_fault(self.engine, exc)
"""


@dataclass(frozen=True)
class HandlerExample:
    example: Example
    handler_class: str | None  # None: a module-level on_fault(engine, exc)
    switch: str | None

    @property
    def name(self) -> str:
        """A directory name for the example (its id, lower case, dashes kept)."""
        return re.sub(r"[^A-Za-z0-9_-]", "_", self.example.id)


def _handler_of(code: str) -> tuple[bool, str | None, str | None] | None:
    """(found, handler class or None, switch attribute) of an example's main file."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    handler_fn = None
    cls_name = None
    handlers: dict[str, ast.FunctionDef] = {}  # class -> its on_fault, own or inherited
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            inherited = [handlers[b.id] for b in node.bases if isinstance(b, ast.Name) and b.id in handlers]
            own = [i for i in node.body if isinstance(i, ast.FunctionDef) and i.name == "on_fault"]
            if own or inherited:
                handlers[node.name] = (own or inherited)[0]
                cls_name, handler_fn = node.name, handlers[node.name]
        elif isinstance(node, ast.FunctionDef) and node.name == "on_fault" and cls_name is None:
            handler_fn = node
    if handler_fn is None:
        return None
    switch = None
    for node in ast.walk(handler_fn):
        if (
            isinstance(node, (ast.If, ast.IfExp))
            and isinstance(node.test, ast.Attribute)
            and isinstance(node.test.value, ast.Name)
            and node.test.value.id == "self"
        ):
            switch = node.test.attr
            break
    return True, cls_name, switch


def handler_examples() -> list[HandlerExample]:
    found = []
    for example in examples():
        if example.rule.CODE not in SELECT:
            continue
        got = _handler_of(example.case.code)
        if got is not None:
            found.append(HandlerExample(example, got[1], got[2]))
    return found


def adapter_header(item: HandlerExample) -> str:
    """The adapter's header keys: its switch, and `# vllm: 0.26` where the example is set to
    the older API (`vllm-api = "0.26"`): it then runs on vLLM 0.26.0's scheduler."""
    switch = f"# switch: {item.switch}\n" if item.switch else ""
    version = "# vllm: 0.26\n" if re.search(r'vllm-api\s*=\s*"0\.26"', item.example.case.config) else ""
    return switch + version


def write_corpus(root: Path, items: list[HandlerExample]) -> None:
    """One directory per example under ``root``, as the oracle reads a corpus."""
    for item in items:
        directory = root / item.name
        directory.mkdir(parents=True)
        write_example(item.example.case, directory)
        template = ADAPTER_CLASS if item.handler_class else ADAPTER_FUNCTION
        header = adapter_header(item)
        (directory / "handler.py").write_text(
            template.format(
                id=item.example.id,
                kind=item.example.kind,
                code=item.example.rule.CODE,
                cls=item.handler_class,
                header=header,
            )
        )


def static_verdict(directory: Path, item: HandlerExample) -> list[str]:
    """The mapped runtime families of the example's findings, linted as the rule test
    lints it (its own files, not the adapter)."""
    case = item.example.case
    files = [Path(name) for name in (case.lint or ("example.py", *case.files))]
    findings = lint_example(directory, files)
    return sorted({RULE_TO_RUNTIME[f.code] for f in findings if f.code in RULE_TO_RUNTIME})


PLACEHOLDER_EVICTION = "evict_blocks(set())"


def compared(item: HandlerExample, verdict: list[str]) -> list[str]:
    """The families compared for an example: FTR01 is left out where the example's
    eviction is the placeholder `evict_blocks(set())` (it evicts nothing at runtime)."""
    case = item.example.case
    texts = [case.code, *case.files.values()]
    if any(PLACEHOLDER_EVICTION in text for text in texts):
        return [c for c in verdict if c != "FTR01"]
    return list(verdict)
