"""PR004 measured on a corpus of real-shaped pull requests (tests/review/pr004_corpus.py):
precision at least 95%, and it still reports (recall at least 80%), so it cannot pass by
saying nothing. `python -m tests.review.pr004_corpus` prints the same figures."""

from __future__ import annotations

from pathlib import Path

from tests.review import pr004_corpus as corpus


def test_pr004_precision_on_real_shaped_pull_requests(tmp_path: Path, capsys):
    assert len(corpus.CASES) >= 30
    assert len({case.name for case in corpus.CASES}) == len(corpus.CASES)
    outcomes = corpus.measure(tmp_path)
    report = corpus.summary(outcomes)
    with capsys.disabled():
        print("\n" + report)
    true = sum(len(o.true_positives) for o in outcomes)
    flagged = sum(len(o.case.flagged) for o in outcomes)
    assert flagged >= 8, report
    assert corpus.precision(outcomes) >= 0.95, report
    assert true / flagged >= 0.8, report


def test_a_preempt_through_a_helper_is_the_preempt_the_title_claims(tmp_path: Path):
    """The fork's false reports: `self._preempt_running()` removed under a "resume" title is
    explained by what the helper does (it preempts), not by its name; a helper named for
    preempting that only logs does nothing PR004 models, and one named for metrics that
    aborts is an abort."""
    by_name = {case.name: case for case in corpus.CASES}
    resume = corpus.review_case(by_name["resume-instead-of-abort"], tmp_path)
    assert resume.reported == set()
    named_preempt = corpus.review_case(by_name["a-preempt-named-helper-that-only-logs"], tmp_path)
    assert named_preempt.reported == set()
    aborting = corpus.review_case(by_name["a-metrics-helper-that-aborts"], tmp_path)
    assert aborting.reported == {"EngineCoreSentinel.on_fault"}
