"""Declarative LibCST node patterns: `m.Call(func=m.Attribute(attr=m.Name("evict_blocks")))`.

The same spelling as `libcst.matchers` for the part rules use (node patterns with
positional or keyword fields, `|` for alternatives, `matches`, `findall`), built on
demand per node type. Why not `libcst.matchers` itself: importing it builds ~400
dataclasses (0.3-0.4 s, more than `import libcst`), which alone would break the
pre-commit budget of a single-file run (issue 5).

    from ftlint.syntax import matchers as m
    m.matches(node, m.Call(func=m.Name("len")))
    m.findall(tree, m.Comparison())
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import libcst as cst

__all__ = ["NodePattern", "OneOf", "Pattern", "findall", "matches"]


class Pattern:
    """Something a node is matched against; `a | b` matches either."""

    __slots__ = ()

    def matches(self, node: object) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def __or__(self, other: Pattern) -> OneOf:
        return OneOf(self, other)


class OneOf(Pattern):
    __slots__ = ("options",)
    options: tuple[Pattern, ...]

    def __init__(self, *options: Pattern) -> None:
        flat: list[Pattern] = []
        for option in options:
            flat.extend(option.options if isinstance(option, OneOf) else (option,))
        self.options = tuple(flat)

    def matches(self, node: object) -> bool:
        return any(option.matches(node) for option in self.options)

    def __repr__(self) -> str:
        return " | ".join(map(repr, self.options))


class NodePattern(Pattern):
    """A node of exactly this type whose given fields match (a pattern, or a value
    compared with ==); fields left out match anything."""

    __slots__ = ("fields", "node_type")

    def __init__(self, node_type: type, fields: dict[str, Any]) -> None:
        self.node_type = node_type
        self.fields = tuple(fields.items())

    def matches(self, node: object) -> bool:
        if type(node) is not self.node_type:
            return False
        for name, expected in self.fields:
            actual = getattr(node, name)
            if isinstance(expected, Pattern):
                if not expected.matches(actual):
                    return False
            elif actual != expected:
                return False
        return True

    def __repr__(self) -> str:
        args = ", ".join(f"{name}={value!r}" for name, value in self.fields)
        return f"m.{self.node_type.__name__}({args})"


_factories: dict[str, Any] = {}


def _factory(node_type: type) -> Callable[..., NodePattern]:
    names = [f.name for f in dataclasses.fields(node_type)]

    def build(*args: Any, **kwargs: Any) -> NodePattern:
        if len(args) > len(names):
            raise TypeError(f"m.{node_type.__name__}() takes at most {len(names)} positional fields")
        fields = dict(zip(names, args, strict=False))
        for name, value in kwargs.items():
            if name not in names:
                raise TypeError(f"m.{node_type.__name__}() has no field {name!r} (fields: {', '.join(names)})")
            if name in fields:
                raise TypeError(f"m.{node_type.__name__}() got field {name!r} twice")
            fields[name] = value
        return NodePattern(node_type, fields)

    build.__name__ = node_type.__name__
    return build


def __getattr__(name: str) -> Callable[..., NodePattern]:
    """`m.Call`, `m.Name`, ...: a pattern factory for the LibCST node class of that name."""
    factory = _factories.get(name)
    if factory is None:
        node_type = getattr(cst, name, None)
        if not (
            isinstance(node_type, type) and issubclass(node_type, cst.CSTNode) and dataclasses.is_dataclass(node_type)
        ):
            raise AttributeError(f"ftlint.syntax.matchers has no node pattern {name!r} (not a LibCST node class)")
        factory = _factories[name] = _factory(node_type)
    return factory


def matches(node: object, pattern: Pattern) -> bool:
    """Whether `node` (a LibCST node, or None / MaybeSentinel, which match nothing) fits."""
    return pattern.matches(node)


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def findall(tree: cst.CSTNode, pattern: Pattern) -> list[cst.CSTNode]:
    """Every node in `tree` (itself included) that matches, in source order."""
    return [node for node in _walk(tree) if pattern.matches(node)]
