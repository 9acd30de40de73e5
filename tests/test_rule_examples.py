"""Every VALID/INVALID example of every rule, run by ftlint.testing through the real engine
(pytest ids like FT001-INVALID-2-new-api-preempt-argument), and the harness's own checks:
a wrong position, message or fix in an example fails it."""

from __future__ import annotations

import dataclasses
import re

import pytest

from ftlint.lint.registry import all_rules
from ftlint.testing import Example, Expected, check_example, example_params, examples


@pytest.mark.parametrize("example", example_params())
def test_rule_example(example: Example, tmp_path):
    check_example(example, tmp_path)


def test_every_rule_has_examples_and_docs():
    for code, rule in all_rules().items():
        doc = rule.docs()
        assert rule.VALID and rule.INVALID, code
        assert doc.what_it_does and doc.why_bad and doc.example and doc.use_instead, code
        assert re.fullmatch(r"[a-z]+(-[a-z]+)+", rule.NAME), rule.NAME


def test_example_ids_name_rule_kind_and_index():
    ids = [p.id for p in example_params()]
    assert "FT005-INVALID-1-direct" in ids and len(ids) == len(set(ids))


def _ft005_direct() -> Example:
    return next(e for e in examples() if e.id == "FT005-INVALID-1-direct")


@pytest.mark.parametrize(
    "change, complaint",
    [
        ({"expect": ((4, 9),)}, "no finding matches"),
        ({"expect": ((3, 1),)}, "no finding matches"),
        ({"expect": ((3, 9, "drops the frame twice"),)}, "no finding matches"),
        ({"expect": ((3, 9), (3, 9))}, "no finding matches"),
        ({"expect": ()}, None),
        ({"message": "evicts the whole pool"}, "messages lack"),
        ({"fixed": "pass\n"}, "no finding offers a fix"),
    ],
)
def test_a_wrong_expectation_fails(tmp_path, change, complaint):
    example = _ft005_direct()
    wrong = dataclasses.replace(example, case=dataclasses.replace(example.case, **change))
    if complaint is None:  # no positions given: any finding will do
        check_example(wrong, tmp_path)
        return
    with pytest.raises(AssertionError, match=re.escape(complaint)):
        check_example(wrong, tmp_path)


def test_an_unexpected_finding_fails(tmp_path):
    example = _ft005_direct()
    code = example.case.code + "\n    def on_error(self, exc):\n        self.engine.scheduler.reset_prefix_cache()\n"
    config = 'fault-handlers = ["*.on_fault", "*.on_error"]\n'
    wrong = dataclasses.replace(example, case=dataclasses.replace(example.case, code=code, config=config))
    with pytest.raises(AssertionError, match="findings that no expect entry names"):
        check_example(wrong, tmp_path)


def test_a_flagged_valid_example_fails(tmp_path):
    example = _ft005_direct()
    wrong = dataclasses.replace(example, kind="VALID")
    with pytest.raises(AssertionError, match="flagged a VALID example"):
        check_example(wrong, tmp_path)


def test_expect_entries():
    assert Expected.parse((3,)) == Expected("example.py", 3, None, "")
    assert Expected.parse(("lib.py", 3, 9, "text")) == Expected("lib.py", 3, 9, "text")
    with pytest.raises(ValueError, match="bad expect entry"):
        Expected.parse(("text",))
