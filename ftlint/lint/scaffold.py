"""`ftlint rule --new CODE NAME [--fix] [--dir DIR]`: write a new rule as one file.

The file holds the Rule class with ruff's doc sections (What it does / Why is this bad? /
Example / Use instead, plus Fix safety with `--fix`) and VALID/INVALID examples that pass
`ftlint.testing` as written: a working rule (it reports `print()` in fault-path code) to
edit into yours. It goes into DIR, by default `./rules` when that folder exists (a
checkout of ftlint: a built-in rule), else the current directory (a local rule, enabled
with `rules = ["module"]` in `[tool.ftlint]`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

CODE = re.compile(r"[A-Z]+[0-9]+")
NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


class ScaffoldError(Exception):
    """A code, name or place the scaffold refuses; one line."""


_HEAD = '''\
"""__CODE__ __NAME__."""

from __future__ import annotations

import libcst as cst

from ftlint.lint.rule import Invalid, Rule, Valid
'''

_DOC = '''

class __CLASS__(Rule):
    """
    ## What it does
    Flags a call of `print()` in fault-path code (a fault handler and the code it reaches).
    (Written by `ftlint rule --new`: replace this rule's check, docs and examples with yours.)

    ## Why is this bad?
    A serving process's stdout is rarely read: a fault reported with `print()` is lost,
    where the log keeps it with its time and context.

    ## Example
    ```python
    def on_fault(self, exc):
        print(exc)
    ```

    Use instead:
    ```python
    def on_fault(self, exc):
        logging.error(exc)
    ```
'''

_FIX_SAFETY = """
    ## Fix safety
    The fix is unsafe: it replaces `print` with `logging.error`, which sends the text to
    the logging handlers instead of stdout, and it does not add `import logging` to a
    module that lacks it. `ftlint check --fix --unsafe-fixes` applies it.
"""

_BODY = '''    """

    CODE = "__CODE__"
    NAME = "__NAME__"
    MESSAGE = "Fault path calls `print()`: log the fault instead"
__FIXABLE__
    VALID = [
        Valid(
            """
            import logging


            def on_fault(self, exc):
                logging.error(exc)
            """,
            name="logs-the-fault",
        ),
        Valid(
            """
            def summary(self):
                print("not a fault path")
            """,
            name="outside-fault-paths",
        ),
    ]
    INVALID = [
        Invalid(
            """
            import logging


            def on_fault(self, exc):
                print(exc)
            """,
            expect=((5, 5),),__FIXED__
            name="print-in-handler",
        ),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "print" and self.in_fault_path(node):
'''

_REPORT = "            self.report(node)\n"

_REPORT_FIX = """            self.report(
                node,
                fix=[Replacement(node.func, cst.Attribute(cst.Name("logging"), cst.Name("error")))],
                fix_title="Call `logging.error` instead",
                unsafe_fix=True,
            )
"""

_FIXED = '''
            fixed="""
            import logging


            def on_fault(self, exc):
                logging.error(exc)
            """,'''


def rule_text(code: str, name: str, *, fix: bool = False) -> str:
    """The new rule module's text."""
    head = _HEAD + ("from ftlint.syntax.textedits import Replacement\n" if fix else "")
    text = head + _DOC + (_FIX_SAFETY if fix else "") + _BODY + (_REPORT_FIX if fix else _REPORT)
    return (
        text.replace("__FIXABLE__", "    FIXABLE = True\n" if fix else "")
        .replace("__FIXED__", _FIXED if fix else "")
        .replace("__CLASS__", class_name(name))
        .replace("__CODE__", code)
        .replace("__NAME__", name)
    )


def class_name(name: str) -> str:
    """`print-in-fault-path` -> `PrintInFaultPath`."""
    return "".join(part.capitalize() for part in name.split("-"))


def file_name(code: str, name: str) -> str:
    """`FT009`, `print-in-fault-path` -> `ft009_print_in_fault_path.py`."""
    return f"{code.lower()}_{name.replace('-', '_')}.py"


def write_rule(code: str, name: str, *, fix: bool = False, directory: Path | None = None) -> Path:
    """Write the rule file and return its path; ScaffoldError for a bad code or name, a
    code a built-in rule has, a missing folder or an existing file (never overwritten)."""
    if not CODE.fullmatch(code):
        hint = f" (did you mean {code.upper()!r}?)" if CODE.fullmatch(code.upper()) else ""
        raise ScaffoldError(f"bad rule code {code!r}: capital letters then digits, e.g. FT009{hint}")
    if not NAME.fullmatch(name):
        raise ScaffoldError(f"bad rule name {name!r}: lower-case words joined by '-', e.g. print-in-fault-path")
    from ftlint.lint.registry import known_codes

    if code in known_codes():
        raise ScaffoldError(f"rule code {code} is already used by a built-in rule (see `ftlint rule --all`)")
    folder = directory if directory is not None else (Path("rules") if os.path.isdir("rules") else Path("."))
    if not folder.is_dir():
        raise ScaffoldError(f"--dir {folder}: no such directory")
    target = folder / file_name(code, name)
    try:
        with open(target, "x", encoding="utf-8", newline="\n") as fh:
            fh.write(rule_text(code, name, fix=fix))
    except FileExistsError:
        raise ScaffoldError(f"{target} already exists (not overwritten)") from None
    except OSError as err:
        raise ScaffoldError(f"cannot write {target}: {err.strerror or err}") from None
    return target


def next_step(path: Path) -> str:
    """What to do after writing `path`: regenerate the docs (a built-in rule, in the
    `ftlint.rules` package), else enable it in the project's configuration."""
    import ftlint.rules

    folder = os.path.realpath(path.parent)
    if any(os.path.realpath(entry) == folder for entry in ftlint.rules.__path__):
        return "next: `python -m ftlint.docs` adds it to README.md's rule table and docs/rules.md"
    relative = os.path.relpath(os.path.realpath(path.with_suffix("")), os.path.realpath(os.getcwd()))
    parts = relative.split(os.sep)
    if not all(part.isidentifier() for part in parts):  # outside the current directory
        return "next: name its module in [tool.ftlint] rules = [...]; its examples run with ftlint.testing"
    return f'next: enable it in [tool.ftlint] with rules = ["{".".join(parts)}"]; its examples run with ftlint.testing'
