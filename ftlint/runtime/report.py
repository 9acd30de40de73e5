"""What the verifier reports: violations, the per-handler report, the exception.

Nothing here reads vLLM; it is plain data, safe to import anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# code -> (name, raises by default): filled by the checks' registry
# (``ftlint.runtime.checks.runtime_check``), one entry per registered check, in registration order.
CODES: dict[str, tuple[str, bool]] = {}


@dataclass(frozen=True, init=False)
class Violation:
    """One broken fault-handling invariant.

    ``block_id``/``block_hash``/``token_range`` are ``None`` for request-level
    violations (FTR03, FTR04); ``group`` is the KV-cache group index.
    """

    code: str
    request_id: str
    explanation: str
    block_id: int | None = None
    block_hash: str | None = None
    token_range: tuple[int, int] | None = None
    group: int | None = None

    def __init__(
        self,
        code: str,
        request_id: str,
        explanation: str,
        block_id: int | None = None,
        block_hash: str | None = None,
        token_range: tuple[int, int] | None = None,
        group: int | None = None,
    ) -> None:
        # The dataclass's frozen __init__ sets each field through object.__setattr__: a
        # check that finds 2,000 dirty blocks spent more on that than on the checks.
        # Stores into the instance dict are what that does, at a third of the cost.
        d = self.__dict__
        d["code"] = code
        d["request_id"] = request_id
        d["explanation"] = explanation
        d["block_id"] = block_id
        d["block_hash"] = block_hash
        d["token_range"] = token_range
        d["group"] = group

    @property
    def name(self) -> str:
        return CODES.get(self.code, ("unknown", True))[0]

    def raises(self, strict: bool = False) -> bool:
        """Whether this violation makes ``verify_fault_handling`` raise."""
        return strict or CODES.get(self.code, ("", True))[1]

    def __str__(self) -> str:
        where = [f"request {self.request_id!r}"]
        if self.group is not None:
            where.append(f"group {self.group}")
        if self.block_id is not None:
            where.append(f"block {self.block_id}")
        if self.token_range is not None:
            where.append(f"tokens [{self.token_range[0]}, {self.token_range[1]})")
        if self.block_hash is not None:
            where.append(f"hash {self.block_hash}")
        return f"{self.code} {self.name}: {', '.join(where)}: {self.explanation}"


@dataclass
class FaultReport:
    """Everything one verified fault-handler call produced.

    ``cannot_verify`` lists checks that did not run, each with what was
    missing (a vLLM with renamed fields, a lock that could not be taken...):
    such a report is not a pass, see :attr:`verified`.
    """

    violations: list[Violation] = field(default_factory=list)
    cannot_verify: list[str] = field(default_factory=list)
    dirty_total: int = 0
    dirty_evicted: int = 0
    clean_total: int = 0
    clean_evicted: int = 0
    requests: int = 0
    handler_exception: BaseException | None = None
    complete: bool = False  # set once the exit checks ran
    timed_out: bool = False  # the handler did not return within the observation's timeout

    @property
    def dirty_left_cached(self) -> int:
        return self.dirty_total - self.dirty_evicted

    @property
    def verified(self) -> bool:
        """True when every check ran (violations or not)."""
        return self.complete and not self.cannot_verify

    def failing(self, strict: bool = False) -> list[Violation]:
        return [v for v in self.violations if v.raises(strict)]

    def ok(self, strict: bool = False) -> bool:
        """No raising violation and every check ran."""
        return self.verified and not self.failing(strict)

    def by_code(self, code: str) -> list[Violation]:
        return [v for v in self.violations if v.code == code]

    def summary(self) -> str:
        parts = [
            f"{self.requests} request(s)",
            f"dirty blocks {self.dirty_total} (evicted {self.dirty_evicted})",
            f"clean cached blocks {self.clean_total} (evicted {self.clean_evicted})",
        ]
        return ", ".join(parts)

    def format(self, strict: bool = False) -> str:
        lines = [f"ftlint runtime verifier: {self.summary()}"]
        for v in self.violations:
            tag = "" if v.raises(strict) else " [reported, not raised: strict=False]"
            lines.append(f"  {v}{tag}")
        for reason in self.cannot_verify:
            lines.append(f"  cannot verify: {reason}")
        return "\n".join(lines)


class FaultInvariantError(AssertionError):
    """A fault handler left vLLM's scheduler in a state that breaks an invariant.

    ``violations`` lists every violation found (also those that alone would
    not raise, e.g. FTR02 without ``strict``); ``report`` is the full report.
    """

    def __init__(self, report: FaultReport, strict: bool = False):
        self.report = report
        self.violations = list(report.violations)
        self.strict = strict
        super().__init__(report.format(strict))


class FaultHandlerTimeout(TimeoutError):
    """Raised inside a verified fault handler that ran past the verifier's timeout
    (``--ftlint-verify-timeout``); the report says so as "cannot verify"."""


class FaultVerificationWarning(UserWarning):
    """The verifier could not check something (vLLM layout it does not know)."""
