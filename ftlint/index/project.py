"""The cross-file index: modules, their functions, classes and imports, and how a
call in one function resolves to a function of the project.

Files are read and parsed lazily, the first time something asks for them, so a
handler's helpers in files that were not passed on the command line are still
known; nothing is imported or run.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ftlint.core.source import ParseFailure, load_module, parse, read_text
from ftlint.index import outline
from ftlint.index.outline import Outline, Segment, statements_in, suites_of

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

    from ftlint.syntax import ir

# LibCST (and the IR and positions built on it) is imported where a tree is built or read,
# never at import: a run whose files hold no fault path resolves calls over outlines
# (Python's `ast`) alone (analysis/reach.py)

MAX_RESOLUTION_DEPTH = 8


@dataclass(frozen=True)
class ImportRef:
    """`local` binds `module` (a module), or `name` from `module`; level>0 is relative."""

    module: str
    name: str | None
    level: int


@dataclass(eq=False)
class Function:
    module: ModuleInfo
    qualname: str  # "EngineCoreSentinel.on_fault", "helper", "outer.<locals>.inner"
    name: str
    class_info: ClassInfo | None  # set for methods (and functions nested in methods)
    cst_node: cst.FunctionDef | None  # None until asked, in outlined modules (outline.py)
    params: tuple[str, ...]
    is_method: bool
    is_static: bool
    is_classmethod: bool = False
    is_property: bool = False  # `@property` (or `cached_property`): `self.name` reads its return value
    parent: Function | None = None
    nested: dict[str, Function] = field(default_factory=dict)
    _ir: ir.Seq | None = None
    #: facts the layers above read off the function's tree alone (by their own keys), carried
    #: over with the tree when an edit leaves the function as it was (carry_over)
    tree_facts: dict[str, object] = field(default_factory=dict)

    @property
    def node(self) -> cst.FunctionDef:
        """The function's tree (parse(), on first use in an outlined module)."""
        return self.parse()

    def parse(self) -> cst.FunctionDef:
        """The function's tree, parsed now when not yet: in an outlined module its lines
        alone (outline.function_node), else from the whole file (function_from_whole_file,
        which keeps LibCST's failure on the module)."""
        if self.cst_node is None:
            node = function_node(self)
            self.cst_node = node if node is not None else function_from_whole_file(self)
        return self.cst_node

    @property
    def ir(self) -> ir.Seq:
        from ftlint.syntax import ir

        if self._ir is None:
            self._ir = ir.build(self.node.body)
        return self._ir

    @property
    def class_qualname(self) -> str:
        """ "Class.method" for methods, the plain name otherwise (what handler globs match)."""
        return f"{self.class_info.name}.{self.name}" if self.is_method and self.class_info else self.name

    def caller_params(self, via_instance: bool) -> tuple[str, ...]:
        """Parameters as a caller fills them (without `self`/`cls` when bound)."""
        bound = self.is_classmethod or (via_instance and not self.is_static)
        if self.is_method and bound and self.params:
            return self.params[1:]
        return self.params

    def tree(self) -> Segment | None:
        """The parsed tree its node lies in, placed in the file: the whole module (offset
        0), or the function's segment in an outlined module; None when not parsed yet."""
        outlined = self.module.outline
        return self.module.whole_tree() if outlined is None else outlined.segment(self)

    def line_range(self) -> tuple[int, int] | None:
        """(first line, last line) of the function in the file, its decorators included;
        None when unknown. An outlined module knows them without parsing anything; a
        module parsed whole asks LibCST for its definition's position."""
        from ftlint.syntax.positions import ranges_of

        outlined = self.module.outline
        if outlined is not None:
            return outlined.span(self)
        parsed = self.tree()
        if parsed is None:
            return None
        node = self.node
        first = node.decorators[0] if node.decorators else node
        ranges = ranges_of(parsed.module, [first, node])
        where, start = ranges.get(id(node)), ranges.get(id(first))
        if where is None:
            return None
        return (start or where).start.line + parsed.line_offset, where.end.line + parsed.line_offset

    def __repr__(self) -> str:
        return f"<Function {self.module.path.name}:{self.qualname}>"


@dataclass(eq=False)
class ClassInfo:
    name: str
    qualname: str
    bases: tuple[str, ...]  # dotted names as written
    module: ModuleInfo
    methods: dict[str, Function] = field(default_factory=dict)


@dataclass(eq=False)
class ModuleInfo:
    path: Path  # absolute
    text: str
    module: cst.Module | None  # None in outlined modules (see `outline`)
    functions: list[Function] = field(default_factory=list)
    by_node: dict[int, Function] = field(default_factory=dict)  # id(FunctionDef) -> Function
    top_functions: dict[str, Function] = field(default_factory=dict)
    classes: dict[str, ClassInfo] = field(default_factory=dict)  # top-level classes by name
    imports: dict[str, ImportRef] = field(default_factory=dict)
    cst_failure: ParseFailure | None = None  # LibCST rejected the file (outlined modules)
    #: what the outliner keeps of a module it outlined (outline.py); None when parsed whole
    outline: Outline[Function] | None = None

    def function_for(self, node: cst.FunctionDef) -> Function | None:
        return self.by_node.get(id(node))

    def whole_tree(self) -> Segment | None:
        return Segment(self.module, self.text, 0) if self.module is not None else None

    def trees(self) -> list[Segment]:
        """What of the file is parsed, each tree with the file line its first line is on
        (minus one), in file order: the whole module, or an outlined module's parsed
        functions. Positions and fix edits are made per tree and shifted by its offset."""
        if self.outline is not None:
            return self.outline.trees()
        whole = self.whole_tree()
        return [whole] if whole is not None else []


class _Indexer:
    """Functions, classes and module-level imports, found by walking statements only
    (definitions and imports are statements: expressions are never entered)."""

    def __init__(self, info: ModuleInfo) -> None:
        self.info = info
        self.scopes: list[ClassInfo | Function] = []

    def walk(self, statements: Iterable[cst.CSTNode]) -> None:
        import libcst as cst

        for statement in statements:
            if isinstance(statement, cst.FunctionDef):
                fn = self._function(statement)
                self.scopes.append(fn)
                self.walk(statements_in(statement.body))
                self.scopes.pop()
            elif isinstance(statement, cst.ClassDef):
                cls = self._class(statement)
                self.scopes.append(cls)
                self.walk(statements_in(statement.body))
                self.scopes.pop()
            elif isinstance(statement, cst.SimpleStatementLine):
                if not self.scopes:
                    self.walk(statement.body)
            elif isinstance(statement, cst.Import):  # also in a one-line suite: `if X: import y`
                if not self.scopes:
                    self._import(statement)
            elif isinstance(statement, cst.ImportFrom):
                if not self.scopes:
                    self._import_from(statement)
            else:
                for suite in suites_of(statement):
                    self.walk(statements_in(suite))

    def _class(self, node: cst.ClassDef) -> ClassInfo:
        from ftlint.syntax import ir

        bases = tuple(
            filter(None, (ir.dotted_name(arg.value) for arg in node.bases if arg.keyword is None and not arg.star))
        )
        return add_class(self.info, self.scopes, node.name.value, bases)

    def _function(self, node: cst.FunctionDef) -> Function:
        from ftlint.syntax import ir

        fn = add_function(
            self.info,
            self.scopes,
            node.name.value,
            tuple(p.name.value for p in (*node.params.posonly_params, *node.params.params, *node.params.kwonly_params)),
            {ir.dotted_name(d.decorator) for d in node.decorators},
            cst_node=node,
        )
        self.info.by_node[id(node)] = fn
        return fn

    def _import(self, node: cst.Import) -> None:
        import libcst as cst

        from ftlint.syntax import ir

        for alias in node.names:
            dotted = ir.dotted_name(alias.name)
            if dotted:
                asname = alias.asname.name if alias.asname is not None else None
                add_import(self.info, dotted, asname.value if isinstance(asname, cst.Name) else None)

    def _import_from(self, node: cst.ImportFrom) -> None:
        import libcst as cst

        from ftlint.syntax import ir

        if isinstance(node.names, cst.ImportStar):
            return
        module = ir.dotted_name(node.module) if node.module is not None else ""
        level = len(node.relative)
        for alias in node.names:
            name = ir.dotted_name(alias.name)
            if not name:
                continue
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.info.imports[local] = ImportRef(module or "", name, level)


# -- shared by _Indexer and outline._Outliner (the same rules over two syntax trees) ----
#: the classes and functions a definition is nested in, outermost first
Scopes = list["ClassInfo | Function"]


def add_class(info: ModuleInfo, scopes: Scopes, name: str, bases: tuple[str, ...]) -> ClassInfo:
    cls = ClassInfo(name, ".".join([s.name for s in scopes] + [name]), bases, info)
    if not scopes:
        info.classes[name] = cls
    return cls


#: decorators that make a method an attribute read (`self.name` is its return value)
_PROPERTIES = frozenset({"property", "cached_property"})


def add_function(
    info: ModuleInfo,
    scopes: Scopes,
    name: str,
    params: tuple[str, ...],
    decorators: set[str | None],
    *,
    cst_node: cst.FunctionDef | None,
) -> Function:
    """A function met inside the open `scopes` (classes and functions): its qualified
    name, class and enclosing function, and where it is listed (a class's methods, an
    enclosing function's nested defs, the module's top-level functions)."""
    enclosing = scopes[-1] if scopes else None
    is_method = isinstance(enclosing, ClassInfo)
    parent = enclosing if isinstance(enclosing, Function) else None
    qual = f"{parent.qualname}.<locals>.{name}" if parent else ".".join([s.name for s in scopes] + [name])
    fn = Function(
        module=info,
        qualname=qual,
        name=name,
        class_info=enclosing if isinstance(enclosing, ClassInfo) else (parent.class_info if parent else None),
        params=params,
        is_method=is_method,
        is_static="staticmethod" in decorators,
        is_classmethod="classmethod" in decorators,
        is_property=any(d is not None and d.rsplit(".", 1)[-1] in _PROPERTIES for d in decorators),
        parent=parent,
        cst_node=cst_node,
    )
    info.functions.append(fn)
    if isinstance(enclosing, ClassInfo):  # is_method
        enclosing.methods.setdefault(name, fn)
    elif parent is not None:
        parent.nested.setdefault(name, fn)
    elif not scopes:
        info.top_functions[name] = fn
    return fn


def add_import(info: ModuleInfo, dotted: str, asname: str | None) -> None:
    """`import a.b.c [as x]` binds x, or else a."""
    if asname is not None:
        info.imports[asname] = ImportRef(dotted, None, 0)
    else:
        head = dotted.split(".")[0]
        info.imports.setdefault(head, ImportRef(head, None, 0))


def index_module(path: Path, text: str, module: cst.Module) -> ModuleInfo:
    info = ModuleInfo(path=path, text=text, module=module)
    _Indexer(info).walk(module.body)
    return info


def outline_module(
    path: Path,
    text: str,
    *,
    store: outline.OutlineStore | None = None,
    chunked: dict[Path, outline.Chunked] | None = None,
    check_nesting: bool = True,
) -> ModuleInfo | None:
    """The ModuleInfo of `text` without its LibCST tree (functions parse on demand, see
    outline.py), or None when Python's parser cannot read it (the caller parses it whole
    with LibCST). With `store` (outline.OutlineStore), an outline made before from the
    same text is reused instead of parsing it again. With `chunked` (path -> the
    outline.Chunked of the file's last version), a big file is re-outlined only in the
    top-level chunks an edit touched, and its new Chunked kept there. Without
    `check_nesting`, a text nested deeper than LibCST parses safely is outlined all the
    same (analysis/reach.py's walk, which never hands it to LibCST) and the outline is not
    kept in `store`, where the linter would take it for a checked one."""
    ops = store.load(text) if store is not None else None
    if ops is not None:
        try:
            return None if ops is False else replay(path, text, ops)
        except Exception:  # noqa: BLE001 - a stored outline that cannot be replayed: make it again
            pass
    if not check_nesting and chunked is None:
        ops = outline.outline_ops(text, check_nesting=False)
        return None if ops is False else replay(path, text, ops)
    if chunked is not None:
        ops, kept = outline.chunked_outline_ops(text, chunked.pop(path, None))
        if kept is not None:
            chunked[path] = kept
    else:
        ops = outline.outline_ops(text)
    if store is not None:
        store.save(text, ops)
    return None if ops is False else replay(path, text, ops)


def replay(path: Path, text: str, ops: outline.OutlineOps) -> ModuleInfo:
    """The ModuleInfo the outline `ops` (outline.outline_ops) describe: the same calls to
    add_class, add_function and add_import that the LibCST indexer makes."""
    outlined: Outline[Function] = Outline(text)
    info = ModuleInfo(path=path, text=text, module=None, outline=outlined)
    scopes: list[ClassInfo | Function] = []
    for op in ops:
        kind = op[0]
        if kind == outline.END_OP:
            scopes.pop()
        elif kind == outline.FUNCTION_OP:
            _, name, params, decorators, first, last = op
            fn = add_function(info, scopes, name, tuple(params), set(decorators), cst_node=None)
            outlined.spans[fn] = (first, last)
            scopes.append(fn)
        elif kind == outline.CLASS_OP:
            scopes.append(add_class(info, scopes, op[1], tuple(op[2])))
        elif kind == outline.IMPORT_OP:
            add_import(info, op[1], op[2])
        else:  # outline.FROM_OP
            _, bound, module, name, level = op
            info.imports[bound] = ImportRef(module, name, level)
    return info


def function_node(fn: Function) -> cst.FunctionDef | None:
    """The LibCST tree of one outlined function. Its outermost enclosing function is
    parsed alone (decorators to the last line of its body, inside `if 1:` when indented
    so the indentation stays as written), and every function inside it gets its node
    from that one tree (so a nested def is the same node wherever it is met). None
    when LibCST rejects those lines (or the module is not outlined): then Function.node
    parses the whole file (see function_from_whole_file)."""
    info = fn.module
    outlined = info.outline
    if outlined is None:
        return None
    outer, inside = outlined.unit_of(fn)
    unit = outline.parse_unit(outer, outer.name, outlined)
    if unit is not None:
        segment, nodes = unit
        if len(inside) == len(nodes) and all(f.name == n.name.value for f, n in zip(inside, nodes, strict=True)):
            for function, node in zip(inside, nodes, strict=True):
                if function.cst_node is None:
                    function.cst_node = node
                    outlined.segments[function] = segment
                    info.by_node[id(node)] = function
            if fn.cst_node is not None:
                return fn.cst_node
    return None


def carry_over(old: ModuleInfo, new: ModuleInfo) -> int:
    """Give the outline of an edited file (`new`) the parsed trees, and their IR, of the
    outermost functions whose lines did not change since `old` (the same file before the
    edit), shifted to where they are now: the language server re-parses only the
    functions an edit touched. Returns how many outermost functions were carried over."""
    was, now = old.outline, new.outline
    if was is None or now is None:
        return 0
    old_units, new_units = outline.units(was), outline.units(now)
    parsed: dict[tuple[str, str], Function] = {}
    for fn in old.functions:
        if fn in old_units and fn.cst_node is not None and was.segment(fn) is not None:
            parsed.setdefault((fn.qualname, was.text_of(fn)), fn)
    carried = 0
    for fn in new.functions:
        if fn.cst_node is not None or fn not in new_units:
            continue
        before = parsed.get((fn.qualname, now.text_of(fn)))
        if before is None:
            continue
        unit = was.segments[before]
        inner_old = old_units[before]
        inner_new = new_units[fn]
        if len(inner_old) != len(inner_new) or any(f.cst_node is None or was.segment(f) is not unit for f in inner_old):
            continue
        segment = Segment(unit.module, unit.text, unit.line_offset + now.span(fn)[0] - was.span(before)[0])
        for old_fn, new_fn in zip(inner_old, inner_new, strict=True):
            new_fn.cst_node, new_fn._ir, new_fn.tree_facts = old_fn.cst_node, old_fn._ir, old_fn.tree_facts
            now.segments[new_fn] = segment
            new.by_node[id(old_fn.cst_node)] = new_fn
        carried += 1
    return carried


def function_from_whole_file(fn: Function) -> cst.FunctionDef:
    """An outlined function whose lines LibCST rejects alone: the whole file is parsed and
    the function taken from it; should LibCST reject the file too, the failure is kept on
    the module (a linted file reports it as FT000) and the function is empty (a helper in
    a file LibCST cannot parse is unknown, as in a run that parses it whole)."""
    import libcst as cst

    from ftlint.core import source  # looked up now: tests stand in for source.parse

    module = source.parse(fn.module.text)
    if isinstance(module, cst.Module):
        same = [f for f in index_module(fn.module.path, fn.module.text, module).functions if f.qualname == fn.qualname]
        ours = [f for f in fn.module.functions if f.qualname == fn.qualname]
        if fn in ours and len(same) == len(ours):
            return same[ours.index(fn)].node
    else:
        fn.module.cst_failure = module
    return cst.FunctionDef(name=cst.Name(fn.name), params=cst.Parameters(), body=cst.IndentedBlock(body=[]))


class FileProbe:
    """The file-existence tests of import resolution (`is_file`, `exists`), which the
    project index makes through this object, never through pathlib directly. With
    `record=True` it remembers each answer: a cached result depends on files that do not
    exist too (a module created where an import resolves must invalidate it)."""

    __slots__ = ("probes", "taps")

    def __init__(self, *, record: bool = False) -> None:
        #: (absolute path, "f" for is_file or "e" for exists) -> the answer; None: not recording
        self.probes: dict[tuple[str, str], bool] | None = {} if record else None
        #: the Reads open (Project.recording): each test is added to each
        self.taps: list[Reads] = []

    def is_file(self, path: Path | str) -> bool:
        found = os.path.isfile(path)
        if self.probes is not None:
            self._note((os.path.abspath(path), "f"), found)
        return found

    def exists(self, path: Path | str) -> bool:
        found = os.path.exists(path)
        if self.probes is not None:
            self._note((os.path.abspath(path), "e"), found)
        return found

    def _note(self, key: tuple[str, str], found: bool) -> None:
        cast(dict, self.probes)[key] = found
        for tap in self.taps:
            tap.probes[key] = found

    def as_list(self) -> list[list[str | bool]]:
        """[path, kind, answer] of every probe recorded, sorted (a run entry's `probes`)."""
        return [[path, kind, found] for (path, kind), found in sorted((self.probes or {}).items())]


@dataclass
class Reads:
    """What one answer read of the project (Project.recording): the files whose outline or
    text it used and the file-existence tests it made, so that a stored answer can be checked
    against the files as they are now (`complete`: False when a test went unrecorded)."""

    paths: set[Path] = field(default_factory=set)
    probes: dict[tuple[str, str], bool] = field(default_factory=dict)
    complete: bool = True


Target = Function | ClassInfo | ModuleInfo | None


class Project:
    """Lazily loaded modules of one project, and call resolution across them.

    `outline_only(path)` says which files are needed only for their functions (helpers
    outside the lint set): those are outlined with Python's parser and LibCST parses
    one function at a time (outline.py). Other files are parsed whole."""

    def __init__(
        self,
        root: Path,
        cwd: Path | None = None,
        *,
        outline_only: Callable[[Path], bool] | None = None,
        outline_store=None,  # outline.OutlineStore (untyped while lint/scan.py assumes one is given)
        probe: FileProbe | None = None,
    ) -> None:
        self.root = Path(os.path.abspath(root))
        self.cwd = Path(os.path.abspath(cwd or Path.cwd()))
        self.outline_only = outline_only
        self.outline_store = outline_store  # outline.OutlineStore: outlines made already
        self.probe = probe if probe is not None else FileProbe()  # every file-existence test goes through it
        self._modules: dict[Path, ModuleInfo | ParseFailure] = {}
        self._texts: dict[Path, str | None] = {}
        self._class_lambdas: dict[tuple[int, str], ast.Lambda | None] = {}
        self.read_paths: set[Path] = set()  # every file whose contents a result depended on
        #: texts read instead of the files at these (absolute) paths: unsaved editor
        #: buffers, stdin (see workspace.py); forget() a path when its text changes
        self.overlays: dict[Path, str] = {}
        #: with `ast_only`, a file the outliner could not read is not parsed with LibCST:
        #: it is listed here (and unknown to resolution); analysis/reach.py then decides nothing
        self.ast_only = False
        self.unoutlined: set[Path] = set()
        #: False: files are outlined without source.nesting_failure's check, and those
        #: outlines are not stored (analysis/reach.py's walk without a cache: it reads the
        #: outlines with `ast` only, so a file LibCST could not parse is outlined as any other)
        self.check_nesting = True
        #: big files' outlines per top-level chunk (outline.Chunked), kept so that the next
        #: version of a file re-outlines only the chunks an edit touched; None: not kept
        #: (a CLI run outlines each file once; the language server's workspace sets it)
        self.chunked: dict[Path, outline.Chunked] | None = None
        #: (dotted name, importer's directory, level) -> the file an import resolves to, kept
        #: while no file appears or goes (files_created_or_deleted); None: not kept (the
        #: language server's workspace sets it and tells it of files created or deleted)
        self.found_files: dict[tuple[str, Path, int], Path | None] | None = None

    # -- modules -------------------------------------------------------------
    @contextmanager
    def recording(self) -> Iterator[Reads]:
        """What the code run inside reads of the project (modules, file tests). Complete only
        when every file test goes through a recording probe (a run with a cache): a memo of
        resolved imports would hide the tests it answers."""
        reads = Reads(complete=self.probe.probes is not None and not self.overlays)
        self.probe.taps.append(reads)
        try:
            yield reads
        finally:
            self.probe.taps.remove(reads)

    def forget(self, path: Path) -> None:
        """Drop what is known of one file (its text changed); it is loaded again when asked.
        Other modules hold no references into it: calls resolve through module_at."""
        key = Path(os.path.abspath(path))
        self._modules.pop(key, None)
        self._texts.pop(key, None)

    def module_at(self, path: Path) -> ModuleInfo | None:
        key = Path(os.path.abspath(path))
        if key not in self._modules:
            self._modules[key] = self._load(key)
        self.read_paths.add(key)
        for tap in self.probe.taps:
            tap.paths.add(key)
        found = self._modules[key]
        return found if isinstance(found, ModuleInfo) else None

    def _load(self, key: Path) -> ModuleInfo | ParseFailure:
        overlay = self.overlays.get(key)
        if self.outline_only is not None and self.outline_only(key):
            text = overlay if overlay is not None else read_text(key)
            if isinstance(text, ParseFailure):
                self._texts[key] = None
                return text
            self._texts[key] = text
            info = outline_module(
                key, text, store=self.outline_store, chunked=self.chunked, check_nesting=self.check_nesting
            )
            if info is not None:
                return info
            if self.ast_only:
                self.unoutlined.add(key)
                return ParseFailure("not outlined")
            result = parse(text)
        elif overlay is not None:
            text, result = overlay, parse(overlay)
            self._texts[key] = text
        else:
            loaded, result = load_module(key)
            self._texts[key] = loaded
            text = loaded if loaded is not None else ""  # None only with a ParseFailure
        import libcst as cst

        return index_module(key, text, result) if isinstance(result, cst.Module) else result

    def loaded_module(self, path: Path) -> ModuleInfo | None:
        found = self._modules.get(Path(os.path.abspath(path)))
        return found if isinstance(found, ModuleInfo) else None

    def failure_at(self, path: Path) -> ParseFailure | None:
        found = self._modules.get(Path(os.path.abspath(path)))
        return found if isinstance(found, ParseFailure) else None

    def text_at(self, path: Path) -> str | None:
        return self._texts.get(Path(os.path.abspath(path)))

    def loaded(self) -> Iterable[ModuleInfo]:
        return [m for m in self._modules.values() if isinstance(m, ModuleInfo)]

    def _roots_for(self, path: Path) -> list[Path]:
        """Where absolute imports of this file resolve: above its top-level package, the project root, cwd."""
        top = path.parent
        while self.probe.exists(top / "__init__.py") and top.parent != top:
            top = top.parent
        roots = []
        for root in (top, self.root, self.cwd):
            if root not in roots:
                roots.append(root)
        return roots

    def files_created_or_deleted(self) -> None:
        """A file may have appeared or gone (on disk, or as a buffer): imports resolve anew."""
        if self.found_files is not None:
            self.found_files.clear()

    def find_module_file(self, dotted: str, importer: Path, level: int) -> Path | None:
        memo = self.found_files if self.probe.probes is None else None  # a recording probe sees every test
        if memo is None:
            return self._find_module_file(dotted, importer, level)
        key = (dotted, importer.parent, level)  # the roots depend on the importer's directory only
        if key not in memo:
            memo[key] = self._find_module_file(dotted, importer, level)
        return memo[key]

    def _find_module_file(self, dotted: str, importer: Path, level: int) -> Path | None:
        parts = [p for p in dotted.split(".") if p]
        if level:
            base = importer.parent
            for _ in range(level - 1):
                base = base.parent
            bases = [base]
        else:
            bases = self._roots_for(importer)
        for base in bases:
            candidate = base.joinpath(*parts) if parts else base
            for file in (candidate.with_suffix(".py") if parts else None, candidate / "__init__.py"):
                if file is not None and (file in self.overlays or self.probe.is_file(file)):
                    return file
        return None

    # -- resolution ----------------------------------------------------------
    def resolve_import(self, info: ModuleInfo, local: str, depth: int = 0) -> Target:
        ref = info.imports.get(local)
        if ref is None or depth > MAX_RESOLUTION_DEPTH:
            return None
        if ref.name is None:  # import a.b.c [as x]
            file = self.find_module_file(ref.module, info.path, ref.level)
            return self.module_at(file) if file else None
        file = self.find_module_file(ref.module, info.path, ref.level)
        if file is not None:
            source = self.module_at(file)
            if source is not None:
                found = self.lookup(source, ref.name, depth + 1)
                if found is not None:
                    return found
        sub = self.find_module_file(".".join(filter(None, [ref.module, ref.name])), info.path, ref.level)
        return self.module_at(sub) if sub else None

    def lookup(self, info: ModuleInfo, name: str, depth: int = 0) -> Target:
        """A module-level name of `info`: function, class, or what an import binds."""
        if name in info.top_functions:
            return info.top_functions[name]
        if name in info.classes:
            return info.classes[name]
        return self.resolve_import(info, name, depth)

    def attribute(self, target: Target, attr: str, depth: int = 0) -> Target:
        if isinstance(target, ModuleInfo):
            found = self.lookup(target, attr, depth + 1)
            if found is None and target.path.name == "__init__.py":
                sub = target.path.parent / attr
                probe = self.probe
                file = sub.with_suffix(".py") if probe.is_file(sub.with_suffix(".py")) else sub / "__init__.py"
                return self.module_at(file) if probe.is_file(file) else None
            return found
        if isinstance(target, ClassInfo):
            return self.method(target, attr, depth + 1)
        return None

    def resolve_class(self, info: ModuleInfo, dotted: str, depth: int = 0) -> ClassInfo | None:
        head, *rest = dotted.split(".")
        target = self.lookup(info, head, depth + 1)
        for attr in rest:
            target = self.attribute(target, attr, depth + 1)
        return target if isinstance(target, ClassInfo) else None

    def class_chain(self, cls: ClassInfo, limit: int = 32) -> list[ClassInfo]:
        """`cls`, then its (resolved) base classes depth first, each once, at most `limit`."""
        chain: list[ClassInfo] = []
        stack = [cls]
        while stack and len(chain) < limit:
            current = stack.pop()
            if current in chain:
                continue
            chain.append(current)
            for base in reversed(current.bases):
                base_cls = self.resolve_class(current.module, base)
                if base_cls is not None:
                    stack.append(base_cls)
        return chain

    def mro(self, cls: ClassInfo, depth: int = 0) -> list[ClassInfo]:
        """`cls`'s method resolution order among project classes (C3, as Python computes it;
        a base it cannot resolve is left out; an inconsistent order: the depth-first chain)."""
        if depth > MAX_RESOLUTION_DEPTH:
            return [cls]
        bases = [
            b for b in (self.resolve_class(cls.module, base) for base in cls.bases) if b is not None and b is not cls
        ]
        pending = [self.mro(b, depth + 1) for b in bases] + [list(bases)]
        out = [cls]
        while any(pending):
            pending = [p for p in pending if p]
            head = next((p[0] for p in pending if not any(p[0] in q[1:] for q in pending)), None)
            if head is None:
                return self.class_chain(cls)
            out.append(head)
            pending = [p[1:] if p[0] is head else p for p in pending]
        return out

    def method_after(self, cls: ClassInfo, after: ClassInfo, name: str) -> Function | None:
        """`super().name` in a method of `after` on an object of class `cls`: the first class
        after `after` in `cls`'s MRO that defines `name` (a mixin's `super()` goes on to the
        next mixin of the class that combines them)."""
        order = self.mro(cls)
        if after not in order:
            return None
        for each in order[order.index(after) + 1 :]:
            if name in each.methods:
                return each.methods[name]
        return None

    def method(self, cls: ClassInfo, name: str, depth: int = 0, *, skip_own: bool = False) -> Function | None:
        if depth > MAX_RESOLUTION_DEPTH:
            return None
        if not skip_own and name in cls.methods:
            return cls.methods[name]
        for base in cls.bases:
            base_cls = self.resolve_class(cls.module, base, depth + 1)
            if base_cls is not None and base_cls is not cls:
                found = self.method(base_cls, name, depth + 1)
                if found is not None:
                    return found
        return None

    def class_lambda_callees(self, fn: Function, name: str) -> Iterator[Function]:
        """`self.name(...)` in method `fn` where its class binds `name` to a lambda (`name =
        lambda ...`, `name = staticmethod(lambda ...)`): the project functions the lambda's
        body calls. The lambda is read from the line that binds it, with `ast` (an outlined
        module keeps no class body)."""
        cls = fn.class_info
        if cls is None:
            return
        key = (id(cls), name)
        if key not in self._class_lambdas:
            self._class_lambdas[key] = _class_lambda(cls.module.text, name)
        lam = self._class_lambdas[key]
        for node in ast.walk(lam.body) if lam is not None else ():
            ref = outline.ast_callee_ref(node.func) if isinstance(node, ast.Call) else None
            target = self.resolve_call(fn, ref) if ref is not None else None
            if target is not None:
                yield target[0]

    def resolve_call(self, caller: Function, callee: tuple[str, str] | None) -> tuple[Function, bool] | None:
        """The project function a call reaches, and whether it is called through an instance
        (so `self` is bound). None when it is not a project function (or not resolvable)."""
        if callee is None:
            return None
        kind, name = callee
        if kind in ("self", "super"):
            cls = caller.class_info
            if cls is None:
                return None
            found = self.method(cls, name, skip_own=(kind == "super"))
            return (found, True) if found else None
        if kind == "name":
            scope: Function | None = caller
            while scope is not None:  # nested defs of this function or an enclosing one
                if name in scope.nested:
                    return scope.nested[name], False
                scope = scope.parent
            target: Target = self.lookup(caller.module, name)
            return (target, False) if isinstance(target, Function) else None
        if kind == "dotted":
            head, *rest = name.split(".")
            target = self.lookup(caller.module, head)
            if target is None:
                return None
            for attr in rest:
                target = self.attribute(target, attr)
            if isinstance(target, Function):
                # Class.method(...) passes self explicitly unless it is static/classmethod
                return target, False
        return None


def _class_lambda(text: str, name: str) -> ast.Lambda | None:
    """The first indented `name = [staticmethod(]lambda ...` of `text` (up to 20 lines long)."""
    found = re.search(rf"^[ \t]+{re.escape(name)}[ \t]*=[ \t]*(?:staticmethod\([ \t]*)?lambda\b", text, re.M)
    if found is None:
        return None
    lines = text[found.start() :].splitlines()
    for end in range(1, min(len(lines), 20) + 1):
        try:
            tree = ast.parse("\n".join(lines[:end]).strip())
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Lambda):
                return node
        return None
    return None
