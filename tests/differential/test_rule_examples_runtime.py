"""The rules' examples that are whole fault handlers (rule_examples.py) run through the
same oracle as the corpus: the static verdict of each (its rule test's lint, mapped as
agreement.py maps) must equal its runtime verdict on vLLM's real scheduler, except the
examples disagreements.py documents (EXAMPLES_CANNOT_RUN: they raise there;
EXAMPLE_DIFFERENCES: why they differ). Both tables are compared both ways, so an
example that starts to run or to agree must leave its table."""

from __future__ import annotations

import pytest

from tests.differential import oracle, rule_examples
from tests.differential.disagreements import EXAMPLE_DIFFERENCES, EXAMPLES_CANNOT_RUN

pytestmark = pytest.mark.ftlint_verify(False)

ITEMS = rule_examples.handler_examples()


@pytest.fixture(scope="module")
def example_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("rule-examples")
    rule_examples.write_corpus(root, ITEMS)
    labels = oracle.runtime_labels([root])[str(root)]
    return {
        item.example.id: (rule_examples.static_verdict(root / item.name, item), labels[item.name]["verdict"])
        for item in ITEMS
    }


def test_the_whole_handler_examples_are_found():
    ids = {item.example.id for item in ITEMS}
    assert len(ids) == len(ITEMS) >= 40
    assert {code for code in (i.example.rule.CODE for i in ITEMS)} == {
        "FT001",
        "FT004",
        "FT006",
        "FT007",
        "FT008",
        "FT009",
    }
    assert set(EXAMPLES_CANNOT_RUN) <= ids and set(EXAMPLE_DIFFERENCES) <= ids
    assert not set(EXAMPLES_CANNOT_RUN) & set(EXAMPLE_DIFFERENCES)


def test_the_examples_that_cannot_run_are_documented(example_runs):
    raising = sorted(i for i, (_, runtime) in example_runs.items() if any(":" in c for c in runtime))
    assert raising == sorted(EXAMPLES_CANNOT_RUN)


def test_static_verdict_equals_runtime_verdict_on_the_examples(example_runs):
    differ = {}
    for item in ITEMS:
        example_id = item.example.id
        if example_id in EXAMPLES_CANNOT_RUN:
            continue
        static, runtime = example_runs[example_id]
        if rule_examples.compared(item, static) != rule_examples.compared(item, runtime):
            differ[example_id] = f"static {static}, runtime {runtime}"
    assert sorted(differ) == sorted(EXAMPLE_DIFFERENCES), differ
    agreeing = len(ITEMS) - len(EXAMPLES_CANNOT_RUN) - len(EXAMPLE_DIFFERENCES)
    assert agreeing >= 58


def test_rewind_and_placeholder_examples_agree_with_the_runtime(example_runs):
    """FT007's rewound-in-place and requeued-by-hand examples (FTR01) and FT009's examples (FTR04, on vLLM 0.34
    and, where the example is set to the older API, on vLLM 0.26.0's scheduler): each
    INVALID one is flagged by the rule and by the runtime check, each VALID one by neither."""
    family = {"FT007": "FTR01", "FT009": "FTR04"}
    chosen = [
        i for i in ITEMS if i.example.rule.CODE == "FT009" or any(w in i.example.id for w in ("rewind", "requeue"))
    ]
    assert {i.example.rule.CODE for i in chosen} == {"FT007", "FT009"} and len(chosen) >= 8
    assert any("vllm: 0.26" in rule_examples.adapter_header(i) for i in chosen)
    for item in chosen:
        static, runtime = example_runs[item.example.id]
        code = family[item.example.rule.CODE]
        expected = [code] if item.example.kind == "INVALID" else []
        assert [c for c in static if c == code] == expected, (item.example.id, static)
        assert [c for c in runtime if c == code] == expected, (item.example.id, runtime)
