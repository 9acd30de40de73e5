"""FT100 unused-noqa: the check itself runs in the engine (ftlint/lint/unused_noqa.py),
after every other rule of a file has reported; this class is its code, docs and examples."""

from __future__ import annotations

from ftlint.core.finding import Severity
from ftlint.lint.rule import Invalid, Rule, Valid


class UnusedNoqa(Rule):
    """
    ## What it does
    Flags a `# noqa: FTxxx` directive whose FT codes suppressed nothing on its line in
    this run, and FT codes that name no rule (`# noqa: FT999`). Off by default, like
    ruff's `RUF100`: enable it with `--extend-select FT100` or `extend-select = ["FT100"]`
    (`select = ["FT"]`, the default, does not include it; `ALL` does).

    Only what the run proves unused is reported: codes of rules that ran over the file
    (not deselected, not in its `per-file-ignores`), on lines the rules looked at (inside
    a fault-path function, or anywhere in a `fault-paths` file). A bare `# noqa`, other
    tools' codes (`E501`, `BLE001`), `FT000`, and codes a file-level `# ftlint: noqa`
    covers are never reported: a bare `# noqa` is shared with flake8 and ruff, and ftlint
    cannot tell whether another tool needs it.

    ## Why is this bad?
    A suppression outlives the defect it was written for: once the handler is fixed the
    stale `# noqa: FT007` hides the next real FT007 on that line, and a mistyped code
    suppresses nothing at all while looking as if it did.

    ## Example
    ```python
    def on_fault(self, exc):
        self._recover()  # noqa: FT005, E501
    ```

    Use instead:
    ```python
    def on_fault(self, exc):
        self._recover()  # noqa: E501
    ```

    ## Fix safety
    The fix is safe: it removes only the unused or unknown FT codes and their separators
    (each code kept keeps the separator written before it), and keeps every other byte
    of the line: other tools' codes, the words after the codes, spacing, the newline
    (CRLF stays CRLF) and the file's encoding. With no code left it removes the
    directive: the whole comment and the blanks before it when the comment held nothing
    else; the directive up to the next comment when one follows (`# noqa: FT005  # why`
    becomes `# why`); `noqa: ...` when words follow (`# noqa: FT005 reason` becomes
    `# reason`); and `  # noqa: ...` when it ends a longer comment (`# type: ignore`
    stays). `--add-noqa` never adds FT100 (a suppression of an unused suppression).

    ## Known problems
    A noqa outside the fault path is not reported even when no rule could ever use it
    there: whether a function is reached from a handler depends on the whole project and
    the `fault-handlers` setting, so another run may need it.
    """

    CODE = "FT100"
    NAME = "unused-noqa"
    MESSAGE = "Unused `noqa` directive"
    SEVERITY = Severity.WARNING
    FIXABLE = True
    OPT_IN = True

    VALID = [
        Valid(
            """
            class EngineCore:
                def on_fault(self, exc):
                    self.scheduler.finish_requests(None, "aborted")  # noqa: FT007
            """,
            name="used",
        ),
        Valid(
            """
            class EngineCore:
                def on_fault(self, exc):
                    self._recover()  # noqa
                    self._log(exc)  # noqa: E501, BLE001
            """,
            name="bare-and-other-tools",
        ),
        Valid(
            """
            class EngineCore:
                def pause(self):
                    self._recover()  # noqa: FT005

                def on_fault(self, exc):
                    self._log(exc)
            """,
            name="outside-the-fault-path",
        ),
        Valid(
            """
            class EngineCore:
                def on_fault(self, exc):
                    self._recover()  # noqa: FT005
            """,
            config='per-file-ignores = {"example.py" = ["FT005"]}',
            name="per-file-ignored-code",
        ),
    ]
    INVALID = [
        Invalid(
            """
            class EngineCore:
                def on_fault(self, exc):
                    self._recover()  # noqa: FT005
            """,
            expect=((3, 26, "Unused `noqa` directive (unused: `FT005`)"),),
            fixed="""
            class EngineCore:
                def on_fault(self, exc):
                    self._recover()
            """,
            name="unused",
        ),
        Invalid(
            """
            class EngineCore:
                def on_fault(self, exc):
                    self.scheduler.finish_requests(None, "aborted")  # noqa: FT005, FT007
            """,
            expect=((3, 58, "(unused: `FT005`)"),),
            fixed="""
            class EngineCore:
                def on_fault(self, exc):
                    self.scheduler.finish_requests(None, "aborted")  # noqa: FT007
            """,
            name="one-of-two-codes",
        ),
        Invalid(
            """
            class EngineCore:
                def on_fault(self, exc):
                    self._recover()  # noqa: E501,FT999  # why: long line
            """,
            expect=((3, 26, "(unknown: `FT999`)"),),
            fixed="""
            class EngineCore:
                def on_fault(self, exc):
                    self._recover()  # noqa: E501  # why: long line
            """,
            name="unknown-code",
        ),
    ]
