"""The import graph of ftlint's own modules, read from the sources (ast): no import cycle and
no private name used across modules, as the README's "data flows one way" says.

Every import counts, also those inside functions (they hide a cycle, they do not remove it).
`if TYPE_CHECKING:` blocks (annotations only, nothing runs) are left out of the graph that
runs, but not of the one the cycle and layer checks also read: two modules that name each
other's types are one concept split in two, whatever runs. rules/ ships as ftlint.rules. The
graph is recomputed on every run, so a new module is covered without edits.

KNOWN_CYCLES and KNOWN_PRIVATE_IMPORTS are today's violations (issue 13), listed so that the
test guards against new ones while those are being removed. The lists are exact: a new
violation fails, and so does a listed one that has gone (delete its entry; the lists only shrink).
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
from collections.abc import Iterator
from pathlib import Path

from tests.helpers import ROOT

#: Strongly connected groups of modules (each module reaches every other one by imports).
KNOWN_CYCLES: set[frozenset[str]] = set()

#: (importing module, module that defines the name, private name).
KNOWN_PRIVATE_IMPORTS: set[tuple[str, str, str]] = set()


def project_modules() -> dict[str, Path]:
    """Module name -> source file, for ftlint/ and rules/ (as ftlint.rules)."""
    modules = {}
    for top, package in ((ROOT / "ftlint", "ftlint"), (ROOT / "rules", "ftlint.rules")):
        for path in sorted(top.rglob("*.py")):
            parts = path.relative_to(top).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join((package, *parts))] = path
    return modules


def _is_package(name: str, modules: dict[str, Path]) -> bool:
    return modules[name].name == "__init__.py"


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """id() of every node under an `if TYPE_CHECKING:` block."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else ""
            if name == "TYPE_CHECKING":
                for child in node.body:
                    skipped.update(id(n) for n in ast.walk(child))
    return skipped


def imports_of(name: str, modules: dict[str, Path], *, annotations: bool = False) -> Iterator[tuple[str, str | None]]:
    """(imported project module, imported private name or None) for every import in `name`,
    and `alias._x` uses of an imported project module; with `annotations`, also those of
    `if TYPE_CHECKING:` blocks."""
    tree = ast.parse(modules[name].read_text(encoding="utf-8"))
    skipped = set() if annotations else _type_checking_nodes(tree)
    package = name if _is_package(name, modules) else name.rpartition(".")[0]
    aliases: dict[str, str] = {}  # local name -> project module it is bound to
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    yield alias.name, None
                    if alias.asname:
                        aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            if base == "rules" or base.startswith("rules."):
                base = "ftlint." + base  # rules/ imported by its source-tree name
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                if submodule in modules:
                    yield submodule, None
                    aliases[alias.asname or alias.name] = submodule
                elif base in modules:
                    private = alias.name.startswith("_") and not alias.name.startswith("__")
                    yield base, alias.name if private else None
    for node in ast.walk(tree):
        if (
            id(node) not in skipped
            and isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            yield aliases[node.value.id], node.attr


def import_graph(*, annotations: bool = False) -> dict[str, set[str]]:
    """Module -> the project modules it imports (with `annotations`: also under TYPE_CHECKING)."""
    modules = project_modules()
    return {
        name: {target for target, _ in imports_of(name, modules, annotations=annotations) if target != name}
        for name in modules
    }


def cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph.get(succ, ())))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.add(frozenset(component))
    return found


def private_imports() -> set[tuple[str, str, str]]:
    """Private names (`_x`) one module takes from another. A private module (`_common`) used
    by the modules of its own package is that package's business, not a violation."""
    modules = project_modules()
    found = set()
    for name in modules:
        for target, private in imports_of(name, modules):
            if private and target != name:
                found.add((name, target, private))
        for target, _ in imports_of(name, modules):
            leaf = target.rpartition(".")[2]
            if leaf.startswith("_") and not leaf.startswith("__"):
                owner = target.rpartition(".")[0]
                if not (name == owner or name.startswith(owner + ".")):
                    found.add((name, owner, leaf))
    return found


def _show(items) -> str:
    return "\n".join(sorted(repr(sorted(i) if isinstance(i, frozenset) else i) for i in items))


def test_no_new_import_cycle():
    found = cycles(import_graph())
    assert not (found - KNOWN_CYCLES), "new import cycles:\n" + _show(found - KNOWN_CYCLES)
    assert not (KNOWN_CYCLES - found), "cycles gone, delete them from KNOWN_CYCLES:\n" + _show(KNOWN_CYCLES - found)


def test_no_import_cycle_through_annotations():
    """Issue 25: imports under `if TYPE_CHECKING:` make no cycle either."""
    found = cycles(import_graph(annotations=True))
    assert not found, "import cycles (counting TYPE_CHECKING imports):\n" + _show(found)


def test_no_new_private_import():
    found = private_imports()
    new, gone = found - KNOWN_PRIVATE_IMPORTS, KNOWN_PRIVATE_IMPORTS - found
    assert not new, "private names used across modules:\n" + _show(new)
    assert not gone, "fixed, delete them from KNOWN_PRIVATE_IMPORTS:\n" + _show(gone)


def test_the_checks_see_cycles_and_private_names():
    """The graph code itself: a two-module cycle and a private import are found."""
    assert cycles({"a": {"b"}, "b": {"a", "c"}, "c": set()}) == {frozenset({"a", "b"})}
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == set()
    graph = import_graph()
    assert "ftlint.lint.engine" in graph and "ftlint.rules.ft001_stale_output_discard" in graph
    assert "ftlint.lint.rule" in graph["ftlint.rules.ft001_stale_output_discard"]


#: Every module's place and what each place may import (besides itself), lowest first: the
#: layers core -> syntax -> index -> analysis -> lint, then the places that use them, none of
#: which imports another unless listed. A module belongs to the place naming the longest
#: prefix of its name; `ftlint` is the package itself (its version). README's "Architecture"
#: shows this table, rendered by `places_table()`; a new flat module needs a row here.
PLACES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "core": (("ftlint", "ftlint.core", "ftlint.vocabulary"), ()),
    "syntax": (("ftlint.syntax", "ftlint.matchers"), ("core",)),
    "index": (("ftlint.index",), ("core", "syntax")),
    "analysis": (("ftlint.analysis",), ("core", "syntax", "index")),
    "lint": (("ftlint.lint", "ftlint.rules"), ("core", "syntax", "index", "analysis")),
    "report": (("ftlint.report",), ("core",)),
    "runtime": (("ftlint.runtime", "ftlint.examples"), ("core",)),
    "rule tools": (("ftlint.testing", "ftlint.docs"), ("core", "syntax", "index", "analysis", "lint")),
    "lsp": (("ftlint.lsp",), ("core", "syntax", "index", "analysis", "lint")),
    "frontend": (("ftlint.frontend",), ("core", "syntax", "index", "analysis", "lint", "report")),
    "review": (("ftlint.review",), ("core", "syntax", "index", "analysis", "lint", "report", "frontend")),
    "cli": (
        ("ftlint.cli", "ftlint.__main__", "ftlint.stdin", "ftlint.settings_view"),
        ("core", "syntax", "index", "analysis", "lint", "report", "runtime", "rule tools", "lsp", "frontend", "review"),
    ),
}


def place_of(module: str) -> str | None:
    """The place a module belongs to (the longest prefix of its name; `ftlint` names the
    package alone), None for none."""
    best, length = None, -1
    for place, (prefixes, _) in PLACES.items():
        for prefix in prefixes:
            inside = module == prefix or ("." in prefix and module.startswith(prefix + "."))
            if inside and len(prefix) > length:
                best, length = place, len(prefix)
    return best


def forbidden_imports(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """(importer, imported) across places the table does not allow."""
    found = set()
    for importer, targets in graph.items():
        mine = place_of(importer)
        allowed = {mine, *PLACES[mine][1]} if mine is not None else set()
        found.update((importer, target) for target in targets if place_of(target) not in allowed)
    return found


def places_table() -> str:
    """PLACES as the Markdown table README shows."""
    rows = ["| place | modules | may import |", "|---|---|---|"]
    for place, (prefixes, allowed) in PLACES.items():
        modules = ", ".join(f"`{prefix}`" for prefix in prefixes)
        rows.append(f"| {place} | {modules} | {', '.join(allowed) or '(nothing)'} |")
    return "\n".join(rows) + "\n"


def test_imports_follow_the_places_table():
    """Issue 25: cli, review, lsp, runtime and report each have their place; an import the
    table does not allow fails, under TYPE_CHECKING too (`review` importing the CLI would)."""
    found = forbidden_imports(import_graph(annotations=True))
    assert not found, "imports the table in tests/test_architecture.py does not allow:\n" + _show(
        (a, place_of(a), b, place_of(b)) for a, b in found
    )


def test_every_module_has_a_place():
    """ftlint/ holds no module outside the table: each lives in its layer's folder or is a
    listed entry point (the CLI, a report format, review, the server, the runtime)."""
    homeless = sorted(name for name in project_modules() if place_of(name) is None)
    assert not homeless, f"modules in no place of PLACES (add them to a row): {homeless}"


def test_readme_shows_the_places_table():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert places_table() in readme, (
        "README's Architecture table differs from PLACES; it should read:\n" + places_table()
    )


def test_the_place_check_sees_an_upward_and_a_sideways_import():
    graph = {
        "ftlint.core.source": {"ftlint.lint.engine"},
        "ftlint.lint.engine": {"ftlint.core.source"},
        "ftlint.review.command": {"ftlint.cli", "ftlint.frontend", "ftlint.report.text"},
        "ftlint.report.text": {"ftlint.lint.registry"},
        "ftlint.rules.ft001_stale_output_discard": {"ftlint.lint.rule"},
    }
    assert forbidden_imports(graph) == {
        ("ftlint.core.source", "ftlint.lint.engine"),
        ("ftlint.review.command", "ftlint.cli"),
        ("ftlint.report.text", "ftlint.lint.registry"),
    }
    assert place_of("ftlint") == "core" and place_of("ftlint.cli") == "cli"
    assert place_of("ftlint.clinic") is None  # prefixes match whole name parts


def _analysis_sources() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "ftlint" / "analysis").glob("*.py")}


def _string_literals(source: str) -> list[str]:
    """The text of a module's string literals, docstrings left out (they explain, not report)."""
    tree = ast.parse(source)
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
    ]


def _literal_runs(source: str) -> set[str]:
    return set().union(*(_word_runs(text) for text in _string_literals(source)))


def _word_runs(text: str, n: int = 4) -> set[str]:
    words = re.findall(r"[a-z_]+", text.lower())
    return {" ".join(words[i : i + n]) for i in range(len(words) - n + 1)}


def test_the_analysis_names_no_rule_and_words_no_message():
    """Rules own their decisions (issue 21 item 3): ftlint/analysis records neutral facts;
    each rule module picks its code and words its message."""
    from ftlint.lint.registry import all_rules

    sources = _analysis_sources()
    codes = {name: re.findall(r"\bFT[R]?\d{2,3}\b", text) for name, text in sources.items()}
    assert not {name: found for name, found in codes.items() if found}
    analysis_runs = set().union(*(_literal_runs(text) for text in sources.values()))
    worded = {}
    for code, rule in all_rules().items():
        shared = _literal_runs(inspect.getsource(sys.modules[rule.__module__])) & analysis_runs
        if shared:
            worded[code] = sorted(shared)[:3]
    assert not worded


def test_the_message_check_sees_a_message_worded_in_the_analysis():
    message_runs = _literal_runs('M = "the unconfirmed tail of the freed request stays cached"')
    assert message_runs & _literal_runs('"""Doc."""\nx = f"its unconfirmed tail of the freed request"')
    assert not message_runs & _literal_runs('"""The unconfirmed tail of the freed request."""')
