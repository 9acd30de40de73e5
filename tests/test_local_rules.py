"""Local rules (issue 25 item 1): a project's own rule modules, named by `rules` in
`[tool.ftlint]`, run beside the built-in ones; their examples run through ftlint.testing
in the project's own test suite; `ftlint rule --new` writes a rule file; every rule with
a fix documents its **Fix safety**.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ftlint.core.config import ConfigError, load_config
from ftlint.lint.registry import all_docs, all_rules, known_codes, rules_for
from ftlint.lint.scaffold import file_name
from ftlint.testing import check_example, example_params, examples
from tests.helpers import ftlint_env, run_ftlint, run_in_process, run_python, write_project

ROOT = Path(__file__).resolve().parent.parent
#: docs/local-rules.md's example project: path (the fence's info string) -> text
DOC_FILES = {
    m["path"]: m["body"]
    for m in re.finditer(
        r"^```\w+(?: no-run)? (?P<path>\S+)\n(?P<body>.*?)^```$",
        (ROOT / "docs" / "local-rules.md").read_text(encoding="utf-8"),
        re.M | re.S,
    )
}
#: One local rule, a module of its own: `time.sleep()` in fault-path code (the documented one).
SLEEP_RULE = DOC_FILES["myproject/lint_rules.py"]

HANDLER = """\
import time


class Sentinel:
    def on_fault(self, exc):
        time.sleep(0.5)
"""


@pytest.fixture
def forget_modules():
    """The project modules a test imports leave sys.modules with it (each test's are new)."""
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.split(".")[0] in ("myproject", "myrules", "other_rules", "broken_rules", "scaffolded"):
            del sys.modules[name]


def sleep_project(root: Path, extra_config: str = "") -> Path:
    """docs/local-rules.md's project (its pyproject and rule module) and a handler that sleeps."""
    write_project(root, {"myproject/lint_rules.py": SLEEP_RULE, "handler.py": HANDLER})
    (root / "pyproject.toml").write_text(DOC_FILES["pyproject.toml"] + extra_config)
    return root


def test_a_rule_added_in_a_project_runs_with_its_examples_and_docs(tmp_path, forget_modules, monkeypatch):
    """Done when (issue 25): one file plus one config line add a rule to a project: `ftlint
    check` reports it, its examples pass through ftlint.testing, `ftlint rule` shows it."""
    sleep_project(tmp_path)
    check = run_ftlint("check", "handler.py", cwd=tmp_path)
    assert check.returncode == 1, check.stderr
    assert check.stdout.splitlines()[0] == "handler.py:6:9: FT101 Fault path sleeps"
    page = run_ftlint("rule", "FT101", cwd=tmp_path)
    assert page.returncode == 0, page.stderr
    assert page.stdout.startswith("# sleep-in-fault-path (FT101)\n\n## What it does\nFlags `time.sleep()`")
    listing = run_ftlint("rule", "--all", cwd=tmp_path)
    assert [line.split()[0] for line in listing.stdout.splitlines()] == [*known_codes(), "FT101"]
    monkeypatch.syspath_prepend(str(tmp_path))
    import myproject.lint_rules

    found = examples(myproject.lint_rules)
    assert [e.id for e in found] == ["FT101-VALID-1", "FT101-INVALID-1"]
    for index, example in enumerate(found):
        (tmp_path / f"example{index}").mkdir()
        check_example(example, tmp_path / f"example{index}")


def test_local_codes_select_ignore_and_read_without_import(tmp_path, forget_modules, monkeypatch, capsys):
    sleep_project(tmp_path)
    config = load_config(tmp_path)
    assert known_codes(config) == [*known_codes(), "FT101"]
    assert "myproject.lint_rules" not in sys.modules  # codes come from the source
    assert run_in_process(monkeypatch, capsys, tmp_path, "--select", "FT101").findings == [
        ("handler.py", 6, 9, "FT101", "Fault path sleeps")
    ]
    assert run_in_process(monkeypatch, capsys, tmp_path, "--ignore", "FT101").code == 0
    assert run_in_process(monkeypatch, capsys, tmp_path, "--select", "FT001").code == 0
    assert list(rules_for(config)) == [*all_rules(), "FT101"]
    assert all_docs(config=config)["FT101"].name == "sleep-in-fault-path"


def test_unused_noqa_knows_local_codes(tmp_path, forget_modules, monkeypatch, capsys):
    """FT100 (unused noqa) counts a local code as a known one, selected or not."""
    sleep_project(tmp_path)
    (tmp_path / "handler.py").write_text(HANDLER.replace("time.sleep(0.5)", "time.sleep(0.5)  # noqa: FT101, FT102"))
    run = run_in_process(monkeypatch, capsys, tmp_path, "--select", "FT100", "handler.py")
    assert [(f[1], f[3]) for f in run.findings] == [(6, "FT100")]
    assert "unknown: `FT102`" in run.out and "FT101" not in run.out


def test_an_opt_in_local_rule_is_off_by_default(tmp_path, forget_modules, monkeypatch, capsys):
    sleep_project(tmp_path)
    (tmp_path / "myproject" / "lint_rules.py").write_text(
        SLEEP_RULE.replace('    CODE = "FT101"', '    OPT_IN = True\n    CODE = "FT101"')
    )
    assert run_in_process(monkeypatch, capsys, tmp_path, "handler.py").code == 0
    run = run_in_process(monkeypatch, capsys, tmp_path, "--extend-select", "FT101", "handler.py")
    assert [f[3] for f in run.findings] == ["FT101"]


def test_a_prefix_of_its_own_is_selected_with_extend_select(tmp_path, forget_modules, monkeypatch, capsys):
    """The default selection is `FT`: a local rule with another prefix is enabled with
    `extend-select`, like any other code."""
    sleep_project(tmp_path)
    (tmp_path / "myproject" / "lint_rules.py").write_text(SLEEP_RULE.replace("FT101", "ACME1"))
    assert run_in_process(monkeypatch, capsys, tmp_path).code == 0
    run = run_in_process(monkeypatch, capsys, tmp_path, "--extend-select", "ACME")
    assert (run.code, run.out.splitlines()[0]) == (1, "handler.py:6:9: ACME1 Fault path sleeps")


def test_rules_from_a_package_and_a_standalone_ftlint_toml(tmp_path, forget_modules, monkeypatch, capsys):
    """A package name (here a namespace package) loads the rules of its modules; `rules` also
    works in a standalone ftlint.toml (`--config`)."""
    write_project(tmp_path, {"myrules/sleep.py": SLEEP_RULE, "handler.py": HANDLER})
    (tmp_path / "ftlint.toml").write_text('rules = ["myrules"]\n')
    run = run_in_process(monkeypatch, capsys, tmp_path, "--config", "ftlint.toml", "handler.py")
    assert [f[3] for f in run.findings] == ["FT101"]


BROKEN = [
    ('rules = ["myproject.missing"]', {}, "rules: cannot find module 'myproject.missing' (looked in the project root"),
    (
        'rules = ["broken_rules"]',
        {"broken_rules.py": SLEEP_RULE + "\nimport no_such_module\n"},
        "rules: importing 'broken_rules' failed: ModuleNotFoundError: No module named 'no_such_module'",
    ),
    (
        'rules = ["broken_rules"]',
        {"broken_rules.py": SLEEP_RULE + "\nclass Oops(\n"},
        "rules: importing 'broken_rules' failed: SyntaxError: '(' was never closed",
    ),
    (
        'rules = ["broken_rules"]',
        {"broken_rules.py": SLEEP_RULE.replace("FT101", "FT004")},
        "rules: module 'broken_rules': rule code FT004 is already used by a built-in rule",
    ),
    (
        'rules = ["myproject.lint_rules", "other_rules"]',
        {"other_rules.py": SLEEP_RULE},
        "rules: module 'other_rules': rule code FT101 is already used by module 'myproject.lint_rules'",
    ),
    ('rules = ["other_rules"]', {"other_rules.py": "HELPERS = 1\n"}, "rules: module 'other_rules' holds no rule"),
    (
        'rules = ["other_rules"]',
        {"other_rules.py": 'class NotARule:\n    CODE = "FT102"\n'},
        "rules: module 'other_rules' holds no rule (no subclass of ftlint.lint.rule.Rule)",
    ),
    ('rules = ["bad name"]', {}, "rules: expected a dotted module name such as 'myproject.lint_rules', got 'bad name'"),
    ('rules = "myproject"', {}, "rules: expected a list of strings, got str"),
]


@pytest.mark.parametrize(("config", "files", "message"), BROKEN, ids=[m.split(": ", 2)[1][:30] for *_, m in BROKEN])
def test_a_local_rule_that_cannot_be_used_is_one_line_and_exit_2(
    tmp_path, forget_modules, monkeypatch, capsys, config, files, message
):
    sleep_project(tmp_path)
    (tmp_path / "pyproject.toml").write_text(f"[tool.ftlint]\n{config}\n")
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    for command, args in (("check", ("handler.py",)), ("rule", ("FT101",))):
        run = run_in_process(monkeypatch, capsys, tmp_path, *args, command=command)
        assert run.code == 2
        assert run.err.startswith(f"ftlint: error: {tmp_path / 'pyproject.toml'}: [tool.ftlint] {message}"), run.err
        assert len(run.err.splitlines()) == 1


def test_editing_a_local_rule_invalidates_the_result_cache(tmp_path):
    sleep_project(tmp_path)
    env = {"FTLINT_NO_CACHE": ""}
    first = run_ftlint("check", "handler.py", cwd=tmp_path, env=env)
    assert "FT101 Fault path sleeps" in first.stdout
    rule = tmp_path / "myproject" / "lint_rules.py"
    rule.write_text(SLEEP_RULE.replace('MESSAGE = "Fault path sleeps"', 'MESSAGE = "Fault path sleeps (edited)"'))
    second = run_ftlint("check", "handler.py", cwd=tmp_path, env=env)
    assert "FT101 Fault path sleeps (edited)" in second.stdout, second.stdout


def test_a_cached_run_with_local_rules_imports_neither_them_nor_libcst(tmp_path):
    """The codes and the cache key come from the rule modules' sources: a warm run imports
    nothing of them (nor LibCST, ~0.5 s)."""
    sleep_project(tmp_path)
    env = {"FTLINT_NO_CACHE": ""}
    first = run_ftlint("check", "handler.py", cwd=tmp_path, env=env)
    assert first.returncode == 1
    probe = (
        "import sys; from ftlint.cli import main; code = main(['check', 'handler.py']); "
        "print('IMPORTED', 'libcst' in sys.modules, 'myproject.lint_rules' in sys.modules); sys.exit(code)"
    )
    proc = run_python(probe, cwd=tmp_path, env=env)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines() == [*first.stdout.splitlines(), "IMPORTED False False"]


def test_the_projects_own_test_suite_runs_its_rule_examples(tmp_path):
    """docs/local-rules.md's project with its test file using ftlint.testing (pytest in a
    subprocess): the examples pass as written; a wrong `expect` fails, naming the example."""
    sleep_project(tmp_path)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_lint_rules.py").write_text(DOC_FILES["tests/test_lint_rules.py"])
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
    env = ftlint_env()
    passed = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "2 passed" in passed.stdout
    rule = tmp_path / "myproject" / "lint_rules.py"
    rule.write_text(SLEEP_RULE.replace("expect=((4, 5),)", "expect=((3, 5),)"))
    failed = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert failed.returncode == 1
    assert "FAILED tests/test_lint_rules.py::test_rule_example[FT101-INVALID-1]" in failed.stdout
    assert "no finding matches" in failed.stdout


# -- ftlint rule --new ------------------------------------------------------------------------


def _import_file(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("fix", [False, True], ids=["plain", "with-fix"])
def test_the_scaffold_writes_one_rule_file_whose_examples_pass(tmp_path, forget_modules, monkeypatch, capsys, fix):
    (tmp_path / "scaffolded").mkdir()
    args = ["--new", "FT109", "print-in-fault-path", "--dir", "scaffolded", *(["--fix"] if fix else [])]
    run = run_in_process(monkeypatch, capsys, tmp_path, *args, command="rule")
    path = tmp_path / "scaffolded" / "ft109_print_in_fault_path.py"
    assert run.code == 0
    wrote, enable = run.out.splitlines()
    assert wrote == f"wrote {Path('scaffolded') / path.name}"
    assert enable.startswith('next: enable it in [tool.ftlint] with rules = ["scaffolded.ft109_print_in_fault_path"]')
    module = _import_file(path, "scaffolded.ft109_print_in_fault_path")
    rule = module.PrintInFaultPath
    assert rule.CODE == "FT109"
    assert rule.NAME == "print-in-fault-path"
    assert rule.FIXABLE is fix
    doc = rule.docs()
    assert doc.what_it_does and doc.why_bad and doc.example and doc.use_instead
    assert list(doc.extra) == (["Fix safety"] if fix else [])
    for index, example in enumerate(examples([rule])):
        (tmp_path / f"example{index}").mkdir()
        check_example(example, tmp_path / f"example{index}")
    assert any(e.case.fixed for e in examples([rule])) == fix
    again = run_in_process(monkeypatch, capsys, tmp_path, *args, command="rule")
    assert again.code == 2 and "already exists (not overwritten)" in again.err
    # enabled as the command said: `ftlint rule` shows it, its Fix column and Fix safety
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n" + enable.split(" with ")[1].split(";")[0] + "\n")
    table = run_in_process(monkeypatch, capsys, tmp_path, "--all", "--format", "table", command="rule")
    assert f"| FT109 | print-in-fault-path | {'yes' if fix else ''} | Fault path calls `print()`" in table.out
    page = run_in_process(monkeypatch, capsys, tmp_path, "FT109", command="rule").out
    assert page.startswith("# print-in-fault-path (FT109)\n") and ("## Fix safety" in page) == fix


def test_the_scaffold_goes_to_rules_when_there_is_one(tmp_path, monkeypatch, capsys):
    assert run_in_process(monkeypatch, capsys, tmp_path, "--new", "FT109", "a-b", command="rule").code == 0
    assert (tmp_path / file_name("FT109", "a-b")).is_file()
    (tmp_path / "rules").mkdir()
    assert run_in_process(monkeypatch, capsys, tmp_path, "--new", "FT109", "a-b", command="rule").code == 0
    assert (tmp_path / "rules" / "ft109_a_b.py").is_file()


def test_a_rule_written_into_ftlints_rules_says_to_regenerate_the_docs(tmp_path, monkeypatch, capsys):
    import ftlint.rules

    monkeypatch.setattr(ftlint.rules, "__path__", [*ftlint.rules.__path__, str(tmp_path)])
    run = run_in_process(monkeypatch, capsys, tmp_path, "--new", "FT109", "a-b", "--dir", ".", command="rule")
    assert (
        run.out.splitlines()[1] == "next: `python -m ftlint.docs` adds it to README.md's rule table and docs/rules.md"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ft109", "a-b"], "bad rule code 'ft109': capital letters then digits, e.g. FT009 (did you mean 'FT109'?)"),
        (["FT109", "A_b"], "bad rule name 'A_b': lower-case words joined by '-'"),
        (["FT004", "a-b"], "rule code FT004 is already used by a built-in rule"),
        (["FT109", "a-b", "--dir", "nowhere"], "--dir nowhere: no such directory"),
    ],
)
def test_the_scaffold_refuses_bad_input(tmp_path, monkeypatch, capsys, args, message):
    run = run_in_process(monkeypatch, capsys, tmp_path, "--new", *args, command="rule")
    assert run.code == 2
    assert run.err.startswith(f"ftlint: error: rule --new: {message}"), run.err
    assert list(tmp_path.iterdir()) == []


# -- Fix safety -------------------------------------------------------------------------------


@pytest.mark.parametrize("code", [code for code, rule in all_rules().items() if rule.FIXABLE])
def test_every_rule_with_a_fix_documents_its_fix_safety(code, tmp_path):
    safety = all_rules()[code].docs().extra.get("Fix safety", "")
    assert "safe" in safety, f"{code} offers a fix: its docstring needs a `## Fix safety` section"
    page = run_ftlint("rule", code, cwd=tmp_path)
    assert f"\n## Fix safety\n{safety}\n" in page.stdout
    rules_md = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
    assert f"\n## Fix safety\n{safety}\n" in rules_md.read_text(encoding="utf-8")


def test_a_config_error_is_a_config_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.ftlint]\nrules = ["a..b"]\n')
    with pytest.raises(ConfigError, match=r"\[tool.ftlint\] rules: expected a dotted module name"):
        load_config(tmp_path)


def test_example_params_take_a_module_classes_or_a_mapping(tmp_path, forget_modules, monkeypatch):
    sleep_project(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    import myproject.lint_rules as module

    ids = [p.id for p in example_params(module)]
    assert ids == [p.id for p in example_params([module.SleepInFaultPath])] == ["FT101-VALID-1", "FT101-INVALID-1"]
    assert [p.id for p in example_params({"FT101": module.SleepInFaultPath})] == ids
    with pytest.raises(ValueError, match="holds no Rule subclass"):
        example_params(textwrap)
