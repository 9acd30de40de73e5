"""Fixtures for `ftlint review` tests (helpers live in review_helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.review.review_helpers import Repo, make_pr_repo, make_repo


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return make_repo(tmp_path)


@pytest.fixture
def pr_repo(repo: Repo) -> Repo:
    return make_pr_repo(repo)
