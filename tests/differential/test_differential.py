"""The runtime verifier is the static rules' oracle: per corpus handler, the static
verdict of ``ftlint check`` must equal the runtime verdict on vLLM's real scheduler.

Three layers, so that a failure says which side moved:
- ``labels.json`` is current: each handler, rerun on the real CPU scheduler (vLLM
  0.34.0, and 0.26.0's Python sources for the handlers written for the older
  stale-output API; see vllm026.py), gives the committed runtime labels.  All
  runtime runs happen once per session, in one process per vLLM version.
- static == runtime per handler, with the documented exceptions of
  disagreements.py: LEGITIMATE_DIFFERENCES (the static verdict is held to the one
  documented there) and KNOWN_DISAGREEMENTS (today's static rules are wrong;
  ``xfail(strict=True)``, so a fixed entry fails until it leaves the table).
- every handler ``ftlint check --fix`` changes is rerun statically and at runtime:
  the fix must not break it (import error, exception), must not add a runtime
  code, must remove its FTR03, must leave no FT001/FT008, and on the 0.26 API must
  not name ``num_stale_output_tokens`` (absent there).  The handlers where a fix
  fails today are exactly KNOWN_FIX_FAILURES (so that table, too, can only
  shrink).
- the corpus keeps its shape (size, correct handlers, both API generations,
  both paths) and the tables name only handlers that exist.

The older-generation handlers do run (on 0.26.0, with the async scheduler, where
``num_output_placeholders`` and ``async_tokens_to_discard`` are live); none is
labelled statically.
"""

from __future__ import annotations

import filecmp
import json
import shutil
from pathlib import Path

import pytest

from tests.differential import agreement, oracle
from tests.differential.disagreements import (
    KNOWN_DISAGREEMENTS,
    KNOWN_FIX_FAILURES,
    LEGITIMATE_DIFFERENCES,
)

# The handlers run bad fault handlers on purpose (in a subprocess, but say so).
pytestmark = pytest.mark.ftlint_verify(False)

CASES = oracle.load_cases()
NAMES = [c.name for c in CASES]
LABELS = oracle.read_labels()


@pytest.fixture(scope="session")
def fixed_corpus(tmp_path_factory):
    """The handlers ``ftlint check --fix`` changes, fixed: a directory holding only
    those (fixed on a copy of the whole corpus)."""
    base = tmp_path_factory.mktemp("differential")
    whole = base / "corpus"
    shutil.copytree(oracle.CORPUS, whole, ignore=shutil.ignore_patterns("__pycache__"))
    agreement.fix_corpus(whole)
    fixed = base / "fixed"
    fixed.mkdir()
    shutil.copy(whole / "pyproject.toml", fixed / "pyproject.toml")
    for case in CASES:
        cmp = filecmp.dircmp(case.path, whole / case.name, ignore=["__pycache__"])
        if cmp.diff_files or cmp.left_only or cmp.right_only or any(sub.diff_files for sub in cmp.subdirs.values()):
            shutil.copytree(whole / case.name, fixed / case.name)
    return fixed


@pytest.fixture(scope="session")
def runtime_runs(fixed_corpus):
    """Every handler, and every fixed handler, rerun on the real schedulers: once
    per session, one process per vLLM version."""
    return oracle.runtime_labels([oracle.CORPUS, fixed_corpus])


@pytest.fixture(scope="session")
def fresh_runtime_labels(runtime_runs):
    return runtime_runs[str(oracle.CORPUS)]


@pytest.fixture(scope="session")
def static_results():
    """One ``ftlint check`` over the whole corpus: once per session."""
    return agreement.lint_corpus(CASES)


def _static_params():
    for name in NAMES:
        if name in KNOWN_DISAGREEMENTS:
            yield pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN_DISAGREEMENTS[name]))
        else:
            yield name


@pytest.mark.parametrize("name", NAMES)
def test_runtime_label_is_current(name, fresh_runtime_labels):
    assert fresh_runtime_labels[name] == LABELS[name]


@pytest.mark.parametrize("name", list(_static_params()))
def test_static_verdict_equals_runtime_verdict(name, static_results):
    result = static_results[name]
    expected = LEGITIMATE_DIFFERENCES[name][0] if name in LEGITIMATE_DIFFERENCES else LABELS[name]["verdict"]
    assert result.verdict == expected, (
        f"{name}: static {result.rule_codes} -> {result.verdict}, "
        f"runtime {LABELS[name]['verdict']}; findings: "
        + "; ".join(f"{f['path']}:{f['line']} {f['code']} {f['message']}" for f in result.findings)
    )


def fix_problems(root: Path, rerun: dict[str, dict]) -> dict[str, list[str]]:
    """What is wrong with each fixed handler, rerun statically and at runtime."""
    changed = sorted(rerun)
    static = agreement.lint_corpus(oracle.load_cases(root), corpus=root)
    problems: dict[str, list[str]] = {}
    for name in changed:
        why = []
        codes = rerun[name]["verdict"]
        broken = [c for c in codes if ":" in c]
        if broken:
            why.append(f"the fixed handler fails at runtime: {broken}")
        if "FTR03" in codes:
            why.append("FTR03 remains at runtime")
        added = set(codes) - set(broken) - set(LABELS[name]["verdict"])
        if added:
            why.append(f"the fix adds {sorted(added)} at runtime")
        left = [
            f"{f['path']}:{f['line']} {f['code']}" for f in static[name].findings if f["code"] in ("FT001", "FT008")
        ]
        if left:
            why.append(f"ftlint still reports {left}")
        if LABELS[name]["vllm"] == "0.26" and any(
            "num_stale_output_tokens" in p.read_text() for p in (root / name).rglob("*.py")
        ):
            why.append("the fix names num_stale_output_tokens, which vLLM 0.26 lacks")
        if why:
            problems[name] = why
    return problems


def test_fixed_handlers_rerun_statically_and_at_runtime(fixed_corpus, runtime_runs):
    rerun = runtime_runs[str(fixed_corpus)]
    assert len(rerun) >= 5  # the corpus exercises the safe fixes
    problems = fix_problems(fixed_corpus, rerun)
    assert sorted(problems) == sorted(KNOWN_FIX_FAILURES), "\n".join(
        f"{n}: {'; '.join(w)}" for n, w in sorted(problems.items())
    )


def test_corpus_shape():
    assert len(CASES) >= 60
    assert sorted(LABELS) == sorted(NAMES), (
        "labels.json does not match corpus/: run tests/differential/oracle.py --write-labels"
    )
    correct = [n for n in NAMES if not LABELS[n]["verdict"]]
    assert len(correct) >= 20
    for family in ("FTR01", "FTR02", "FTR03"):
        assert any(family in LABELS[n]["verdict"] for n in NAMES), family
    assert {c.vllm for c in CASES} == {"0.34", "0.26"}
    assert any(c.switch for c in CASES) and any(c.switch and c.vllm == "0.26" for c in CASES)
    for case in CASES:
        assert case.intended.startswith("Intended:"), f"{case.name}: header comment"
        assert LABELS[case.name]["vllm"] == case.vllm
        assert sorted(LABELS[case.name]["scenarios"]) == sorted(case.scenarios())
        assert all(code.startswith("FTR") for code in LABELS[case.name]["verdict"]), (
            f"{case.name}: the handler itself fails: {LABELS[case.name]['verdict']}"
        )


def test_difference_tables_name_existing_handlers_once():
    assert set(KNOWN_DISAGREEMENTS) <= set(NAMES)
    assert set(KNOWN_FIX_FAILURES) <= set(NAMES)
    assert all(reason.strip() for reason in KNOWN_FIX_FAILURES.values())
    assert set(LEGITIMATE_DIFFERENCES) <= set(NAMES)
    assert not set(KNOWN_DISAGREEMENTS) & set(LEGITIMATE_DIFFERENCES)
    assert all(reason.strip() for reason in KNOWN_DISAGREEMENTS.values())
    for expected, reason in LEGITIMATE_DIFFERENCES.values():
        assert reason.strip() and expected == sorted(set(expected))
        assert set(expected) <= set(agreement.FAMILIES)


def test_rule_to_runtime_mapping_covers_the_selected_rules():
    assert set(agreement.RULE_TO_RUNTIME) == set(agreement.SELECT)
    assert set(agreement.RULE_TO_RUNTIME.values()) == set(agreement.FAMILIES)


def test_header_with_unknown_vllm_version_is_refused(tmp_path, monkeypatch):
    bad = tmp_path / "h"
    bad.mkdir()
    (bad / "handler.py").write_text("# Intended: x.\n# vllm: 0.30\n")
    monkeypatch.setattr(oracle, "CORPUS", tmp_path)
    with pytest.raises(ValueError, match=r"h/handler.py: '# vllm: 0.30'"):
        oracle.load_cases()


def test_a_free_through_an_unresolved_call_is_not_guessed():
    """`getattr(sched, ABORT)(...)` frees every request at runtime, but the analysis
    cannot name the callee: it takes the call as having no effect (no FT006/FT007 from a
    guessed free, no eviction guessed either) and `--verbose` says so."""
    name = "abort_through_unresolved_call"
    assert LABELS[name]["verdict"] == []
    proc = agreement._ftlint(["--verbose", "--format", "json", name], oracle.CORPUS, None)
    assert json.loads(proc.stdout or "[]") == []
    assert "FaultHandler.on_fault: `getattr(sched, ABORT)()` is not resolved; taken as no effect" in proc.stderr


def test_the_blind_handlers_are_in_the_corpus():
    """agreement.WRITTEN_BLIND names corpus handlers (the script's blind figures count them)."""
    names = {case.name for case in oracle.load_cases()}
    assert agreement.WRITTEN_BLIND and names >= agreement.WRITTEN_BLIND, sorted(agreement.WRITTEN_BLIND - names)
