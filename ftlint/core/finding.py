"""What a check produces: a located finding, and an optional text edit that fixes it.

Positions are 1-based lines and 1-based columns counted in Unicode code points
(the ruff/flake8 text convention); ``end_column`` is exclusive. Reporters that
need other units (UTF-8 bytes for rdjson, UTF-16 for SARIF) convert with
``line_text`` / ``end_line_text``, the source lines the span starts and ends on.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any


class Severity(str, Enum):  # noqa: UP042 -- StrEnum would change str(Severity.X) from "Severity.X" to "x"
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Edit:
    """Replace the text between two positions (same units as Finding) with ``text``."""

    line: int
    column: int
    end_line: int
    end_column: int
    text: str


@dataclass(frozen=True)
class Finding:
    path: str  # as given / discovered, relative to the working directory when possible
    line: int
    column: int
    end_line: int
    end_column: int
    code: str  # "FT001"
    name: str  # "stale-output-discard"
    message: str
    severity: Severity = Severity.ERROR
    line_text: str = ""
    end_line_text: str = ""
    fix: tuple[Edit, ...] = ()  # empty: no fix; several edits apply together
    fix_title: str = ""  # "Remove `drop_stale_output=True`"
    #: "safe" (--fix applies it), "unsafe" (only with --unsafe-fixes: it may change what
    #: the code does beyond the fix), "" when there is no fix (ruff's applicability)
    fix_applicability: str = ""

    @property
    def has_safe_fix(self) -> bool:
        return bool(self.fix) and self.fix_applicability != "unsafe"

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.line, self.column, self.code, self.message)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["severity"] = self.severity.value
        data["fix"] = [asdict(edit) for edit in self.fix]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        data = dict(data)
        data["severity"] = Severity(data["severity"])
        data["fix"] = tuple(Edit(**edit) for edit in data.get("fix", ()))
        return cls(**data)


@dataclass(frozen=True)
class RuleDoc:
    """A rule's documentation page, in ruff's shape; reporters and `ftlint rule` read it."""

    code: str
    name: str
    summary: str  # one line, the rule's message
    what_it_does: str
    why_bad: str
    example: str  # code
    use_instead: str  # code
    severity: Severity = Severity.ERROR
    url: str = ""
    extra: dict[str, str] = field(default_factory=dict)  # e.g. {"Known problems": "..."}

    def markdown(self) -> str:
        parts = [
            f"# {self.name} ({self.code})",
            f"## What it does\n{self.what_it_does}",
            f"## Why is this bad?\n{self.why_bad}",
            f"## Example\n```python\n{self.example.strip()}\n```",
            f"Use instead:\n```python\n{self.use_instead.strip()}\n```",
        ]
        for title, text in self.extra.items():
            parts.append(f"## {title}\n{text}")
        return "\n\n".join(parts) + "\n"
