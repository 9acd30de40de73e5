"""A function body reduced to what fault-path analysis needs: effects in order, and
the structured control flow around them (sequence, branches, loops, try, exits).

Built once per function from its LibCST node; the path rules (FT006, FT007, FT008)
and the helper summaries walk this, never the CST.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import libcst as cst

from ftlint.core import vocabulary as V
from ftlint.syntax import matchers as m


@dataclass(eq=False)
class Effect:
    """One call (or counter reset) that matters on a fault path."""

    # "evict" | "free" | "preempt" | "reset-prefix-cache" | "call" | "reset-counter", or "reference":
    # a function named as a value of a dict literal (a method table, `{True: self._resume}`),
    # not called there but maybe through the table
    kind: str
    name: str  # called name, or the counter field for "reset-counter"
    node: cst.CSTNode  # the Call (or the assignment target) to report at
    statement: cst.CSTNode  # the statement holding it (fixes insert after this)
    callee: tuple[str, str] | None = None  # ("name", "f") | ("self", "m") | ("dotted", "a.b.f") | ("super", "m")
    target: str | None = None  # code of the request argument (preempt) / reset receiver
    drop_stale_output: bool = False
    args: tuple[str | None, ...] = ()  # code of positional args, for parameter mapping
    keywords: tuple[tuple[str, str], ...] = ()  # (name, code) of keyword args
    # `(self._resume if flag else self._abort)(...)`: no one callee, but these it may be
    alternatives: tuple[tuple[str, str], ...] = ()
    # a "reference" that is a call's argument (`steps.append(self._evict)`), not a dict's value
    handed: bool = False


@dataclass
class Seq:
    items: list[Node] = field(default_factory=list)


@dataclass
class Choice:
    """Exactly one branch runs (if/elif/else, match)."""

    branches: list[Seq]


@dataclass
class Loop:
    """Body runs (at least once: a loop over no requests frees nothing), then orelse."""

    body: Seq
    orelse: Seq


@dataclass
class Try:
    body: Seq
    handlers: list[Seq]
    orelse: Seq
    final: Seq


@dataclass
class Exit:
    kind: str  # "return" | "raise" | "break" | "continue"


Node = Effect | Seq | Choice | Loop | Try | Exit


def is_own_class(node: cst.BaseExpression) -> bool:
    """`type(self)` or `self.__class__`: the class of the instance, for `type(self).m()`."""
    if isinstance(node, cst.Attribute) and node.attr.value == "__class__":
        return isinstance(node.value, cst.Name) and node.value.value == "self"
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "type"
        and len(node.args) == 1
        and isinstance(node.args[0].value, cst.Name)
        and node.args[0].value.value == "self"
    )


def callee_ref(func: cst.BaseExpression) -> tuple[str, str] | None:
    """How a call names its target, for resolution against the project."""
    if isinstance(func, cst.Name):
        return ("name", func.value)
    if isinstance(func, cst.Attribute):
        base = func.value
        if isinstance(base, cst.Name) and base.value in ("self", "cls"):
            return ("self", func.attr.value)
        if is_own_class(base):  # `type(self).m()`, `self.__class__.m()`
            return ("self", func.attr.value)
        if m.matches(base, m.Call(func=m.Name("super"))):
            return ("super", func.attr.value)
        dotted = dotted_name(func)
        if dotted:
            return ("dotted", dotted)
    return None


def dotted_name(node: cst.BaseExpression) -> str | None:
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def called_name(func: cst.BaseExpression) -> str | None:
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


_EMPTY_MODULE = cst.Module(body=[])


def code_of(node: cst.CSTNode) -> str:
    return _EMPTY_MODULE.code_for_node(node)


def is_true(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def preempt_drops_output(call: cst.Call) -> bool:
    """`_preempt_request(req, ts, drop_stale_output=True)` (or True as 3rd positional)."""
    positional = [a for a in call.args if a.keyword is None and a.star == ""]
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == V.DROP_STALE_OUTPUT:
            return is_true(arg.value)
    return len(positional) >= 3 and is_true(positional[2].value)


#: keyword names a preempt's request is passed by (vLLM's `request`; forks' helpers
#: `req`, `preempted_req`): a keyword argument counts like the positional one
REQUEST_KEYWORDS = ("request", "req", "preempted_req", "preempted_request")


def request_argument(call: cst.Call) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in REQUEST_KEYWORDS:
            return arg
    for arg in call.args:
        if arg.keyword is None and arg.star == "":
            return arg
    return None


def is_kv_manager_free(func: cst.BaseExpression) -> bool:
    if not (isinstance(func, cst.Attribute) and func.attr.value == V.KV_MANAGER_FREE[1]):
        return False
    receiver = func.value
    name = receiver.attr.value if isinstance(receiver, cst.Attribute) else getattr(receiver, "value", None)
    return name == V.KV_MANAGER_FREE[0]


def classify_call(call: cst.Call) -> str:
    """The effect kind of a call by the vLLM vocabulary, or "call" (maybe a project helper)."""
    name = called_name(call.func)
    if name in V.EVICT_PRIMITIVES:
        return "evict"
    if name in V.PREEMPT_PRIMITIVES:
        return "preempt"
    if name in V.FREE_PRIMITIVES or is_kv_manager_free(call.func):
        return "free"
    if name == V.RESET_PREFIX_CACHE:
        return "reset-prefix-cache"
    return "call"


def _handed_ref(value: cst.BaseExpression) -> tuple[str, str] | None:
    """A call argument that names project code: a bound method (`self._evict`), or a CAPS
    module-level constant (a tuple of stage functions)."""
    if isinstance(value, cst.Name) and value.value.isupper():
        return ("name", value.value)
    if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) and value.value.value == "self":
        return ("self", value.attr.value)
    return None


class _CallCollector(cst.CSTVisitor):
    """Calls and counter resets inside one simple statement (or a compound header),
    in evaluation order (arguments before the call), skipping lambda bodies."""

    def __init__(self, statement: cst.CSTNode) -> None:
        self.statement = statement
        self.effects: list[Effect] = []

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def leave_Call(self, node: cst.Call) -> None:
        kind = classify_call(node)
        name = called_name(node.func) or ""
        effect = Effect(kind=kind, name=name, node=node, statement=self.statement, callee=callee_ref(node.func))
        if isinstance(node.func, cst.IfExp):
            refs = (callee_ref(node.func.body), callee_ref(node.func.orelse))
            effect.alternatives = tuple(ref for ref in refs if ref is not None)
        if kind in ("preempt", "free"):
            arg = request_argument(node)
            effect.target = code_of(arg.value) if arg is not None else None
            effect.drop_stale_output = kind == "preempt" and preempt_drops_output(node)
        effect.args = tuple(code_of(a.value) for a in node.args if a.keyword is None and a.star == "")
        effect.keywords = tuple((a.keyword.value, code_of(a.value)) for a in node.args if a.keyword is not None)
        self.effects.append(effect)
        for arg in node.args:  # `steps.append(self._evict)`, `reduce(step, STAGES, ctx)`: handed on, maybe called later
            ref = _handed_ref(arg.value)
            if ref is not None:
                self.effects.append(
                    Effect(
                        kind="reference", name=ref[1], node=arg.value, statement=self.statement, callee=ref, handed=True
                    )
                )

    def _resets(self, targets: list[cst.BaseExpression], value: cst.BaseExpression) -> None:
        if not m.matches(value, m.Integer("0")):
            return
        for target in targets:
            if isinstance(target, cst.Attribute) and target.attr.value in V.COUNTER_FIELDS:
                self.effects.append(
                    Effect(
                        kind="reset-counter",
                        name=target.attr.value,
                        node=target,
                        statement=self.statement,
                        target=code_of(target.value),
                    )
                )

    def leave_Dict(self, node: cst.Dict) -> None:
        for element in node.elements:
            value = element.value
            if isinstance(element, cst.DictElement) and isinstance(value, (cst.Name, cst.Attribute)):
                callee = callee_ref(value)
                if callee is not None and callee[0] in ("self", "name", "dotted"):
                    name = called_name(value) or ""
                    self.effects.append(
                        Effect(kind="reference", name=name, node=value, statement=self.statement, callee=callee)
                    )

    def leave_Assign(self, node: cst.Assign) -> None:
        self._resets([t.target for t in node.targets], node.value)

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._resets([node.target], node.value)


def _effects_in(node: cst.CSTNode | None, statement: cst.CSTNode) -> list[Effect]:
    if node is None:
        return []
    collector = _CallCollector(statement)
    node.visit(collector)
    return collector.effects


def build(body: cst.BaseSuite) -> Seq:
    """The IR of a function body (or any suite)."""
    return _suite(body)


def _suite(suite: cst.CSTNode | None) -> Seq:
    seq = Seq()
    if suite is None:
        return seq
    if isinstance(suite, cst.SimpleStatementSuite):
        for small in suite.body:
            _small(small, suite, seq)
        return seq
    body = suite.body if isinstance(suite, cst.IndentedBlock) else getattr(suite, "body", [])
    for statement in body:
        _statement(statement, seq)
    return seq


def _small(small: cst.BaseSmallStatement, statement: cst.CSTNode, seq: Seq) -> None:
    seq.items.extend(_effects_in(small, statement))
    if isinstance(small, cst.Return):
        seq.items.append(Exit("return"))
    elif isinstance(small, cst.Raise):
        seq.items.append(Exit("raise"))
    elif isinstance(small, cst.Break):
        seq.items.append(Exit("break"))
    elif isinstance(small, cst.Continue):
        seq.items.append(Exit("continue"))


def _statement(statement: cst.CSTNode, seq: Seq) -> None:
    if isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            _small(small, statement, seq)
    elif isinstance(statement, cst.If):
        _if_chain(statement, seq)
    elif isinstance(statement, (cst.For, cst.While)):
        header = statement.iter if isinstance(statement, cst.For) else statement.test
        seq.items.extend(_effects_in(header, statement))
        orelse = _suite(statement.orelse.body) if statement.orelse else Seq()
        seq.items.append(Loop(_suite(statement.body), orelse))
    elif isinstance(statement, (cst.Try, cst.TryStar)):
        seq.items.append(
            Try(
                body=_suite(statement.body),
                handlers=[_suite(h.body) for h in statement.handlers],
                orelse=_suite(statement.orelse.body) if statement.orelse else Seq(),
                final=_suite(statement.finalbody.body) if statement.finalbody else Seq(),
            )
        )
    elif isinstance(statement, cst.With):
        for item in statement.items:
            seq.items.extend(_effects_in(item.item, statement))
        seq.items.extend(_suite(statement.body).items)
    elif isinstance(statement, cst.Match):
        seq.items.extend(_effects_in(statement.subject, statement))
        branches = [_suite(case.body) for case in statement.cases]
        irrefutable = any(
            isinstance(case.pattern, cst.MatchAs) and case.pattern.pattern is None and case.guard is None
            for case in statement.cases
        )
        if not irrefutable:
            branches.append(Seq())
        seq.items.append(Choice(branches))
    # FunctionDef / ClassDef bodies do not run where they are defined.


def _if_chain(statement: cst.If, seq: Seq) -> None:
    """An if/elif/else chain, built in a loop (a chain of 1,000 elifs must not recurse):
    one Choice for the elifs whose tests call nothing (exactly one branch runs); an elif
    whose test has effects opens a nested Choice after them, as `else: if ...` would."""
    seq.items.extend(_effects_in(statement.test, statement))
    choice = Choice([_suite(statement.body)])
    seq.items.append(choice)
    orelse = statement.orelse
    while isinstance(orelse, cst.If):
        effects = _effects_in(orelse.test, orelse)
        if effects:
            nested = Seq(list(effects))
            choice.branches.append(nested)
            choice = Choice([])
            nested.items.append(choice)
        choice.branches.append(_suite(orelse.body))
        orelse = orelse.orelse
    choice.branches.append(_suite(orelse.body) if isinstance(orelse, cst.Else) else Seq())


def iter_effects(node: Node) -> Iterator[Effect]:
    """Every Effect in the IR, in source order."""
    if isinstance(node, Effect):
        yield node
    elif isinstance(node, Seq):
        for item in node.items:
            yield from iter_effects(item)
    elif isinstance(node, Choice):
        for branch in node.branches:
            yield from iter_effects(branch)
    elif isinstance(node, Loop):
        yield from iter_effects(node.body)
        yield from iter_effects(node.orelse)
    elif isinstance(node, Try):
        for part in (node.body, *node.handlers, node.orelse, node.final):
            yield from iter_effects(part)


def describe(effect: Effect) -> str:
    """`scheduler.finish_requests()` — how a message names the call behind an effect."""
    if isinstance(effect.node, cst.Call):
        return f"`{code_of(effect.node.func)}()`"
    return f"`{effect.name}`"


def call_text(node: cst.CSTNode) -> str:
    """A call as messages show it: "`scheduler.finish_requests()`" (its arguments left out)."""
    if isinstance(node, cst.Call):
        return f"`{code_of(node.func)}()`"
    return "`...`"
