"""Issue 6: a rule that crashes on one file is reported as an internal error (file, rule, one
line), the other rules and files still run, and the exit code is 2.

The crashing rule is added in-process the way every rule is added (a module of the
`ftlint.rules` package, here from a temporary folder on the package's path), never to the
source tree.
"""

from __future__ import annotations

import sys

import pytest

import ftlint.lint.registry
import ftlint.rules

FT005 = (
    "Fault path calls `reset_prefix_cache()`: it drops the next output frame and empties the whole "
    "prefix cache instead of the dirty tail"
)
HANDLER = "class Sentinel:\n    def on_fault(self, exc):\n        self.scheduler.reset_prefix_cache()\n"


CRASH_ON_BOOM = '''
import libcst as cst

from ftlint.lint.rule import Rule


class CrashOnBoom(Rule):
    """## What it does
    Crashes on any call to `boom()` (a test rule).

    ## Why is this bad?
    It is not; it tests that one rule's crash is contained.
    """

    CODE = "FT990"
    NAME = "crash-on-boom"
    MESSAGE = "never reported"

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "boom":
            raise ZeroDivisionError("the test rule crashed on purpose")
'''


@pytest.fixture
def crashing_rule(tmp_path_factory):
    """FT990 added as a rule is: one more module in the `ftlint.rules` package (here a folder
    of the package's path for the test's duration), found by the registry like any other."""
    folder = tmp_path_factory.mktemp("more_rules")
    (folder / "ft990_crash_on_boom.py").write_text(CRASH_ON_BOOM)
    search = ftlint.rules.__path__
    search.append(str(folder))
    ftlint.lint.registry.all_rules.cache_clear()
    ftlint.lint.registry.rule_codes.cache_clear()
    try:
        assert "FT990" in ftlint.lint.registry.all_rules() and "FT990" in ftlint.lint.registry.rule_codes()
        yield
    finally:
        search.remove(str(folder))
        sys.modules.pop("ftlint.rules.ft990_crash_on_boom", None)
        ftlint.lint.registry.all_rules.cache_clear()
        ftlint.lint.registry.rule_codes.cache_clear()


def test_one_rule_crashing_on_one_file(tmp_path, ftlint, crashing_rule):
    (tmp_path / "a_boom.py").write_text(HANDLER + "        boom()\n")
    (tmp_path / "b_fine.py").write_text(HANDLER)
    run = ftlint(tmp_path, "a_boom.py", "b_fine.py")
    assert run.code == 2
    # the crash is one line naming the file, the rule and the exception
    assert run.err == (
        "ftlint: a_boom.py: internal error in FT990 (crash-on-boom): "
        "ZeroDivisionError: the test rule crashed on purpose\n"
    )
    # the other rules still ran on the crashing file, and every rule on the other file
    assert run.findings == [
        ("a_boom.py", 3, 9, "FT005", FT005),
        ("b_fine.py", 3, 9, "FT005", FT005),
    ]


def test_crash_in_every_file_is_reported_per_file(tmp_path, ftlint, crashing_rule):
    for name in ("x.py", "y.py"):
        (tmp_path / name).write_text(HANDLER + "        boom()\n")
    run = ftlint(tmp_path)
    assert run.code == 2
    assert run.err.splitlines() == [
        f"ftlint: {name}: internal error in FT990 (crash-on-boom): ZeroDivisionError: the test rule crashed on purpose"
        for name in ("x.py", "y.py")
    ]
    assert [f[0] for f in run.findings] == ["x.py", "y.py"]


def test_exit_zero_does_not_hide_an_internal_error(tmp_path, ftlint, crashing_rule):
    (tmp_path / "a.py").write_text(HANDLER + "        boom()\n")
    run = ftlint(tmp_path, "--exit-zero", "a.py")
    assert run.code == 2


def test_no_crash_no_internal_error(tmp_path, ftlint, crashing_rule):
    (tmp_path / "a.py").write_text(HANDLER)
    run = ftlint(tmp_path, "a.py")
    assert (run.code, run.err) == (1, "")
