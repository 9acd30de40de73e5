"""Settings for every test, and the `vllm` marker by directory.

Test helpers are plain functions in one module, tests/helpers.py (`from tests.helpers import
...`: run the CLI, write a project, shared handler texts, report and LSP builders; the review
tests keep theirs in tests/review/review_helpers.py); fixtures, built on those helpers, live in
the conftest.py of the directory whose tests use them. Nothing edits sys.path.
"""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("FTLINT_NO_CACHE", "1")
# Colour is for terminals: FORCE_COLOR in the environment would colour the text output the
# tests parse (tests/report/test_cli_display.py sets it where it checks colour).
os.environ.pop("FORCE_COLOR", None)

#: Every test under these folders runs vLLM (its scheduler on CPU, or its source tree), so
#: `pytest -m "not vllm"` (make test-static) leaves them out; new tests there are covered.
VLLM_DIRECTORIES = ("runtime", "differential")


def pytest_collection_modifyitems(config, items):
    tests = Path(__file__).resolve().parent
    folders = {tests / name for name in VLLM_DIRECTORIES}
    for item in items:
        if folders.intersection(Path(str(item.path)).resolve().parents):
            item.add_marker(pytest.mark.vllm)
