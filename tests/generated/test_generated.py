"""Generated handlers as the static rules' oracle feed (issue 21): a fixed-seed slice
(fixed_slice.py: seed and size) runs on vLLM's real CPU scheduler through the
differential oracle (both API generations: 0.34.0, and 0.26.0's sources) and through
one ``ftlint check``; per handler, the static codes must equal the truth (runtime FTR
families, plus the injected FT002/FT003/FT005).  The handlers where they differ today
are known_disagreements.KNOWN_DISAGREEMENTS, each ``xfail(strict=True)``: an entry
must leave the table once the rules agree.
"""

from __future__ import annotations

import pytest

from tests.generated import agreement as ag
from tests.generated import generator as gen
from tests.generated.fixed_slice import SEED, SIZE
from tests.generated.known_disagreements import KNOWN_DISAGREEMENTS

pytestmark = [pytest.mark.vllm, pytest.mark.ftlint_verify(False)]  # bad handlers run on purpose

SPECS = gen.generate(SEED, SIZE)
NAMES = [s.name for s in SPECS]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Every handler of the slice, both ways: once per module (two oracle processes,
    one per vLLM version, and one ftlint run, side by side)."""
    out, _ = ag.run(SPECS, tmp_path_factory.mktemp("generated"), jobs=1)
    return {r.spec.name: r for r in out}


def _params():
    for name in NAMES:
        if name in KNOWN_DISAGREEMENTS:
            yield pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN_DISAGREEMENTS[name]))
        else:
            yield name


def test_no_generated_handler_fails_to_import_or_raises(results):
    broken = {n: r.errors for n, r in results.items() if r.errors}
    assert not broken


@pytest.mark.parametrize("name", list(_params()))
def test_static_equals_truth(name, results):
    r = results[name]
    assert not r.errors
    assert sorted(r.said()) == sorted(r.truth()), (
        f"{r.path}: static {sorted(r.rule_codes)} -> {sorted(r.said())}, truth {sorted(r.truth())} "
        f"(runtime {r.scenarios}); {gen.intended(r.spec)}"
    )


def test_the_table_names_handlers_of_the_slice_with_a_reason():
    assert set(KNOWN_DISAGREEMENTS) <= set(NAMES)
    assert all(reason.strip() for reason in KNOWN_DISAGREEMENTS.values())


def test_the_slice_holds_both_api_generations_correct_and_buggy_handlers(results):
    assert {s.api for s in SPECS} == {"0.34", "0.26"}
    truths = [r.truth() for r in results.values()]
    assert sum(1 for t in truths if not t) >= 30
    for code in ("FTR01", "FTR02", "FTR03", "FT002", "FT003", "FT005"):
        assert any(code in t for t in truths), code
