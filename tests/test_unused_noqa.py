"""FT100 unused-noqa (issue 23, ruff's RUF100): off by default, reports only what the run
proves unused, fixes byte-for-byte, and gives the same answer from the cache, on stdin,
in the language server's workspace and under --add-noqa. The rule's VALID/INVALID
examples (tests/test_rule_examples.py, FT100-*) cover the basic cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ftlint.core.config import Config, load_config, select_codes
from ftlint.core.suppressions import noqa_directives
from ftlint.lint.engine import lint_paths
from ftlint.lint.registry import all_rules, known_codes, opt_in_codes
from ftlint.lint.unused_noqa import CODE, NAME, removal_edit
from ftlint.lint.workspace import Workspace
from ftlint.syntax import textedits
from tests.helpers import check_stdin, run_in_process

HANDLER = "class EngineCore:\n    def on_fault(self, exc):\n"
#: FT007 is reported on this line (a free without evicting the dirty tail first)
FREES = '        self.scheduler.finish_requests(None, "aborted")'


def project(tmp_path: Path, files: dict[str, str | bytes], config: str = "") -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n" + config)
    for name, content in files.items():
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, newline="")
    return tmp_path


def ft100(tmp_path: Path, *args: str, monkeypatch, capsys) -> list[tuple[int, int, str]]:
    run = run_in_process(monkeypatch, capsys, tmp_path, "--format", "json", *args, ".")
    return [(f["line"], f["column"], f["message"]) for f in json.loads(run.out or "[]") if f["code"] == CODE]


# -- the rule and its selection ---------------------------------------------------------------


def test_the_rule_is_registered_opt_in_and_matches_the_engine():
    rule = all_rules()[CODE]
    assert (rule.NAME, rule.OPT_IN, rule.FIXABLE) == (NAME, True, True)
    assert opt_in_codes() == {code for code, r in all_rules().items() if r.OPT_IN} == {CODE}
    assert "Fix safety" in rule.docs().extra


@pytest.mark.parametrize(
    "select, extend, enabled",
    [
        (None, [], False),  # the default `FT`
        (["FT"], [], False),
        (["FT"], ["FT100"], True),
        (["FT1"], [], True),
        (["ALL"], [], True),
        (["FT100"], [], True),
    ],
)
def test_off_by_default_selected_by_name_prefix_or_all(select, extend, enabled):
    known = known_codes()
    chosen = select_codes(select, [], known, extend_select=extend, opt_in=opt_in_codes())
    assert (CODE in chosen) is enabled


def test_config_extend_select_enables_it_and_ignore_wins(tmp_path):
    known = known_codes()
    on = Config(root=tmp_path, extend_select=("FT100",))
    assert CODE in select_codes(on, [], known, opt_in=opt_in_codes())
    off = Config(root=tmp_path, extend_select=("FT100",), ignore=("FT100",))
    assert CODE not in select_codes(off, [], known, opt_in=opt_in_codes())


def test_default_run_reports_nothing_extend_select_reports_it(tmp_path, monkeypatch, capsys):
    project(tmp_path, {"a.py": HANDLER + "        self._recover()  # noqa: FT005\n"})
    assert ft100(tmp_path, monkeypatch=monkeypatch, capsys=capsys) == []
    assert ft100(tmp_path, "--extend-select", "FT100", monkeypatch=monkeypatch, capsys=capsys) == [
        (3, 26, "Unused `noqa` directive (unused: `FT005`)")
    ]
    project(tmp_path, {}, 'extend-select = ["FT100"]\n')
    assert len(ft100(tmp_path, monkeypatch=monkeypatch, capsys=capsys)) == 1


# -- what counts as unused ------------------------------------------------------------------


def test_only_codes_checked_in_this_run_count(tmp_path, monkeypatch, capsys):
    project(tmp_path, {"a.py": HANDLER + "        self._recover()  # noqa: FT005\n"})
    # FT005 deselected (by --ignore, or not in --select): not "unused"
    assert (
        ft100(tmp_path, "--extend-select", "FT100", "--ignore", "FT005", monkeypatch=monkeypatch, capsys=capsys) == []
    )
    assert ft100(tmp_path, "--select", "FT100", monkeypatch=monkeypatch, capsys=capsys) == []
    assert len(ft100(tmp_path, "--select", "FT100,FT005", monkeypatch=monkeypatch, capsys=capsys)) == 1


def test_a_per_file_ignores_prefix_counts_as_deselected(tmp_path, monkeypatch, capsys):
    project(
        tmp_path,
        {"a.py": HANDLER + "        self._recover()  # noqa: FT005\n"},
        '[tool.ftlint.per-file-ignores]\n"a.py" = ["FT00"]\n',
    )
    assert ft100(tmp_path, "--extend-select", "FT100", monkeypatch=monkeypatch, capsys=capsys) == []


def test_unknown_codes_are_reported_with_their_own_message(tmp_path, monkeypatch, capsys):
    project(tmp_path, {"a.py": HANDLER + "        self._recover()  # noqa: FT999, FT005, E501\n"})
    found = ft100(tmp_path, "--extend-select", "FT100", monkeypatch=monkeypatch, capsys=capsys)
    assert found == [(3, 26, "Unused `noqa` directive (unused: `FT005`; unknown: `FT999`)")]
    # an unknown code is unknown whatever is selected
    project(tmp_path, {"a.py": HANDLER + "        self._recover()  # noqa: FT999\n"})
    assert ft100(tmp_path, "--select", "FT100", monkeypatch=monkeypatch, capsys=capsys) == [
        (3, 26, "Unused `noqa` directive (unknown: `FT999`)")
    ]


def test_never_bare_noqa_other_tools_ft000_or_file_level_codes(tmp_path, monkeypatch, capsys):
    source = (
        HANDLER
        + "        self._recover()  # noqa\n"
        + "        self._log(exc)  # noqa: E501, BLE001\n"
        + "        self._step()  # noqa: FT000\n"
        + "        self._reset()  # noqa: FT003\n"
        + "# ftlint: noqa: FT003\n"
    )
    project(tmp_path, {"a.py": source})
    assert ft100(tmp_path, "--extend-select", "FT100", monkeypatch=monkeypatch, capsys=capsys) == []


def test_a_noqa_used_through_its_statement_is_used(tmp_path, monkeypatch, capsys):
    """flake8's rule, as suppressions.py reads it: a noqa on the last line of a multi-line
    statement covers a finding on its first line."""
    source = (
        HANDLER + '        self.scheduler.finish_requests(\n            None, "aborted"\n        )  # noqa: FT007\n'
    )
    project(tmp_path, {"a.py": source})
    run = run_in_process(monkeypatch, capsys, tmp_path, "--extend-select", "FT100", ".")
    assert run.code == 0 and run.findings == []


def test_only_lines_the_rules_visited(tmp_path, monkeypatch, capsys):
    """Outside a fault-path function (module level, a function no handler reaches, a
    function nested in the handler that is not in the fault path) a noqa is left alone;
    in a `fault-paths` file every line is visited."""
    source = (
        "import os  # noqa: FT005\n"
        "def helper():\n"
        "    os.sync()  # noqa: FT005\n"
        + HANDLER
        + "        self._recover()  # noqa: FT005\n"
        + "        def later():\n"
        + "            os.sync()  # noqa: FT005\n"
    )
    project(tmp_path, {"a.py": source})
    found = ft100(tmp_path, "--extend-select", "FT100", monkeypatch=monkeypatch, capsys=capsys)
    assert [line for line, _, _ in found] == [6]
    project(tmp_path, {}, 'fault-paths = ["a.py"]\n')
    found = ft100(tmp_path, "--extend-select", "FT100", monkeypatch=monkeypatch, capsys=capsys)
    assert [line for line, _, _ in found] == [1, 3, 6, 8]


def test_ft100_is_suppressed_like_any_code(tmp_path, monkeypatch, capsys):
    project(tmp_path, {"a.py": HANDLER + "        self._recover()  # noqa: FT005, FT100\n"})
    assert ft100(tmp_path, "--extend-select", "FT100", monkeypatch=monkeypatch, capsys=capsys) == []
    project(
        tmp_path,
        {"a.py": HANDLER + "        self._recover()  # noqa: FT005\n"},
        '[tool.ftlint.per-file-ignores]\n"a.py" = ["FT100"]\n',
    )
    assert ft100(tmp_path, "--extend-select", "FT100", monkeypatch=monkeypatch, capsys=capsys) == []


# -- the fix ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line, fixed",
    [
        ("x()  # noqa: FT005", "x()"),
        ("x()\t# noqa:FT005   ", "x()"),
        ("x()  # NOQA: ft005, E501", "x()  # NOQA: E501"),
        ("x()  # noqa: E501,FT005 ,BLE001  # why", "x()  # noqa: E501 ,BLE001  # why"),
        ("x()  # noqa: FT005, FT999  # why: it is", "x()  # why: it is"),
        ("x()  # noqa: FT005 see the design doc", "x()  # see the design doc"),
        ("x()  # type: ignore  # noqa: FT005", "x()  # type: ignore"),
        ("x()  # noqa: FT005, FT007", "x()  # noqa: FT007"),
        ("x()  # noqa: FT007 FT005", "x()  # noqa: FT007"),
    ],
)
def test_removal_edit_keeps_everything_but_the_unused_codes(line, fixed):
    text = line + "\n"
    (directive,) = noqa_directives(text)
    removed = {start for code, start, _ in directive.codes if code.upper() in ("FT005", "FT999")}
    edit = removal_edit(line, directive, removed)
    assert textedits.apply_edits(text, [(edit,)])[0] == fixed + "\n"


@pytest.mark.parametrize("newline", ["\n", "\r\n", ""])
def test_a_directive_alone_on_its_line_goes_with_its_line(newline):
    text = "def f():\n    x()\n    # noqa: FT005" + newline + ("    y()\n" if newline else "")
    (directive,) = noqa_directives(text)
    edit = removal_edit("    # noqa: FT005", directive, {directive.codes[0][1]})
    assert textedits.apply_edits(text, [(edit,)])[0] == "def f():\n    x()\n" + ("    y()\n" if newline else "")


def test_fix_is_byte_for_byte_crlf_and_latin1(tmp_path, monkeypatch, capsys):
    crlf = (HANDLER + "        self._recover()  # noqa: FT005, E501  \n" + FREES + "  # noqa: FT007\n").replace(
        "\n", "\r\n"
    )
    latin1 = ("# -*- coding: latin-1 -*-\n" + HANDLER + '        self._log("café")  # noqa: FT999,X1 # é\n').encode(
        "latin-1"
    )
    project(tmp_path, {"crlf.py": crlf.encode(), "latin.py": latin1})
    run = run_in_process(monkeypatch, capsys, tmp_path, "--extend-select", "FT100", "--fix", ".")
    assert run.code == 0, run.out
    assert (tmp_path / "crlf.py").read_bytes() == crlf.replace("# noqa: FT005, E501", "# noqa: E501").encode()
    assert (tmp_path / "latin.py").read_bytes() == latin1.replace(b"# noqa: FT999,X1 # \xe9", b"# noqa: X1 # \xe9")


# -- the other surfaces ------------------------------------------------------------------------


def test_cached_run_gives_the_same_finding(tmp_path, monkeypatch):
    monkeypatch.delenv("FTLINT_NO_CACHE", raising=False)
    project(tmp_path, {"a.py": HANDLER + "        self._recover()  # noqa: FT005\n"})
    config = load_config(tmp_path)
    selected = {*known_codes()}
    cache = tmp_path / ".cache"
    first = lint_paths(["a.py"], config, selected, cwd=tmp_path, cache_dir=cache)
    second = lint_paths(["a.py"], config, selected, cwd=tmp_path, cache_dir=cache)
    assert second.cache_hit and not first.cache_hit
    assert [f.code for f in first.findings] == [CODE] and second.findings == first.findings
    without = lint_paths(["a.py"], config, selected - {CODE}, cwd=tmp_path, cache_dir=cache)
    assert not without.cache_hit and without.findings == []


def test_add_noqa_never_adds_ft100(tmp_path, monkeypatch, capsys):
    source = HANDLER + "        self._recover()  # noqa: FT005\n" + FREES + "\n"
    project(tmp_path, {"a.py": source})
    run = run_in_process(monkeypatch, capsys, tmp_path, "--extend-select", "FT100", "--add-noqa", ".")
    assert run.code == 0, run.err
    assert (tmp_path / "a.py").read_text() == source.replace(FREES, FREES + "  # noqa: FT007")


def test_stdin_reports_it(tmp_path):
    project(tmp_path, {})
    proc = check_stdin(
        HANDLER + "        self._recover()  # noqa: FT005\n",
        "--extend-select",
        "FT100",
        "--format",
        "json",
        name="a.py",
        cwd=tmp_path,
    )
    assert [(f["code"], f["line"]) for f in json.loads(proc.stdout)] == [(CODE, 3)]
    text = HANDLER + "        self._recover()  # noqa: FT005, E501\r\n"
    fixed = check_stdin(text, "--extend-select", "FT100", "--fix", name="a.py", cwd=tmp_path)
    assert fixed.returncode == 0 and fixed.stdout == text.replace("FT005, ", "").encode()


def test_workspace_reports_it_when_selected(tmp_path):
    """The language server's and stdin's way (lint.workspace): FT100 once selected only."""
    project(tmp_path, {"a.py": HANDLER + "        self._recover()  # noqa: FT005\n"})
    config = load_config(tmp_path)
    default = Workspace(config, select_codes(config, [], known_codes(), opt_in=opt_in_codes()))
    assert default.lint(tmp_path / "a.py").findings == []
    chosen = select_codes(config, [], known_codes(), extend_select=["FT100"], opt_in=opt_in_codes())
    assert [(f.code, f.line) for f in Workspace(config, chosen).lint(tmp_path / "a.py").findings] == [(CODE, 3)]
