"""Fixtures for the reporter tests; the builders live in ``report_fixtures``."""

from __future__ import annotations

import pytest

from ftlint.finding import Finding
from ftlint.report import ReportContext
from tests.report.report_fixtures import ft001, ft002, make_ctx, pr001


@pytest.fixture
def ctx() -> ReportContext:
    return make_ctx()


@pytest.fixture
def findings() -> list[Finding]:
    return [ft002(), pr001(), ft001()]
