"""Fixtures for the reporter tests: hand-built findings (the builders live in tests/helpers.py)."""

from __future__ import annotations

import pytest

from ftlint.core.finding import Finding
from ftlint.report import ReportContext
from tests.helpers import ft001, ft002, make_ctx, pr001


@pytest.fixture
def ctx() -> ReportContext:
    return make_ctx()


@pytest.fixture
def findings() -> list[Finding]:
    return [ft002(), pr001(), ft001()]
