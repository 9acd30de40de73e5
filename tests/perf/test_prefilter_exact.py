"""The byte prefilter never drops a file that defines a handler: a normal run and an
`--exhaustive` run (which parses every file) give identical findings on adversarial
samples, and the prefilter accepts every file the parser says defines a handler."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ftlint.core.config import Config
from ftlint.index.prefilter import Prefilter
from ftlint.lint.engine import lint_paths
from ftlint.lint.lint_runner import screen_files
from ftlint.lint.registry import known_codes

HANDLER_BODY = """\
        self.scheduler.finish_requests(self.running, "abort")
"""

HELPER = """\
def abort_all(engine):
    engine.scheduler.finish_requests(engine.running, "abort")
"""

# name -> source; each either defines a handler that frees without evicting (FT007 when it
# is one) or only mentions the handler's name where it does not define one.
SAMPLES: dict[str, str] = {
    "plain.py": "class A:\n    def on_fault(self, exc):\n" + HANDLER_BODY,
    "async_def.py": "class A:\n    async def on_fault(self, exc):\n" + HANDLER_BODY,
    "decorated.py": "import functools\nclass A:\n    @functools.lru_cache\n    @staticmethod\n    def on_fault(self):\n"
    + HANDLER_BODY,
    "continuation.py": "class A:\n    def \\\n        on_fault(self, exc):\n" + HANDLER_BODY,
    "continuation_crlf.py": "class A:\r\n    def \\\r\n on_fault(self, exc):\r\n" + HANDLER_BODY.replace("\n", "\r\n"),
    "tabs_formfeed.py": "class A:\n\tdef\t\x0con_fault(self, exc):\n\t\tself.scheduler.finish_requests(self.running, 1)\n",
    "semicolon.py": "import os; x = 1\nclass A:\n    def on_fault(self): self.scheduler.finish_requests(self.running, 1)\n",
    # the name only in strings, comments, calls, attributes: no handler here
    "in_string.py": 's = "def on_fault(self): pass"\nt = """\ndef on_fault(x):\n    pass\n"""\n',
    "in_comment.py": "# def on_fault(self):\nx = 1  # def on_fault\n",
    "call_only.py": "def f(obj):\n    obj.on_fault(None)\n    on_fault = 3\n    return on_fault\n",
    "longer_name.py": "def on_fault_extra(self):\n    self.scheduler.finish_requests(self.running, 1)\n"
    "def my_on_fault(self):\n    self.scheduler.finish_requests(self.running, 1)\n",
    # an alias does not make a handler (the name at the def is what matches)
    "alias.py": "from helpers import abort_all as on_fault\nhandler = on_fault\n",
    "nested_local.py": "def outer(engine):\n    def on_fault(exc):\n        engine.scheduler.finish_requests(engine.running, 1)\n"
    "    return on_fault\n",
    # non-ASCII names, matched by globs
    "unicode_name.py": "class A:\n    def on_fault_é(self):\n"
    + HANDLER_BODY
    + "    def ré_fault(self):\n"
    + HANDLER_BODY,
    "unicode_qmark.py": "class Ω:\n    def on_ßfault(self):\n" + HANDLER_BODY,
    "helpers.py": HELPER,
    "calls_helper.py": "from helpers import abort_all\nclass Sentinel:\n    def recover(self):\n        abort_all(self)\n",
    "latin1.py": "# -*- coding: latin-1 -*-\nclass A:\n    def on_f\xe9ult(self):\n" + HANDLER_BODY,
    "dotted_crossing.py": "class Outer:\n    class bInner:\n        def c(self):\n" + "    " + HANDLER_BODY,
    # step guards (`fault-steps`): an `except` catching a failed engine step frees requests
    "step_guard.py": "class Loop:\n    def run(self):\n        try:\n            self.step()\n        except Exception:\n"
    "            self.scheduler.finish_requests(self.running, 1)\n",
    "step_guard_paren.py": "def run(engine):\n    try:\n        (engine.execute_model) \\\n  (1)\n    except:\n"
    "        engine.scheduler.finish_requests(engine.running, 1)\n",
    "busy_loop.py": "def wrap(busy_loop_func):\n    def run(self):\n        while True:\n            try:\n"
    "                busy_loop_func(self)\n            except (KeyboardInterrupt, RuntimeError):\n"
    "                self.scheduler.finish_requests(self.running, 1)\n                continue\n    return run\n",
    # not guards: the step runs in a nested function, only SystemExit is caught, no try at all
    "step_in_nested_def.py": "def run(engine):\n    try:\n        def later():\n            engine.step()\n"
    "    except Exception:\n        engine.scheduler.finish_requests(engine.running, 1)\n",
    "step_sysexit.py": "def run(engine):\n    try:\n        engine.step()\n    except SystemExit:\n"
    "        engine.scheduler.finish_requests(engine.running, 1)\n",
    "step_no_try.py": "def run(engine):\n    engine.step()\n    engine.scheduler.finish_requests(engine.running, 1)\n"
    "    x = 'except'\n",
}

CONFIGS = {
    "default": "",
    "globs": """\
        extend-fault-handlers = ["on_fault_*", "r?_fault", "on_?fault", "on_[!x]ault", "Sentinel.rec*",
                                 "Outer.b*", "*.on_f?ult"]
    """,
    "star": 'fault-handlers = ["*"]\n',
    "classes": 'fault-handlers = ["on_[a-z]ault", "on_[!]]fault", "[!a]n_fault"]\n',
}


def _write(root: Path, config: str) -> None:
    (root / "pyproject.toml").write_text("[tool.ftlint]\n" + textwrap.dedent(config))
    for name, text in SAMPLES.items():
        data = text.encode("latin-1") if name == "latin1.py" else text.encode("utf-8")
        (root / name).write_bytes(data)


def _config(root: Path) -> Config:
    from ftlint.core.config import load_config

    return load_config(root)


def _findings(result) -> list[tuple]:
    return [(f.path, f.line, f.column, f.code, f.message) for f in result.findings]


@pytest.mark.parametrize("pool", [False, True], ids=["in-process", "pool"])
@pytest.mark.parametrize("config_name", sorted(CONFIGS))
def test_normal_equals_exhaustive(tmp_path, config_name, pool, monkeypatch):
    if pool:  # screen with the process pool even for a small tree
        monkeypatch.setattr("ftlint.lint.lint_runner.PARALLEL_THRESHOLD", 1)
        monkeypatch.setattr("ftlint.lint.lint_runner._workers", lambda: 2)
    _write(tmp_path, CONFIGS[config_name])
    (tmp_path / ".git").mkdir()  # a project root: the whole tree is scanned
    config = _config(tmp_path)
    selected = set(known_codes())
    monkeypatch.chdir(tmp_path)
    normal = lint_paths([], config, selected, cwd=tmp_path)
    exhaustive = lint_paths([], config, selected, cwd=tmp_path, exhaustive=True)
    assert _findings(normal) == _findings(exhaustive)
    assert normal.internal_errors == exhaustive.internal_errors == []
    # and each file alone (explicit paths, scan of the rest)
    for name in ("calls_helper.py", "helpers.py", "plain.py"):
        one = lint_paths([Path(name)], config, selected, cwd=tmp_path)
        one_exhaustive = lint_paths([Path(name)], config, selected, cwd=tmp_path, exhaustive=True)
        assert _findings(one) == _findings(one_exhaustive)


def test_samples_are_adversarial(tmp_path, monkeypatch):
    """The samples do exercise the cases: findings exist, and strings/comments do not count."""
    _write(tmp_path, CONFIGS["globs"])
    (tmp_path / ".git").mkdir()
    config = _config(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = lint_paths([], config, set(known_codes()), cwd=tmp_path)
    files = {f.path for f in result.findings if f.code == "FT007"}
    for name in (
        "plain.py",
        "async_def.py",
        "decorated.py",
        "continuation.py",
        "continuation_crlf.py",
        "tabs_formfeed.py",
        "unicode_name.py",
        "unicode_qmark.py",
        "calls_helper.py",
        "dotted_crossing.py",
        "latin1.py",
        "nested_local.py",
        "step_guard.py",
        "step_guard_paren.py",
        "busy_loop.py",
    ):
        assert name in files, (name, sorted(files))
    for name in ("in_string.py", "in_comment.py", "call_only.py", "alias.py", "step_in_nested_def.py"):
        assert name not in files
    for name in ("step_sysexit.py", "step_no_try.py"):
        assert name not in files


@pytest.mark.parametrize("config_name", sorted(CONFIGS))
def test_prefilter_accepts_every_file_the_parser_says_has_a_handler(tmp_path, config_name):
    _write(tmp_path, CONFIGS[config_name])
    config = _config(tmp_path)
    prefilter = Prefilter(config.handler_patterns(), config.fault_steps)
    paths = sorted(str(p) for p in tmp_path.glob("*.py"))
    screened = screen_files(paths, config.handler_patterns(), config.fault_steps)
    for path in paths:
        if screened[path] in ("handler", "fail"):
            assert prefilter.matches(Path(path).read_bytes()), path


@pytest.mark.parametrize(
    "pattern, source, expected",
    [
        ("on_fault", b"def on_fault(self): pass", True),
        ("on_fault", b"async def on_fault(self): pass", True),
        ("on_fault", b"def \\\n  on_fault(self): pass", True),
        ("on_fault", b"def \\\r\n  on_fault(self): pass", True),
        ("on_fault", b"def \\\r  on_fault(self): pass", True),
        ("on_fault", b"def on_faults(self): pass", False),
        ("on_fault", b"def xon_fault(self): pass", False),
        ("on_fault", b"x.on_fault()", False),
        ("on_?ault", "def on_éault(self): pass".encode(), True),
        ("on_[!x]ault", "def on_éault(self): pass".encode(), True),
        ("on_*", "def on_ünïcode(self): pass".encode(), True),
        ("A.b*", b"class A:\n class bX:\n  def c(self): pass", True),  # '*' crosses the dot
        ("A.b?", b"class A:\n class b:\n  def c(self): pass", True),
        ("on_fault", "# coding: latin-1\ndef on_fault(self): pass".encode("latin-1"), True),
        ("on_fault", b"# coding: utf-16\n", True),  # another encoding: always parsed
        ("on_fault", b"# coding: utf-8\nx = 1\n", False),
        ("on_fault", b"", False),
    ],
)
def test_prefilter_cases(pattern, source, expected):
    assert Prefilter([pattern]).matches(source) is expected


def test_no_patterns_matches_nothing():
    assert Prefilter([]).matches(b"def on_fault(self): pass") is False


@pytest.mark.slow
@pytest.mark.vllm
def test_installed_vllm_normal_equals_exhaustive(tmp_path):
    """The whole installed vLLM package (3,604 files): the prefilter parses 4 of them,
    --exhaustive parses all of them (process pool), and both find the same. ~2-3 min on 2 CPUs."""
    import importlib.util
    import json

    from tests.helpers import run_ftlint

    spec = importlib.util.find_spec("vllm")  # locate without importing
    assert spec is not None and spec.origin, "vLLM must be installed (scripts/bootstrap-env)"
    vllm_dir = str(Path(spec.origin).parent)
    normal = run_ftlint("check", "--format", "json", "--scan-stats", vllm_dir, cwd=tmp_path)
    exhaustive = run_ftlint("check", "--format", "json", "--scan-stats", "--exhaustive", vllm_dir, cwd=tmp_path)
    assert "Traceback" not in normal.stderr + exhaustive.stderr, normal.stderr + exhaustive.stderr
    assert normal.returncode == exhaustive.returncode == 1
    assert json.loads(normal.stdout) == json.loads(exhaustive.stdout)
    assert len(json.loads(normal.stdout)) >= 1
    linted, parsed = (int(w) for w in exhaustive.stderr.split("ftlint: ")[1].split()[0:4:3])
    assert parsed >= linted  # --exhaustive really parsed every file (and the helpers step guards reach)


def test_many_star_glob_runs_in_linear_time():
    """`*a*a*a*a*a*a*a*a*b` against a 60-character name: the regex tried every split of the
    name (42 characters took 11.5 s, 60 never ended); now a few milliseconds."""
    import subprocess
    import sys

    code = (
        "from ftlint.index.prefilter import Prefilter\n"
        "p = Prefilter(['*a*a*a*a*a*a*a*a*b', 'X.*a*a*a*a*a*a*a*a*b'])\n"
        "data = b'class X:\\n    def ' + b'a' * 60 + b'(self): pass\\n' * 1\n"
        "assert p.matches(data) is False\n"
        "assert p.matches(data.replace(b'(self)', b'b(self)')) is True\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=20)


def test_wildcard_globs_match_as_fnmatch_does():
    """Random globs and names over a small alphabet: the prefilter accepts `def <name>`
    exactly when fnmatch matches an ASCII name (the globs with several wildcards included),
    and every name fnmatch matches otherwise (it may accept more: `?` takes a run of
    non-ASCII bytes, a class in a regex any identifier character)."""
    import fnmatch
    import random

    rng = random.Random(23)
    atoms = ["a", "b", "*", "?", "[ab]", "[!a]", "é"]
    for _ in range(3000):
        glob = "".join(rng.choice(atoms) for _ in range(rng.randint(1, 7)))
        if not any(c in glob for c in "ab?[é"):
            glob += "a"
        name = "".join(rng.choice("abé") for _ in range(rng.randint(1, 9)))
        source = f"def {name}(self): pass\n".encode()
        accepted, expected = Prefilter([glob]).matches(source), fnmatch.fnmatchcase(name, glob)
        assert accepted is expected if name.isascii() and "[" not in glob else accepted >= expected, (glob, name)
