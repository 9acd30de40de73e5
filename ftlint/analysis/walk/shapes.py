"""Shapes of syntax the walk recognises, read off LibCST nodes (and module text): no state.

A `@contextmanager` cut at its `yield`, the request argument of a preempt however it is
spelled, a counter's decrement, literal defaults and module constants.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import libcst as cst

from ftlint.analysis import values as Val
from ftlint.analysis.walk.state import HEAP
from ftlint.core import vocabulary as V
from ftlint.syntax import ir

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from ftlint.analysis.walk.state import State
    from ftlint.index.project import ClassInfo, Function, ModuleInfo


class _CounterReads(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: set[str] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in V.ALL_COUNTER_FIELDS:
            self.found.add(node.attr.value)


def counters_read(test: cst.CSTNode) -> set[str]:
    """The counter fields an expression reads (`req.num_output_placeholders > 0`)."""
    reads = _CounterReads()
    test.visit(reads)
    return reads.found


def decrements(target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
    """`req.counter = req.counter - n` with n not a literal 0."""
    return (
        isinstance(target, cst.Attribute)
        and target.attr.value in V.ALL_COUNTER_FIELDS
        and isinstance(value, cst.BinaryOperation)
        and isinstance(value.operator, cst.Subtract)
        and ir.code_of(value.left) == ir.code_of(target)
        and not (isinstance(value.right, cst.Integer) and value.right.evaluated_value == 0)
    )


@dataclass(frozen=True)
class ContextSplit:
    """A `@contextmanager` function cut at its `yield`: what runs on entry, the value it
    yields, what runs on exit."""

    fn: Function
    via_instance: bool
    before: list[cst.BaseStatement]
    yielded: cst.BaseExpression | None
    after: list[cst.BaseStatement]


@dataclass(frozen=True)
class Body:
    """Statements run as a suite."""

    body: Sequence[cst.BaseStatement]


def statements(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    """The statements of an indented block (none for a one-line suite: its small statements
    hold no compound statement)."""
    return list(suite.body) if isinstance(suite, cst.IndentedBlock) else []


def _yield_of(statement: cst.BaseStatement) -> tuple[bool, cst.BaseExpression | None]:
    """(whether the statement is a bare `yield` / `yield x` / `name = yield x`, its value)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False, None
    small = statement.body[0]
    value = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
    if isinstance(value, cst.Yield) and not isinstance(value.value, cst.From):
        return True, value.value
    return False, None


def yield_split(
    body: list[cst.BaseStatement],
) -> tuple[list[cst.BaseStatement], cst.BaseExpression | None, list[cst.BaseStatement]] | None:
    """`pre; yield x; post` or `pre; try: a; yield x; b finally: f; post` (no except
    clauses, no other yield): (pre [+ a], x, [b +] f + post); None for another shape."""
    for index, statement in enumerate(body):
        found, value = _yield_of(statement)
        if found:
            return body[:index], value, body[index + 1 :]
        if isinstance(statement, cst.Try) and not statement.handlers and statement.orelse is None:
            inner = statements(statement.body)
            for at, line in enumerate(inner):
                found, value = _yield_of(line)
                if found:
                    final = statements(statement.finalbody.body) if statement.finalbody is not None else []
                    return body[:index] + inner[:at], value, inner[at + 1 :] + final + body[index + 1 :]
    return None


def context_split(fn: Function, via_instance: bool) -> ContextSplit | None:
    """`fn` cut at its `yield` when it is a `@contextmanager` of a shape `yield_split` knows."""
    names = {ir.dotted_name(d.decorator) or "" for d in fn.node.decorators}
    if not any(n.rsplit(".", 1)[-1] == "contextmanager" for n in names):
        return None
    parts = yield_split(statements(fn.node.body))
    return ContextSplit(fn, via_instance, *parts) if parts is not None else None


def is_generator(fn: Function) -> bool:
    """Whether `fn` is a generator function: a `yield` in its own body (not in a nested
    function or lambda), not a `@contextmanager` (its callers enter it with `with`)."""
    known = fn.tree_facts.get(_GENERATOR)
    segment = fn.tree() if known is None else None
    if known is None and "yield" not in (segment.text if segment is not None else fn.module.text):
        known = fn.tree_facts[_GENERATOR] = False  # its text has no `yield`: no tree is walked
    if known is None:
        node = fn.node
        names = {ir.dotted_name(d.decorator) or "" for d in node.decorators}
        yields = any(isinstance(n, (cst.Yield)) for n in _own_nodes(node.body))
        known = fn.tree_facts[_GENERATOR] = yields and not any(n.endswith("contextmanager") for n in names)
    return bool(known)


_GENERATOR = "shapes.is_generator"


def zeroed_counters(fn: Function) -> frozenset[str]:
    """The counter fields `fn`'s own code sets to 0 (`req.num_in_flight_tokens = 0`)."""
    found = set()
    for node in _own_nodes(fn.node.body):
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Integer) and node.value.value == "0":
            for target in node.targets:
                if isinstance(target.target, cst.Attribute) and target.target.attr.value in V.ALL_COUNTER_FIELDS:
                    found.add(target.target.attr.value)
    return frozenset(found)


def _own_nodes(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The nodes of a function body, nested functions, classes and lambdas left out."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in node.children if not isinstance(c, (cst.FunctionDef, cst.ClassDef, cst.Lambda)))


MUTATORS = (
    "append|extend|insert|update|pop|popitem|remove|clear|setdefault|add|discard|sort|reverse|__setitem__|__ior__"
)
#: constructors and makers an attribute's value may call (`KVJanitor(...)`, `partial(...)`):
#: they compute a value and have no effect the walk needs
_VALUE_CALLS = frozenset({"partial", "functools.partial", "methodcaller", "operator.methodcaller", "dict", "list"})


def init_assignment(chain: Sequence[ClassInfo], attr: str) -> tuple[Function, cst.BaseExpression] | None:
    """`self.attr = value` as the one write of `attr` in the modules of a class and its bases
    (`chain`), a top-level statement of one of their `__init__`s: (that `__init__`, value).
    None when `attr` is written elsewhere or more than once, changed in place (`append`,
    an item set, `setattr(self, ...)`), or the value calls what is not a constructor."""
    inits = [c.methods["__init__"] for c in chain if "__init__" in c.methods]
    if not inits:
        return None
    writes = 0
    for info in {id(c.module): c.module for c in chain}.values():
        counts, changed = _self_writes(info)
        if attr in changed:
            return None
        writes += counts.get(attr, 0)
    if writes != 1:
        return None
    for init in inits:
        for line in init.node.body.body:
            for small in line.body if isinstance(line, cst.SimpleStatementLine) else ():
                target = small.targets[0].target if isinstance(small, cst.Assign) and len(small.targets) == 1 else None
                target = small.target if isinstance(small, cst.AnnAssign) else target
                value = small.value if isinstance(small, (cst.Assign, cst.AnnAssign)) else None
                if (
                    isinstance(target, cst.Attribute)
                    and ir.dotted_name(target) == f"self.{attr}"
                    and value is not None
                    and _plain(value)
                ):
                    return init, value
    return None


def written_once(info: ModuleInfo, attr: str, *, constructed: bool = False) -> bool:
    """Whether the module assigns `self.attr` exactly once and never changes it in place
    (`constructed`: to `Cls(...)`, a CamelCase call): a cheap first test for init_assignment."""
    counts, changed = _self_writes(info)
    if counts.get(attr) != 1 or attr in changed:
        return False
    return not constructed or re.search(rf"\bself\.{re.escape(attr)}\s*(?::[^=\n]*)?=\s*_*[A-Z]", info.text) is not None


_WRITE = re.compile(r"\bself\.(\w+)\s*(?::[^=\n]*)?=(?!=)")
_CHANGE = re.compile(
    r"\bself\.(\w+)\s*(?:[-+*/|&^%@]|//|<<|>>|\*\*)=|\bself\.(\w+)\s*\[[^\]\n]*\]\s*=(?!=)"
    rf"|\bself\.(\w+)\.(?:{MUTATORS})\(|\bdel\s+self\.(\w+)\b"
)
_WRITES: dict[int, tuple[ModuleInfo, dict[str, int], frozenset[str]]] = {}


_FIELD_WRITE = re.compile(r"\.(\w+)\s*(?::[^=\n]*)?(?:[-+*/|&^%@]|//|<<|>>|\*\*)?=(?!=)")
_ANY_FIELD_WRITE = re.compile(r"\bsetattr\(|__dict__|\bvars\([^)]*\)\s*\.\s*update\b")


def settled_fields(chain: Sequence[ClassInfo], value: cst.BaseExpression, table: Val.Value) -> Val.Value:
    """`self.cfg = SimpleNamespace(evict=True, mode="abort")` in `__init__`: the flags,
    strings and numbers it holds that no module of the class assigns as an attribute
    (`self.cfg.mode = ...` in a setter), as a table; None when there are none, when the
    value is not a namespace, or when a module sets attributes by name (`setattr`)."""
    named = ir.dotted_name(value.func) if isinstance(value, cst.Call) else None
    if named not in ("SimpleNamespace", "types.SimpleNamespace") or not isinstance(table, Val.Table):
        return None
    texts = [info.text for info in {id(c.module): c.module for c in chain}.values()]
    if any(_ANY_FIELD_WRITE.search(text) for text in texts):
        return None
    written = {match.group(1) for text in texts for match in _FIELD_WRITE.finditer(text)}
    kept = tuple(
        (name, item)
        for name, item in table.items
        if isinstance(item, (Val.Bool, Val.Str, Val.Num)) and name not in written
    )
    return Val.Table(kept) if kept else None


def class_string(cls: ClassInfo, attr: str) -> str | None:
    """`EVICT = "evict_blocks"` in the class body, never assigned through `self` in its module:
    that string (a flag or a number at class level stays unknown: a switch a deployment flips)."""
    if f"{attr} =" not in cls.module.text:
        return None  # read off the text first
    counts, changed = _self_writes(cls.module)
    if attr in counts or attr in changed:
        return None
    found = _class_values(cls.module).get((cls.name, attr))
    return found[1] if found is not None and found[0] == "string" else None


def class_flag(chain: Sequence[ClassInfo], attr: str) -> bool | None:
    """`final = True` in the body of the first class of `chain` (an MRO) that sets `attr`, never
    assigned through `self` in the modules of the chain: that flag; None otherwise."""
    for cls in chain:
        if f"{attr}" not in cls.module.text:
            continue
        counts, changed = _self_writes(cls.module)
        if attr in counts or attr in changed:
            return None
        found = _class_values(cls.module).get((cls.name, attr))
        if found is not None:
            return found[1] == "True" if found[0] == "flag" else None
    return None


def descriptor_name(cls: ClassInfo, attr: str) -> str | None:
    """`in_flight = Forward("num_in_flight_tokens")` in the class body: the name called (an
    object made there, a descriptor when its class defines `__set__`); None otherwise."""
    if not _made_at_class_level(attr).search(cls.module.text):
        return None  # read off the text first: most modules are not parsed for this
    tree = _parsed(cls.module)
    for node in tree.body if tree is not None else ():
        if not (isinstance(node, ast.ClassDef) and node.name == cls.name):
            continue
        for line in node.body:
            if not (isinstance(line, ast.Assign) and len(line.targets) == 1 and isinstance(line.value, ast.Call)):
                continue
            target = line.targets[0]
            if isinstance(target, ast.Name) and target.id == attr:
                return ast.unparse(line.value.func)
    return None


@functools.lru_cache(maxsize=256)
def _made_at_class_level(attr: str) -> re.Pattern[str]:
    """`    attr = Maker(` on an indented line: an object a class body may make."""
    return re.compile(rf"^[ \t]+{re.escape(attr)}\s*=\s*[\w.]+\(", re.MULTILINE)


def class_table(cls: ClassInfo, attr: str) -> str | None:
    """`_release = {False: lambda s, rs: ..., True: _requeue}` in the class body (constant
    keys, each value a lambda or a bare name; or a tuple or list of them), never assigned or
    changed through `self` in its module: its source, for the walk to evaluate in the module."""
    if f"{attr} =" not in cls.module.text:
        return None
    counts, changed = _self_writes(cls.module)
    if attr in counts or attr in changed:
        return None
    found = _class_values(cls.module).get((cls.name, attr))
    return found[1] if found is not None and found[0] == "table" else None


def _class_values(info: ModuleInfo) -> dict[tuple[str, str], tuple[str, str]]:
    """The class-level strings and tables of functions of a module: (class, name) -> (kind,
    the string or the table's source)."""
    known = _CLASS_STRINGS.get(id(info))
    if known is None or known[0] is not info:
        found: dict[tuple[str, str], tuple[str, str]] = {}
        tree = _parsed(info)
        for node in tree.body if tree is not None else ():
            if not isinstance(node, ast.ClassDef):
                continue
            for line in node.body:
                if isinstance(line, ast.AnnAssign) and isinstance(line.target, ast.Name) and line.value is not None:
                    value, name = line.value, line.target.id  # `final: ClassVar[bool] = False`
                elif isinstance(line, ast.Assign) and len(line.targets) == 1 and isinstance(line.targets[0], ast.Name):
                    value, name = line.value, line.targets[0].id
                else:
                    continue
                if isinstance(value, ast.Constant) and isinstance(value.value, bool):
                    found[(node.name, name)] = ("flag", str(value.value))
                elif isinstance(value, ast.Constant) and isinstance(value.value, str):
                    found[(node.name, name)] = ("string", value.value)
                elif _table_of_callables(value):
                    found[(node.name, name)] = ("table", ast.unparse(value))
        known = _CLASS_STRINGS[id(info)] = (info, found)
    return known[1]


def registering_decorators(info: ModuleInfo, table: str) -> dict[str, int | None]:
    """The functions of a module that make a decorator filling its module-level `table`:
    `def connect(name): def deco(fn): table.setdefault(name, []).append(fn); return fn` (also
    `table[name].append(fn)`, `table[name] = fn`) -> {"connect": 0} (the position of the key
    among its parameters); `def register(fn): table.append(fn); return fn` -> {"register": None}."""
    made, filled = _registry_text(table)
    if not (made.search(info.text) and filled.search(info.text)):
        return {}  # read off the text first: most names are no empty table filled in place
    tree = _parsed(info)
    found: dict[str, int | None] = {}
    for top in tree.body if tree is not None else ():
        if not isinstance(top, ast.FunctionDef):
            continue
        params = [a.arg for a in top.args.args]
        inner = [n for n in top.body if isinstance(n, ast.FunctionDef) and len(n.args.args) == 1]
        if len(params) == 1 and _fills(top, table, params[0], None):
            found[top.name] = None
        for deco in inner:
            key = next((k for k in params if _fills(deco, table, deco.args.args[0].arg, k)), None)
            if key is not None:
                found[top.name] = params.index(key)
    return found


@functools.lru_cache(maxsize=1024)
def _registry_text(table: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """`TABLE = {}` (`[]`, `defaultdict(list)`) at the top of a module; `TABLE` filled in place."""
    t = re.escape(table)
    made = rf"^{t}\s*(?::[^=\n]*)?=\s*(?:\{{\}}|\[\]|dict\(\)|list\(\)|(?:collections\.)?defaultdict\()"
    filled = rf"\b{t}(?:\.setdefault\(|\.append\(|\[[^\]\n]*\]\s*(?:\.append\(|=(?!=)))"
    return re.compile(made, re.MULTILINE), re.compile(filled)


def _fills(fn: ast.FunctionDef, table: str, item: str, key: str | None) -> bool:
    """Whether `fn` stores `item` in `table` under `key` (appends it, when `key` is None)."""
    text = ast.unparse(fn)
    t, i = re.escape(table), re.escape(item)
    if key is None:
        return re.search(rf"\b{t}\.append\({i}\)", text) is not None
    k = re.escape(key)
    return (
        re.search(rf"\b{t}\.setdefault\({k}, \[\]\)\.append\({i}\)|\b{t}\[{k}\]\.append\({i}\)", text) is not None
        or re.search(rf"\b{t}\[{k}\] = {i}\b", text) is not None
    )


def registrations(info: ModuleInfo, decorator: str, key: int | None) -> list[tuple[str | None, str]]:
    """The module's top-level functions decorated with `@decorator("key")` (`@decorator` when
    `key` is None), in the order they are defined: (key, function name)."""
    if decorator not in info.text:
        return []
    tree = _parsed(info)
    found: list[tuple[str | None, str]] = []
    for top in tree.body if tree is not None else ():
        if not isinstance(top, ast.FunctionDef):
            continue
        for made in top.decorator_list:
            called = made.func if isinstance(made, ast.Call) else made
            if _last_name(called) != decorator:
                continue
            if key is None and not isinstance(made, ast.Call):
                found.append((None, top.name))
            elif key is not None and isinstance(made, ast.Call) and len(made.args) > key:
                named = made.args[key]
                if isinstance(named, ast.Constant) and isinstance(named.value, str):
                    found.append((named.value, top.name))
    return found


def _table_of_callables(node: ast.expr) -> bool:
    """`{False: lambda ...: ..., True: _requeue}` (constant keys) or `(_clear, _log)`: each
    value a lambda or a name."""
    if isinstance(node, (ast.Tuple, ast.List)):
        return bool(node.elts) and all(isinstance(value, (ast.Lambda, ast.Name)) for value in node.elts)
    return (
        isinstance(node, ast.Dict)
        and bool(node.values)
        and all(
            isinstance(key, ast.Constant) and isinstance(value, (ast.Lambda, ast.Name))
            for key, value in zip(node.keys, node.values, strict=True)
        )
    )


_CLASS_STRINGS: dict[int, tuple[ModuleInfo, dict[tuple[str, str], tuple[str, str]]]] = {}


def _parsed(info: ModuleInfo) -> ast.Module | None:
    """The module's text parsed with Python's own parser, not LibCST's (the module may be big,
    outlined, and parsed for this alone: a fifth of the time), for its record classes and
    class-level strings; None when it does not parse. The last module's tree is kept (its
    classes are asked in turn), no more: a tree is large."""
    if _LAST_PARSED and _LAST_PARSED[0][0] is info:
        return _LAST_PARSED[0][1]
    try:
        tree: ast.Module | None = ast.parse(info.text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    _LAST_PARSED[:] = [(info, tree)]
    return tree


_LAST_PARSED: list[tuple[ModuleInfo, ast.Module | None]] = []


def _self_writes(info: ModuleInfo) -> tuple[dict[str, int], frozenset[str]]:
    """How often each `self.x` is assigned in a module's text, and the `self.x` changed in
    place (every attribute when the module does `setattr(self, ...)`); read once per text."""
    known = _WRITES.get(id(info))
    if known is None or known[0] is not info:
        counts: dict[str, int] = {}
        for match in _WRITE.finditer(info.text):
            counts[match.group(1)] = counts.get(match.group(1), 0) + 1
        changed = {name for match in _CHANGE.finditer(info.text) for name in match.groups() if name}
        if re.search(r"\bsetattr\(\s*self\b", info.text):
            changed |= set(counts)
        known = _WRITES[id(info)] = (info, counts, frozenset(changed))
    return known[1], known[2]


def record_fields(cls: ClassInfo) -> tuple[str, ...] | None:
    """The fields of a `@dataclass` or `NamedTuple` class, in the order its constructor
    takes them (annotated class-level names, `ClassVar`s left out); None for another class."""
    text = cls.module.text
    name = re.escape(cls.name)
    if not (
        re.search(rf"@[\w.]*dataclass\b[^\n]*\n(?:[ \t]*@[^\n]*\n)*[ \t]*class {name}\b", text)
        or re.search(rf"class {name}\([\w.]*NamedTuple\)", text)
    ):
        return None  # read off the text first: no module is parsed for most classes
    return _record(cls)[0]


def record_empties(cls: ClassInfo) -> tuple[tuple[str, Val.Value], ...]:
    """The fields of a record class the walk knows the value of when the constructor does not
    fill them: an empty collection (`evicted: set = field(default_factory=set)`), a literal
    flag or string (`evict: bool = True`): (field, its value)."""
    return _record(cls)[1] if record_fields(cls) is not None else ()


def _record(cls: ClassInfo) -> tuple[tuple[str, ...] | None, tuple[tuple[str, Val.Value], ...]]:
    known = _RECORDS.get(id(cls))
    if known is None or known[0] is not cls:
        known = _RECORDS[id(cls)] = (cls, _record_fields(cls))
    return known[1]


_RECORDS: dict[int, tuple[ClassInfo, tuple[tuple[str, ...] | None, tuple[tuple[str, Val.Value], ...]]]] = {}
#: `field(default_factory=...)` makers of an empty collection: what the walk holds it as
_EMPTY_FACTORIES = {"set": "ids", "list": "ids", "frozenset": "ids", "dict": "table", "defaultdict": "table"}


def _record_fields(cls: ClassInfo) -> tuple[tuple[str, ...] | None, tuple[tuple[str, Val.Value], ...]]:
    tree = _parsed(cls.module)
    if tree is None:
        return None, ()
    node = next((t for t in tree.body if isinstance(t, ast.ClassDef) and t.name == cls.name), None)
    if node is None:
        return None, ()
    bases = [_last_name(b) for b in node.bases]
    made = [d.func if isinstance(d, ast.Call) else d for d in node.decorator_list]
    dataclass = any(_last_name(d) == "dataclass" for d in made)
    # a dataclass deriving from another takes its base's fields first: not modelled
    if not (bases == ["NamedTuple"] or (dataclass and set(bases) <= {"object"})):
        return None, ()
    lines = [
        line
        for line in node.body
        if isinstance(line, ast.AnnAssign)
        and isinstance(line.target, ast.Name)
        and "ClassVar" not in ast.unparse(line.annotation)
    ]
    empties: list[tuple[str, Val.Value]] = []
    for line in lines:
        made_by = _default_factory(line.value)
        name = cast(ast.Name, line.target).id
        if made_by in _EMPTY_FACTORIES:
            empty = Val.ids(None, "empty") if _EMPTY_FACTORIES[made_by] == "ids" else Val.Table(())
            empties.append((name, empty))
        elif isinstance(line.value, ast.Constant) and type(line.value.value) in (bool, str):
            constant = line.value.value  # `evict: bool = True`
            empties.append((name, Val.Bool(constant) if isinstance(constant, bool) else Val.Str(str(constant))))
    return tuple(cast(ast.Name, line.target).id for line in lines), tuple(empties)


def record_factories(cls: ClassInfo) -> tuple[tuple[str, str], ...]:
    """The fields of a record class made by a lambda (`evict: bool = field(default_factory=
    lambda: _flag("FT_EVICT", "1"))`): (field, the lambda's body as source), for the walk to
    compute in the class's module."""
    tree = _parsed(cls.module) if record_fields(cls) is not None else None
    node = next((t for t in tree.body if isinstance(t, ast.ClassDef) and t.name == cls.name), None) if tree else None
    made: list[tuple[str, str]] = []
    for line in node.body if node is not None else ():
        value = line.value if isinstance(line, ast.AnnAssign) and isinstance(line.target, ast.Name) else None
        if not (isinstance(value, ast.Call) and _last_name(value.func) == "field"):
            continue
        factory = next((k.value for k in value.keywords if k.arg == "default_factory"), None)
        if isinstance(factory, ast.Lambda) and not factory.args.args:
            made.append((cast(ast.Name, cast(ast.AnnAssign, line).target).id, ast.unparse(factory.body)))
    return tuple(made)


def _default_factory(value: ast.expr | None) -> str:
    """`field(default_factory=set)`: "set"; "" for another default."""
    if not (isinstance(value, ast.Call) and _last_name(value.func) == "field"):
        return ""
    return next((_last_name(k.value) for k in value.keywords if k.arg == "default_factory"), "")


def _last_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _plain(value: cst.BaseExpression) -> bool:
    """A value whose calls only make values: constructors (CamelCase), `partial`, ... (a
    lambda's body is not called here)."""
    stack: list[cst.CSTNode] = [value]
    while stack:
        node = stack.pop()
        if not isinstance(node, cst.Lambda):
            stack.extend(node.children)
        if isinstance(node, cst.Call):
            name = ir.dotted_name(node.func) or ""
            parts = [part.lstrip("_") for part in name.split(".")]
            maker = parts[-1][:1].isupper() or (len(parts) > 1 and parts[-2][:1].isupper())
            if not (name in _VALUE_CALLS or maker):  # `Policy(...)`, `Config.from_env()`
                return False
    return True


def all_nodes(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`root` and every node below it (libcst.matchers costs a quarter second to import)."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.children)


def target_names(target: cst.BaseExpression | None) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [el.value.value for el in target.elements if isinstance(el.value, cst.Name)]
    return []


class _Comparisons(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.Comparison] = []

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self.found.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False


#: a request's phase (prefill or decode): a request in either has a dirty tail after a failed step
_PHASE_FIELDS = ("num_prompt_tokens", "num_output_tokens")


def phase_test(test: cst.CSTNode) -> bool:
    """`req.num_output_tokens > 0`, `req.num_computed_tokens <= req.num_prompt_tokens`: a test
    of whether the request is in prefill or decode, not of its dirty tail (which either has)."""
    text = ir.code_of(test)
    return V.NUM_IN_FLIGHT_TOKENS not in text and any(word in text for word in _PHASE_FIELDS)


def predicate_test(fn: Function | None, lam: cst.Lambda | None) -> cst.BaseExpression | None:
    """What a one-line predicate returns: a lambda's body, a function's `return <test>` when
    that is its only statement; None otherwise."""
    if lam is not None:
        return lam.body
    node = fn.node if fn is not None else None
    body = node.body.body if node is not None and isinstance(node.body, cst.IndentedBlock) else ()
    statements = [s for s in body if not _docstring(s)]
    if len(statements) != 1 or not isinstance(statements[0], cst.SimpleStatementLine):
        return None
    line = statements[0].body
    return line[0].value if len(line) == 1 and isinstance(line[0], cst.Return) else None


def _docstring(statement: cst.CSTNode) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def free_names(fn: Function) -> tuple[str, ...]:
    """The names a nested function reads that it does not bind as a parameter (those of the
    function it is defined in, among others), sorted."""
    params = set(fn.params)
    return tuple(sorted(n for n in names_in(fn.node.body) if n not in params))


def names_in(node: cst.CSTNode) -> set[str]:
    """The names an expression reads."""
    return {n.value for n in all_nodes(node) if isinstance(n, cst.Name)}


def derived_names(name: str, scope: Sequence[cst.CSTNode]) -> set[str]:
    """`name` and the locals assigned in `scope` from it, directly or through another
    (`start = i * size; end = start + size`)."""
    assigns = [
        (n.targets[0].target.value, names_in(n.value))
        for root in scope
        for n in all_nodes(root)
        if isinstance(n, cst.Assign) and len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name)
    ]
    derived, grown = {name}, True
    while grown:
        grown = False
        for target, read in assigns:
            if target not in derived and read & derived:
                derived.add(target)
                grown = True
    return derived


def counted_names(scope: Sequence[cst.CSTNode]) -> list[str]:
    """The names `scope` adds one to (`pos += 1`, `pos = pos + 1`)."""
    found = []
    for root in scope:
        for n in all_nodes(root):
            if isinstance(n, cst.AugAssign) and isinstance(n.operator, cst.AddAssign):
                target, step = n.target, n.value
            elif (
                isinstance(n, cst.Assign)
                and len(n.targets) == 1
                and isinstance(n.value, cst.BinaryOperation)
                and isinstance(n.value.operator, cst.Add)
                and isinstance(n.value.left, cst.Name)
                and isinstance(n.targets[0].target, cst.Name)
                and n.value.left.value == n.targets[0].target.value
            ):
                target, step = n.targets[0].target, n.value.right
            else:
                continue
            if isinstance(target, cst.Name) and isinstance(step, cst.Integer) and step.value == "1":
                found.append(target.value)
    return found


def comparisons(node: cst.CSTNode) -> list[cst.Comparison]:
    visitor = _Comparisons()
    node.visit(visitor)
    return visitor.found


def request_node(node: cst.CSTNode) -> cst.BaseExpression | None:
    """The request argument of a preempt call, however the call is spelled:
    `functools.partial(s._preempt_request, req)(ts)` (the partial's arguments come first),
    `operator.methodcaller("_preempt_request", req, ts)(s)` (the methodcaller's), and
    `s._preempt_request(**{"request": req, ...})` (a literal dict's item)."""
    if not isinstance(node, cst.Call):
        return None
    args = list(node.args)
    if isinstance(node.func, cst.Call):
        maker = ir.called_name(node.func.func)
        if maker == "partial":
            args = [*node.func.args[1:], *node.args]
        elif maker == "methodcaller":
            args = list(node.func.args[1:])
    spread = []
    for arg in args:
        if arg.star == "**" and isinstance(arg.value, cst.Dict):
            for element in arg.value.elements:
                if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
                    name = element.key.evaluated_value
                    if isinstance(name, str) and name.isidentifier():
                        spread.append(cst.Arg(value=element.value, keyword=cst.Name(name)))
        else:
            spread.append(arg)
    found = ir.request_argument(cst.Call(func=node.func, args=spread))
    return found.value if found is not None else None


_LITERALS: dict[str, Val.Value] = {"True": Val.TRUE, "False": Val.FALSE, "None": Val.NONE}


def string(node: cst.SimpleString) -> Val.Value:
    """A string literal's value; unknown where it cannot be read (or is bytes)."""
    try:
        text = node.evaluated_value
    except Exception:  # noqa: BLE001 - a string we cannot read is just unknown
        return None
    return Val.Str(text) if isinstance(text, str) else None


def literal(node: cst.BaseExpression) -> Val.Value:
    if isinstance(node, cst.Name):
        return _LITERALS.get(node.value)
    if isinstance(node, cst.Integer):
        return Val.ZERO if node.value == "0" else Val.OTHER
    if isinstance(node, cst.SimpleString):
        return string(node)
    if isinstance(node, (cst.Tuple, cst.List)):
        items = tuple(literal(el.value) for el in node.elements)
        return Val.Seq(items) if all(items) else None
    return None


def defaults(fn: Function) -> dict[str, Val.Value]:
    """Literal defaults of a function's parameters (`evict=False`)."""
    out: dict[str, Val.Value] = {}
    params = fn.node.params
    for param in (*params.params, *params.kwonly_params):
        if param.default is not None:
            value = literal(param.default)
            if value is not None:
                out[param.name.value] = value
    return out


_CONSTANTS: dict[object, tuple[str, dict[str, Val.Value]]] = {}
_TREES: dict[int, tuple[ModuleInfo, cst.Module | None]] = {}


def bound_once(body: cst.CSTNode, name: str) -> cst.BaseExpression | None:
    """The value `name` is assigned in `body` when that is its one binding there (a plain
    `=`; nested definitions left out), else None."""
    values: list[cst.BaseExpression] = []
    stack: list[cst.CSTNode] = [body]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        stack.extend(current.children)
        if isinstance(current, cst.Assign):
            for target in current.targets:
                if isinstance(target.target, cst.Name) and target.target.value == name:
                    values.append(current.value)
                elif _names(target.target, name):
                    return None
            continue
        bound = getattr(current, "target", None) or getattr(current, "asname", None)
        if isinstance(current, (cst.AugAssign, cst.AnnAssign, cst.NamedExpr, cst.For, cst.WithItem)) and _names(
            bound, name
        ):
            return None  # bound another way too
    return values[0] if len(values) == 1 else None


def _names(node: cst.CSTNode | None, name: str) -> bool:
    return node is not None and any(isinstance(n, cst.Name) and n.value == name for n in all_nodes(node))


def module_tree(info: ModuleInfo) -> cst.Module | None:
    """The module's whole tree: its own, or its text parsed once (an outlined module keeps
    only its functions' trees; asked for the class bodies of unresolved `self.x()` only)."""
    if info.module is not None:
        return info.module
    found = _TREES.get(id(info))
    if found is None or found[0] is not info:
        try:
            tree = cst.parse_module(info.text)
        except Exception:  # noqa: BLE001 - a module LibCST rejects has no class body to read
            tree = None
        found = _TREES[id(info)] = (info, tree)
    return found[1]


def module_constant(info: ModuleInfo, name: str) -> Val.Value:
    """A module-level `NAME = <literal>` (a tuple of counter names, say), read from the
    module's text with Python's parser (the module may be outlined)."""
    key = info.path  # by path and text: a ModuleInfo made again from the same text reuses it
    # an outlined module: its frame (outline.Outline.frame: the functions cut out), so an
    # edit inside a function of a big file does not parse the file again (issue 24)
    text = info.outline.frame() if info.outline is not None else info.text
    table = _CONSTANTS.get(key)
    if table is None or table[0] != text:
        table = _CONSTANTS[key] = (text, _constants(text, info.text))
    return table[1].get(name)


def _table_of_names(node: ast.Dict) -> bool:
    """`{"abort": _abort, "resume": _requeue}`: keyed by strings, each value a bare name."""
    return bool(node.values) and all(
        isinstance(key, ast.Constant) and isinstance(key.value, str) and isinstance(value, ast.Name)
        for key, value in zip(node.keys, node.values, strict=True)
    )


def _literal_table(node: ast.Dict) -> Val.Table | None:
    """A dict literal keyed by strings: its entries, a value that is no literal unknown."""
    items: list[tuple[str, Val.Value]] = []
    for key, value in zip(node.keys, node.values, strict=True):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            return None
        try:
            constant = ast.literal_eval(value)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            constant = None
        literal: Val.Value = None
        if type(constant) is bool:
            literal = Val.Bool(constant)
        elif type(constant) is int:
            literal = Val.ZERO if constant == 0 else Val.OTHER
        elif isinstance(constant, str):
            literal = Val.Str(constant)
        items.append((key.value, literal))
    return Val.Table(tuple(items))


def _never_changed(text: str, name: str) -> bool:
    """No `NAME[...] = `, `NAME.update(...)` (or another method that changes a dict) in the text."""
    escaped = re.escape(name)
    changed = rf"\b{escaped}\s*\[[^\]\n]*\]\s*[-+|]?=|\b{escaped}\.(?:update|setdefault|pop|popitem|clear)\(|del\s+{escaped}\["
    return re.search(changed, text) is None


def module_name_list(info: ModuleInfo, name: str) -> tuple[str, ...] | None:
    """A module-level `NAME = [a, b, c]` of bare names (functions, say): the names."""
    found = module_constant(info, _NAMES + name)
    return tuple(cast(Val.Str, item).text for item in found.items) if isinstance(found, Val.Seq) else None


_NAMES = "\x00names:"  # the key a list of bare names is kept under in a module's constants
_EXPRESSION = "\x00expression:"  # the key of an expression reading the environment, as source
_ENVIRONMENT = re.compile(r"\b(?:environ|getenv)\b")
#: makers of callables bound at module level (`_abort_all = methodcaller("finish_requests", ...)`)
_MAKERS = frozenset({"methodcaller", "attrgetter", "partial", "SimpleNamespace"})


def module_expression(info: ModuleInfo, name: str) -> str | None:
    """A module-level `NAME = <expression reading the environment>` (`os.environ.get("FT_EVICT",
    "1") == "1"`) or `name = methodcaller(...)` (`attrgetter`, `partial`): its source, for the walk
    to evaluate as the handler runs with no variable set."""
    found = module_constant(info, _EXPRESSION + name)
    return found.text if isinstance(found, Val.Str) else None


def _expression_source(value: ast.expr, whole: str, name: str) -> str | None:
    """The source of a module-level value the walk evaluates where it is read: an expression
    reading the environment (`os.environ.get(...) == "1"`) or a call of a function of the
    module (`_flag("FT_EVICT", "1")`), an object of a class (`bus = Signal("abort")`), a maker
    of a callable
    (`methodcaller("reset_prefix_cache")`), a dict of functions the module never changes
    (`_FINISH = {"abort": _abort, ...}`); None for another value."""
    if isinstance(value, ast.Dict) and _table_of_names(value) and _never_changed(whole, name):
        return ast.unparse(value)
    if not isinstance(value, (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Call)):
        return None
    source = ast.unparse(value)
    if _ENVIRONMENT.search(source) or (isinstance(value, ast.Call) and _last_name(value.func) in _MAKERS):
        return source
    if isinstance(value, ast.Call) and _last_name(value.func).lstrip("_")[:1].isupper():
        return source  # `before_abort = Signal("before_abort")`: an object of a class
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):  # `EVICT = _flag("FT_EVICT", "1")`
        defined = re.search(rf"^def {re.escape(value.func.id)}\(", whole, re.MULTILINE)
        return source if defined else None
    return None


def _constants(text: str, whole: str) -> dict[str, Val.Value]:
    found: dict[str, Val.Value] = {}
    tree = None
    for source in (text, whole) if text is not whole else (text,):
        try:
            tree = ast.parse(source)
            break
        except (SyntaxError, ValueError):
            continue
    for statement in tree.body if tree is not None else ():
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value:
            name, value = statement.target.id, statement.value
        elif (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            name, value = statement.targets[0].id, statement.value
        else:
            continue
        if (
            isinstance(value, ast.Call)
            and _last_name(value.func) == "itemgetter"
            and len(value.args) == 1
            and isinstance(value.args[0], ast.Constant)
            and type(value.args[0].value) is int
        ):
            found[name] = Val.ItemOf(value.args[0].value)  # `_first = itemgetter(0)` at module level
            continue
        if isinstance(value, (ast.List, ast.Tuple)) and value.elts and all(isinstance(e, ast.Name) for e in value.elts):
            names = tuple(cast(ast.Name, e).id for e in value.elts)
            found[_NAMES + name] = Val.Seq(tuple(Val.Str(n) for n in names))
            continue
        evaluated = _expression_source(value, whole, name)
        if evaluated is not None:
            found[_EXPRESSION + name] = Val.Str(evaluated)
            continue
        if isinstance(value, ast.Dict) and _never_changed(whole, name):
            table = _literal_table(value)
            if table is not None:  # `CONFIG = {"margin_blocks": 1, "status": RequestStatus.X}`
                found[name] = table
                continue
        literal = _literal(value, whole, name)
        if literal is not None:
            found[name] = literal
    return found


def _literal(value: ast.expr, whole: str, name: str) -> Val.Value:
    """A module-level literal: strings (alone or in a tuple), a flag no function rebinds
    (`global EVICT`), a number as its literal would be (`SAFETY_BLOCKS = 1`)."""
    try:
        constant = ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if isinstance(constant, (tuple, list)) and constant and all(isinstance(x, str) for x in constant):
        return Val.Seq(tuple(Val.Str(x) for x in constant))
    if isinstance(constant, str):
        return Val.Str(constant)
    if type(constant) is bool and not re.search(rf"\bglobal\b[^\n]*\b{re.escape(name)}\b", whole):
        return Val.Bool(constant)
    if type(constant) is int:
        return Val.ZERO if constant == 0 else Val.OTHER
    return None


def decided(test: cst.BaseExpression, state: State, truth: bool | None, holds: bool) -> State:
    """`if self.resume:` (`if not flag:`) on a path that took it one way: that path records
    the flag's truth, so a later test of it goes the same way (a switch tested twice is one
    decision, not four paths); the flag's value is otherwise left as it was."""
    tested = tested_flag(test)
    if truth is not None or tested is None:
        return state
    name, negated = tested
    return state.bind(_truth_key(name), Val.Bool(holds != negated))


def recorded(test: cst.BaseExpression, state: State) -> bool | None:
    """The truth of `test` as an earlier test of the same flag on this path decided it."""
    tested = tested_flag(test)
    recorded = state.env.get(_truth_key(tested[0])) if tested is not None else None
    if not isinstance(recorded, Val.Bool) or tested is None:
        return None
    return recorded.flag != tested[1]


def tested_flag(test: cst.BaseExpression) -> tuple[str, bool] | None:
    """`flag`, `self.resume`, `not flag`: (the dotted name, negated); None for another test."""
    negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
    inner = test.expression if isinstance(test, cst.UnaryOperation) and negated else test
    name = ir.dotted_name(inner) if isinstance(inner, (cst.Name, cst.Attribute)) else None
    return (name, negated) if name is not None else None


TRUTH = "<truth>"  # the key a path records a flag's tested truth under (see decided)


def _truth_key(name: str) -> str:
    """Where a path records the truth of flag `name`: the handler's own flags (`self.resume`)
    among the objects' attributes, kept when a method called returns (one `self` throughout)."""
    return f"{HEAP}{TRUTH}{name}" if name.startswith("self.") else TRUTH + name


def forget_truth(state: State, name: str | None) -> State:
    """`name` bound anew: what was recorded of it and of its attributes (`span.empty` when
    a loop binds `span` to the next item) is tested anew."""
    if name is None:
        return state
    key = _truth_key(name)
    stale = [k for k in state.env if k == key or (k.startswith(key) and k[len(key)] == ".")]
    if not stale:
        return state
    return state.replace(env={k: v for k, v in state.env.items() if k not in stale})
