"""The shortcuts that make a single-file run fast give the same answers as the slow way:

* ftlint.syntax.matchers matches exactly what libcst.matchers matches;
* ftlint.syntax.positions.ranges_of gives PositionProvider's ranges;
* outline.py indexes a module as the LibCST indexer does (also through the JSON the
  cache keeps), and a function parsed alone is the function parsed with its file;
* the forked project scan finds what the in-process scan finds (and a failing child
  changes nothing);
* rules visit only fault-path functions unless they ask for the whole module.

Samples are real code: the installed vLLM package and CPython's standard library.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import libcst as cst
import libcst.matchers as lm
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from ftlint.core.config import load_config
from ftlint.index.outline import outline_ops
from ftlint.index.project import Project, index_module, outline_module, replay
from ftlint.lint import parallel_scan
from ftlint.lint.engine import lint_paths
from ftlint.lint.registry import known_codes
from ftlint.syntax import matchers as fm
from ftlint.syntax.positions import ranges_of
from tests.helpers import outlines_made_here


def _vllm_dir() -> Path:
    spec = importlib.util.find_spec("vllm")  # located, never imported
    assert spec is not None and spec.origin, "vLLM must be installed (scripts/bootstrap-env)"
    return Path(spec.origin).parent


def _samples(count: int, seed: int) -> list[Path]:
    vllm = sorted(_vllm_dir().rglob("*.py"))
    stdlib = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))
    rng = random.Random(seed)
    chosen = rng.sample(vllm, count // 2) + rng.sample(stdlib, count // 2)
    # the fault-tolerance code itself, always
    chosen += sorted((_vllm_dir() / "v1" / "fault_tolerance").glob("*.py"))
    chosen.append(_vllm_dir() / "v1" / "core" / "sched" / "scheduler.py")
    return chosen


def _parsed(paths):
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        try:
            yield path, text, cst.parse_module(text)
        except Exception:  # noqa: BLE001 - a sample LibCST cannot parse proves nothing here
            continue


def _all_nodes(module: cst.Module) -> list[cst.CSTNode]:
    return list(MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider))


# -- matchers ---------------------------------------------------------------------------
PATTERNS = {
    "len call": lambda m: m.Call(func=m.Name("len")),
    "falsy": lambda m: m.Integer("0") | m.Name("False") | m.Name("None"),
    "len bound": lambda m: (
        m.Call(func=m.Name("len"))
        | m.BinaryOperation(left=m.Call(func=m.Name("len")), operator=m.Subtract() | m.Add(), right=m.Integer())
    ),
    "minus one": lambda m: m.UnaryOperation(operator=m.Minus(), expression=m.Integer("1")),
    "named call": lambda m: m.Call(func=m.Name() | m.Attribute(attr=m.Name())),
    "evict": lambda m: m.Call(func=m.Attribute(attr=m.Name("evict_blocks"))),
    "comparison": lambda m: m.Comparison(),
    "aug add": lambda m: m.AugAssign(operator=m.AddAssign()),
    "comprehension": lambda m: m.ListComp() | m.SetComp() | m.GeneratorExp() | m.DictComp(),
    "order": lambda m: m.LessThan() | m.LessThanEqual() | m.GreaterThan() | m.GreaterThanEqual(),
    "self attr": lambda m: m.Attribute(value=m.Name("self")),
}


@pytest.mark.vllm  # samples the installed vLLM tree
def test_matchers_agree_with_libcst_matchers_on_every_node():
    pairs = {name: (make(fm), make(lm)) for name, make in PATTERNS.items()}
    checked = hits = 0
    for _, _, module in _parsed(_samples(40, seed=5)):
        for node in _all_nodes(module):
            for name, (ours, theirs) in pairs.items():
                expected = lm.matches(node, theirs)
                assert fm.matches(node, ours) == expected, (name, cst.Module([]).code_for_node(node)[:80])
                checked += 1
                hits += expected
    assert checked > 100_000 and hits > 1_000  # the samples exercised the patterns


@pytest.mark.vllm  # samples the installed vLLM tree
def test_findall_agrees_with_libcst_findall():
    for _, _, module in _parsed(_samples(10, seed=6)):
        for make in (PATTERNS["comparison"], PATTERNS["len call"], lambda m: m.Name("self")):
            ours = fm.findall(module, make(fm))
            theirs = lm.findall(module, make(lm))
            assert [id(n) for n in ours] == [id(n) for n in theirs]


def test_matchers_reject_unknown_names_and_fields():
    with pytest.raises(AttributeError, match="not a LibCST node class"):
        fm.Frobnicate()
    with pytest.raises(TypeError, match="has no field 'fun'"):
        fm.Call(fun=fm.Name("len"))
    with pytest.raises(TypeError, match="at most"):
        fm.Name("a", (), (), "extra")
    assert not fm.matches(None, fm.Name())
    assert not fm.matches(cst.MaybeSentinel.DEFAULT, fm.Name())


# -- positions ----------------------------------------------------------------------------
@pytest.mark.vllm  # samples the installed vLLM tree
def test_ranges_of_equals_position_provider_on_every_node():
    count = 0
    for _, _, module in _parsed(_samples(30, seed=7)):
        expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        ours = ranges_of(module, expected.keys())
        for node, code_range in expected.items():
            assert ours[id(node)] == code_range, type(node).__name__
            count += 1
    assert count > 50_000


@pytest.mark.vllm  # samples the installed vLLM tree
def test_ranges_of_a_few_nodes_stops_early_and_stays_exact():
    rng = random.Random(8)
    for _, _, module in _parsed(_samples(20, seed=9)):
        expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        nodes = list(expected)
        for _ in range(10):
            pick = rng.sample(nodes, min(len(nodes), rng.randint(1, 3)))
            ours = ranges_of(module, pick)
            assert {id(n): expected[n] for n in pick} == ours


def test_ranges_of_nothing_and_of_a_foreign_node():
    module = cst.parse_module("x = 1\n")
    assert ranges_of(module, []) == {}
    assert ranges_of(module, [cst.Name("y")]) == {}


# -- outline ------------------------------------------------------------------------------
def _shape(info) -> dict:
    return {
        "functions": [
            (
                fn.qualname,
                fn.name,
                fn.params,
                fn.is_method,
                fn.is_static,
                fn.is_classmethod,
                fn.class_info.qualname if fn.class_info else None,
                fn.parent.qualname if fn.parent else None,
                sorted(fn.nested),
            )
            for fn in info.functions
        ],
        "top": sorted(info.top_functions),
        "classes": {n: (c.qualname, c.bases, sorted(c.methods)) for n, c in info.classes.items()},
        "imports": dict(info.imports),
    }


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _statements(fn: cst.FunctionDef) -> list[str]:
    """The body's code lines without comment-only and blank lines: comments after a
    block's last statement sit in LibCST's block footer, which the outline's line span
    (ending at the last statement) leaves out; they hold nothing a rule reads."""
    return [line for line in _code(fn.body).splitlines() if line.strip() and not line.strip().startswith("#")]


@pytest.mark.vllm  # samples the installed vLLM tree
def test_outline_indexes_like_the_libcst_indexer_and_parses_functions_alike():
    compared = functions = 0
    for path, text, module in _parsed(_samples(120, seed=10)):
        full = index_module(path, text, module)
        outlined = outline_module(path, text)
        if outlined is None:  # newer syntax than this Python: parsed whole instead (tested below)
            continue
        assert _shape(outlined) == _shape(full), path
        # the cache keeps the outline as JSON: what comes back builds the same module
        kept = json.loads(json.dumps(outline_ops(text)))
        assert _shape(replay(path, text, kept)) == _shape(full), path
        compared += 1
        for mine, theirs in zip(outlined.functions, full.functions, strict=True):  # same _shape: same length
            node = mine.node
            assert node.name.value == theirs.node.name.value
            assert _code(node.params) == _code(theirs.node.params), (path, mine.qualname)
            assert _statements(node) == _statements(theirs.node), (path, mine.qualname)
            assert [_code(d) for d in node.decorators] == [_code(d) for d in theirs.node.decorators]
            functions += 1
    assert compared > 100 and functions > 1_000


def test_outline_cases_the_two_indexers_must_agree_on(tmp_path):
    text = textwrap.dedent(
        """\
        import a.b.c, d as e
        from .. import f
        from .g import *
        if TYPE_CHECKING: from h import I
        try: import j
        except ImportError: j = None
        class K(e.Base, *mixins, metaclass=M):
            @staticmethod
            def s(x, /, y, *a, z, **k): pass
            @classmethod
            async def c(cls): pass
            def m(self):
                def inner(q):
                    class Local:
                        def method(self): pass
                return inner
        match command:
            case [x]:
                def in_case(): pass
        def lone(): return \\
            1; x = 2
        """
    )
    path = tmp_path / "m.py"
    path.write_text(text)
    full = index_module(path, text, cst.parse_module(text))
    outlined = outline_module(path, text)
    assert _shape(outlined) == _shape(full)
    assert set(full.imports) == {"a", "e", "f", "I", "j"}
    for mine, theirs in zip(outlined.functions, full.functions, strict=True):  # same _shape: same length
        assert _statements(mine.node) == _statements(theirs.node), mine.qualname


def test_outline_leaves_newer_syntax_to_libcst(tmp_path):
    """Python 3.11 cannot parse PEP 695 syntax; LibCST can: such a file is parsed whole."""
    path = tmp_path / "new.py"
    path.write_text("type Alias = int\ndef helper(x):\n    x.evict_blocks(1)\n")
    assert outline_module(path, path.read_text()) is None
    project = Project(tmp_path, tmp_path, outline_only=lambda p: True)
    info = project.module_at(path)
    assert info is not None and info.module is not None
    assert [fn.qualname for fn in info.functions] == ["helper"]


def test_a_function_libcst_cannot_parse_alone_is_taken_from_the_whole_file(tmp_path, monkeypatch):
    path = tmp_path / "m.py"
    path.write_text("class A:\n    def f(self):\n        return self.evict_blocks(1)\n")
    info = outline_module(path, path.read_text())
    import ftlint.core.source as source

    real_parse = source.parse
    monkeypatch.setattr(source, "parse", lambda text: real_parse("(" if text.startswith("if 1:") else text))
    node = info.functions[0].node
    assert _code(node.body).strip() == "return self.evict_blocks(1)"


# -- the forked project scan -----------------------------------------------------------
@pytest.mark.skipif(not parallel_scan.available(), reason="needs Linux and two CPUs (CI has both)")
def test_parallel_scan_child_result_and_failure():
    join = parallel_scan.start(lambda: {"files": ["a.py"] * 10_000})  # more than a pipe buffer
    assert join is not None and join() == {"files": ["a.py"] * 10_000}
    join = parallel_scan.start(lambda: 1 / 0)
    assert join is not None and join() is None  # the caller then scans itself


@pytest.mark.skipif(not parallel_scan.available(), reason="needs Linux and two CPUs (CI has both)")
def test_parallel_scan_tells_whether_the_child_is_done():
    import select
    import time

    slow = parallel_scan.start(lambda: time.sleep(1.0) or "late")
    assert slow is not None and not slow.ready()
    assert slow() == "late"
    quick = parallel_scan.start(lambda: "early")
    select.select([quick.read_end], [], [], 30)  # the child has written its result
    assert quick.ready() and quick() == "early"


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("ignored/\n")
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "helpers.py").write_text(
        "def abort_all(engine):\n    engine.scheduler.finish_requests(engine.running, 'abort')\n"
        "    engine.scheduler.reset_prefix_cache()\n"  # FT005, found only through the handler elsewhere
    )
    (root / "pkg" / "sentinel.py").write_text(
        "from pkg.helpers import abort_all\n\nclass S:\n    def on_fault(self, exc):\n"
        "        self.scheduler._preempt_request(self.scheduler.running.pop(), 0.0)\n"  # FT008 (the reset clears the cache: no FT007)
        "        abort_all(self)\n"
    )
    # elsewhere in the project: a second handler that reaches a helper in the linted file
    (root / "pkg" / "other.py").write_text(
        "from pkg.sentinel import S\n\ndef on_fault(engine):\n    drop(engine)\n\n"
        "def drop(engine):\n    engine.scheduler.finish_requests(engine.running, 'abort')\n"
    )
    for i in range(50):
        (root / "pkg" / f"filler{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    (root / "ignored").mkdir()
    (root / "ignored" / "x.py").write_text("def on_fault(self):\n    self.scheduler.finish_requests([], 1)\n")
    return root


def _count_forks(monkeypatch) -> list[bool]:
    """Record, per parallel_scan.start call, whether a child was forked."""
    used: list[bool] = []
    real_start = parallel_scan.start

    def counting_start(compute):
        forked = real_start(compute)
        used.append(forked is not None)
        return forked

    monkeypatch.setattr(parallel_scan, "start", counting_start)
    return used


@pytest.mark.parametrize("lint", [["pkg/sentinel.py"], ["pkg/helpers.py"], ["pkg/sentinel.py", "pkg/other.py"]])
def test_forked_scan_gives_the_in_process_findings(tmp_path, monkeypatch, lint):
    root = _project(tmp_path)
    config = load_config(root)
    selected = known_codes()
    used = _count_forks(monkeypatch)
    can_fork = parallel_scan.available()
    runs = {}
    for enabled in (True, False):
        monkeypatch.setattr(parallel_scan, "ENABLED", enabled)
        result = lint_paths([Path(p) for p in lint], config, selected, cwd=root)
        runs[enabled] = ([f.to_dict() for f in result.findings], result.files_scanned, result.files_parsed)
    assert runs[True] == runs[False]
    assert runs[True][0], "the sample has findings"
    assert runs[True][1] == 54  # the project's files, the ignored directory left out
    if lint == ["pkg/helpers.py"]:  # none of the files given may define a handler: no fork (issue 24)
        assert used == []
    else:
        assert used == [can_fork, False]  # forked when it can; never when turned off


def test_a_failing_scan_child_changes_nothing(tmp_path, monkeypatch):
    import ftlint.lint.scan as scan

    root = _project(tmp_path)
    config = load_config(root)
    monkeypatch.setattr(parallel_scan, "ENABLED", False)
    expected = lint_paths([Path("pkg/sentinel.py")], config, known_codes(), cwd=root)
    monkeypatch.setattr(parallel_scan, "ENABLED", True)
    parent = os.getpid()
    real_scan = scan.scan_serial

    def scan_failing_in_child(*args):
        if os.getpid() != parent:
            raise OSError("disk on fire")
        return real_scan(*args)

    monkeypatch.setattr(scan, "scan_serial", scan_failing_in_child)
    got = lint_paths([Path("pkg/sentinel.py")], config, known_codes(), cwd=root)
    assert [f.to_dict() for f in got.findings] == [f.to_dict() for f in expected.findings]
    assert got.files_scanned == expected.files_scanned


@pytest.mark.parametrize("child_first", [True, False])
def test_the_file_given_is_outlined_by_whichever_process_is_free(tmp_path, monkeypatch, child_first):
    """With a cache, the child outlines the files given while the parent imports LibCST;
    the parent takes those outlines when the child is done first, and outlines the files
    itself otherwise. Same findings either way."""
    monkeypatch.delenv("FTLINT_NO_CACHE", raising=False)
    root = _project(tmp_path)
    config = load_config(root)

    def run(cache_dir):
        result = lint_paths([Path("pkg/sentinel.py")], config, known_codes(), cwd=root, cache_dir=cache_dir)
        return [f.to_dict() for f in result.findings]

    monkeypatch.setattr(parallel_scan, "ENABLED", False)
    expected = run(tmp_path / "serial-cache")
    monkeypatch.setattr(parallel_scan, "ENABLED", True)
    # True: the parent finds the child done (and waits for it, so the test does not race)
    monkeypatch.setattr(parallel_scan.Forked, "ready", lambda self: child_first)
    in_parent = outlines_made_here(monkeypatch)
    assert run(tmp_path / "forked-cache") == expected
    helper_text = (root / "pkg" / "helpers.py").read_text()
    assert helper_text in in_parent  # reached through the handler: outlined by the parent
    sentinel_outlined_here = (root / "pkg" / "sentinel.py").read_text() in in_parent
    assert sentinel_outlined_here == (not child_first or not parallel_scan.available())


def test_the_forked_scan_needs_no_libcst(tmp_path):
    """What the child runs (walk, stat table, outlines) stays in the standard library:
    it overlaps the parent's LibCST import instead of repeating it."""
    root = _project(tmp_path)
    driver = textwrap.dedent(
        """
        import sys
        from pathlib import Path
        from ftlint.lint import scan
        from ftlint.core.cache import FileFacts
        from ftlint.core.config import load_config
        from ftlint.index.prefilter import Prefilter
        root = Path(sys.argv[1])
        config = load_config(root)
        given = [str(root / "pkg" / "sentinel.py")]
        facts = FileFacts(None, "", Prefilter(config.handler_patterns()))
        files = scan.ScanFiles(config, given, set(given), str(root))
        files.is_forced = given.__contains__
        count, candidates, _, outlines, _ = scan.scan_and_save(files, facts, None, given, None)
        print(count, len(candidates), len(outlines), bool(outlines[0][1]), "libcst" in sys.modules)
        """
    )
    run = subprocess.run([sys.executable, "-c", driver, str(root)], capture_output=True, text=True, timeout=120)
    assert run.stdout.split() == ["54", "2", "1", "True", "False"], run.stdout + run.stderr


# -- what the batched visit covers ------------------------------------------------------------
def test_rules_visit_fault_path_functions_unless_they_ask_for_the_module(tmp_path):
    from ftlint.lint.lint_runner import FileLinter
    from ftlint.lint.rule import Rule

    seen: dict[bool, list[str]] = {}

    def make(whole: bool):
        class Probe(Rule):
            CODE, NAME, MESSAGE = "FT999", "probe", "probe"
            FAULT_PATH_ONLY = not whole

            def visit_Name(self, node: cst.Name) -> None:
                seen.setdefault(whole, []).append(node.value)

        return Probe

    path = tmp_path / "m.py"
    path.write_text(
        "MODULE_LEVEL = 1\n\ndef unrelated():\n    other = 2\n\n"
        "class S:\n    def on_fault(self, exc):\n        in_handler = 3\n"
    )
    config = load_config(tmp_path)
    for whole in (False, True):
        linter = FileLinter(config, set(), cwd=tmp_path, in_fault_path_file=lambda p: False)
        linter.rules = [make(whole)]
        linter.load([path])
        linter.lint_file(path, "m.py", must_parse=True)
    assert "in_handler" in seen[False] and "MODULE_LEVEL" not in seen[False] and "other" not in seen[False]
    assert {"in_handler", "MODULE_LEVEL", "other"} <= set(seen[True])


def test_forked_scan_with_the_cache_learns_what_the_serial_one_learns(tmp_path, monkeypatch):
    """The child sends back what its walk and stat table learnt; the next run, forked or
    not, is a cache hit; after an edit of the file given, both see the edit."""
    monkeypatch.delenv("FTLINT_NO_CACHE", raising=False)  # tests/conftest.py turns the cache off
    root = _project(tmp_path)
    config = load_config(root)
    sentinel = root / "pkg" / "sentinel.py"
    original = sentinel.read_text()
    outcomes = {}
    for enabled in (True, False):
        monkeypatch.setattr(parallel_scan, "ENABLED", enabled)
        sentinel.write_text(original)
        cache_dir = tmp_path / f"cache-{enabled}"

        def run(cache_dir=cache_dir):
            result = lint_paths([Path("pkg/sentinel.py")], config, known_codes(), cwd=root, cache_dir=cache_dir)
            return sorted((f.path, f.line, f.code) for f in result.findings), result.cache_hit

        first, second = run(), run()
        # FT005 in on_fault, and FT004: abort_all freed every request, so the reset empties the cache
        sentinel.write_text(original + "        self.scheduler.reset_prefix_cache()\n")
        third = run()
        outcomes[enabled] = (first, second, third)
        assert (first[1], second[1], third[1]) == (False, True, False)
        assert len(third[0]) == len(first[0]) + 2
    assert outcomes[True] == outcomes[False]


# -- a linted file outlined: only its fault-path functions parsed -------------------------
OUTLINED_SAMPLE = """\
import functools

MODULE_LEVEL = [x for x in range(3)]


def unrelated(a, b):
    return a < len(b)


class Sentinel:
    def __init__(self):
        self.kv = None

    @functools.wraps(print)
    def on_fault(self, exc):
        def drop_all(reqs):
            for req in reqs:
                req.async_tokens_to_discard = req.num_output_placeholders

        class Local:
            def helper(self, req):
                req.async_tokens_to_discard += 1

        drop_all(self.scheduler.running)
        for req in list(self.scheduler.running):
            self._evict_tail(req)
            # keep the request for resume
            self.scheduler._preempt_request(req, 0.0, drop_stale_output=True)
        self.scheduler.reset_prefix_cache()
        self.scheduler.finish_requests(self.ids, "abort")

    def _evict_tail(self, req):
        if 0 <= req.block_id < len(self.kv.blocks):
            self.kv.evict_blocks(set())


\tdef_after = 1
"""


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("indent", ["    ", "\t"])
def test_an_outlined_linted_file_gives_the_whole_file_findings_and_fixes(tmp_path, newline, indent):
    source = OUTLINED_SAMPLE.replace("\n\tdef_after = 1\n", "\n").replace("    ", indent).replace("\n", newline)
    path = tmp_path / "sentinel.py"
    path.write_bytes(source.encode())
    config = load_config(tmp_path)
    outlined = lint_paths([path], config, known_codes(), cwd=tmp_path)
    whole = lint_paths([path], config, known_codes(), cwd=tmp_path, exhaustive=True)  # parses files whole
    assert [f.to_dict() for f in outlined.findings] == [f.to_dict() for f in whole.findings]
    codes = {f.code for f in outlined.findings}
    assert {"FT001", "FT003", "FT005"} <= codes, codes
    assert any(f.fix for f in outlined.findings)


def test_an_outlined_linted_file_libcst_cannot_parse_is_ft000(tmp_path, monkeypatch):
    """Python reads it, LibCST does not (simulated): the file is reported, not skipped."""
    import ftlint.core.source as source

    path = tmp_path / "sentinel.py"
    path.write_text("class S:\n    def on_fault(self, exc):\n        self.scheduler.reset_prefix_cache()\n")
    monkeypatch.setattr(source, "parse", lambda text: source.ParseFailure("syntax error: simulated", 2, 5))
    result = lint_paths([path], load_config(tmp_path), known_codes(), cwd=tmp_path)
    assert [(f.code, f.line, f.message) for f in result.findings] == [("FT000", 2, "syntax error: simulated")]


SUBCLASSED_HANDLER = """\
class Helper:
    pass

class {cls}:
    def on_fault(self, exc):
        self._release(self.scheduler)

    def _release(self, s):
        for r in s.running:
            for m in s.kv_cache_manager.coordinator.single_type_managers:
                first = (r.num_computed_tokens - r.num_in_flight_tokens) // m.block_size
                s.kv_cache_manager.evict_blocks({{b.block_id for b in m.req_to_blocks[r.request_id][first:]}})
        s.finish_requests(None, "aborted")
"""
SUBCLASS_FREEING_EARLY = """\
from sentinel import {cls}

class Mine({cls}):
    def _release(self, s):
        s.finish_requests(None, "aborted")
"""


@pytest.mark.parametrize("cls", ["Sentinel", "Élan"], ids=["ascii", "non-ascii-class-name"])
def test_the_forked_subclass_scan_finds_what_the_serial_one_does(tmp_path, monkeypatch, cls):
    """A walk reads the files that may subclass a handler's class in a forked child while
    LibCST imports (every class the candidates define, narrowed once they are parsed);
    a handler class the child's byte pattern cannot name (non-ASCII) falls back to reading
    them in-process. Both give the serial run's findings."""
    import ftlint.lint.engine as engine

    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    (tmp_path / "sentinel.py").write_text(SUBCLASSED_HANDLER.format(cls=cls))
    (tmp_path / "mine.py").write_text(SUBCLASS_FREEING_EARLY.format(cls=cls))
    for i in range(5):
        (tmp_path / f"other{i}.py").write_text(f"class Other{i}:\n    pass\n")
    config = load_config(tmp_path)
    monkeypatch.setattr(engine, "SUBCLASS_FORK_THRESHOLD", 1)
    used = _count_forks(monkeypatch)
    can_fork = parallel_scan.available()
    runs = {}
    for enabled in (True, False):
        monkeypatch.setattr(parallel_scan, "ENABLED", enabled)
        result = lint_paths([], config, known_codes(), cwd=tmp_path)
        runs[enabled] = [(f.path, f.line, f.code) for f in result.findings]
    assert runs[True] == runs[False]
    assert ("mine.py", 5, "FT007") in runs[True]
    assert used == ([True] if can_fork else [])  # forked once where it can; never when turned off


@pytest.mark.parametrize("cls", ["Sentinel", "Élan"], ids=["ascii", "non-ascii-class-name"])
@pytest.mark.parametrize("subclassed", [True, False])
def test_a_process_with_no_fault_path_matches_subclasses_in_a_child(tmp_path, monkeypatch, cls, subclassed):
    """A process whose files define no handler (pre-commit's other batches) decides with
    `ast` alone, unless one of its files subclasses a handler's class: those are matched
    in a forked child while the process walks the handler's scope (a class the child's
    byte pattern cannot name: read in-process). The serial run's findings either way."""
    import ftlint.lint.engine as engine

    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    (tmp_path / "sentinel.py").write_text(SUBCLASSED_HANDLER.format(cls=cls))
    mine = SUBCLASS_FREEING_EARLY.format(cls=cls) if subclassed else "def mine():\n    pass\n"
    (tmp_path / "mine.py").write_text(mine)
    for i in range(5):
        (tmp_path / f"other{i}.py").write_text(f"class Other{i}:\n    pass\n")
    lint = [Path("mine.py"), *(Path(f"other{i}.py") for i in range(5))]
    config = load_config(tmp_path)
    monkeypatch.setattr(engine, "SUBCLASS_FORK_THRESHOLD", 1)
    without_linter: list[bool] = []
    real = engine._without_fault_path

    deciding, started = [False], []  # whether the subclass child was forked while deciding
    real_start = engine._start_subclass_scan

    def decided(*args):
        deciding[0] = True
        try:
            outcome = real(*args)
        finally:
            deciding[0] = False
        without_linter.append(outcome is not None)
        return outcome

    def start(*args):
        child = real_start(*args)
        if deciding[0]:
            started.append(child is not None)
        return child

    monkeypatch.setattr(engine, "_without_fault_path", decided)
    monkeypatch.setattr(engine, "_start_subclass_scan", start)
    can_fork = parallel_scan.available()
    runs = {}
    for enabled in (True, False):
        monkeypatch.setattr(parallel_scan, "ENABLED", enabled)
        result = lint_paths(lint, config, known_codes(), cwd=tmp_path)
        runs[enabled] = [(f.path, f.line, f.code) for f in result.findings]
    assert runs[True] == runs[False]
    assert runs[True] == ([("mine.py", 5, "FT007")] if subclassed else [])
    assert without_linter == [not subclassed] * 2  # decided without the linter unless subclassed
    # a child where it can fork (the candidates' bytes name `Helper`: with a non-ASCII handler
    # class the child's matches are not used, the files are read here); never when turned off
    assert started == [can_fork, False]


@pytest.mark.parametrize("filler", [0, 65_536 - 200, 65_536, 3 * 2**20], ids=["small", "just-under-64k", "64k", "3m"])
def test_the_scan_reads_a_file_whole_whatever_its_size(tmp_path, filler):
    """Without a cache the scan reads each file with no stat (one read of 64 KiB, then the
    rest): a handler, and a subclass of its class, after any amount of other text are found."""
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    padding = "# " + "x" * 78 + "\n"
    lines = padding * (filler // len(padding))
    (tmp_path / "sentinel.py").write_text(lines + SUBCLASSED_HANDLER.format(cls="Sentinel"))
    (tmp_path / "mine.py").write_text(lines + SUBCLASS_FREEING_EARLY.format(cls="Sentinel"))
    result = lint_paths([Path("sentinel.py"), Path("mine.py")], load_config(tmp_path), known_codes(), cwd=tmp_path)
    assert [(f.path, f.code) for f in result.findings] == [("mine.py", "FT007")]


def test_a_lint_run_never_imports_libcst_matchers(tmp_path):
    """`libcst.matchers` costs about a quarter second to import (a class per node type; the
    analysis once imported it for one test, and every one-file run paid it): a run through the
    handler walk, every analysis module, must leave it unimported (ftlint.syntax.matchers stands
    in for it)."""
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    (tmp_path / "handler.py").write_text(
        "from vllm.v1.request import RequestStatus\n\n\n"
        "class Sentinel:\n"
        "    def on_fault(self, exc):\n"
        "        sched = self.engine.scheduler\n"
        "        dirty = self.engine.collect()\n"
        "        if dirty:\n"
        "            sched.kv_cache_manager.evict_blocks(dirty)\n"
        "        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)\n"
    )
    code = (
        "import sys, ftlint.cli as cli\n"
        "cli._dispatch(['check', '--no-cache', '--format', 'json', '.'])\n"
        "print('libcst' in sys.modules, 'libcst.matchers' in sys.modules, file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.stderr.strip().splitlines()[-1] == "True False", proc.stderr
