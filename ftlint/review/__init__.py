"""``ftlint review``: lint the lines a change touched, plus pull-request-level checks.

* :mod:`ftlint.review.diff` — ``git diff REV`` parsed into changed files and line numbers.
* :mod:`ftlint.review.pr_checks` — PR001–PR004 and their rule docs (:func:`pr_docs`).
* :mod:`ftlint.review.command` — the CLI subcommand (``add_arguments``, ``run``).
"""

from __future__ import annotations

from ftlint.review.pr_checks import PR_CODES, pr_docs

__all__ = ["PR_CODES", "pr_docs"]
