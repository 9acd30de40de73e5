"""Issue 6: property-based fuzzing with hypothesmith-generated Python programs.

Every generated program is linted with every function a fault handler
(`fault-handlers = ["*"]`), so the rules really run on it: ftlint never crashes (exit 0 or 1,
never 2, no traceback), and `--fix` leaves a file that still parses and re-lints to the same or
fewer findings.

CI runs a smoke run (FTLINT_FUZZ_EXAMPLES, default 200 examples per property); for a long local
run see docs/reliability.md, e.g. `FTLINT_FUZZ_EXAMPLES=20000 pytest tests/reliability/test_fuzz.py`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import hypothesmith
import libcst as cst
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("FTLINT_FUZZ_EXAMPLES", "200"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
    database=None,
    derandomize=os.environ.get("FTLINT_FUZZ_RANDOM") is None,  # CI: the same examples every run
)

# Fault-path vocabulary so generated handlers sometimes trip the real rules (and their fixes).
SNIPPETS = [
    "self.scheduler.reset_prefix_cache()",
    "req.async_tokens_to_discard = 1",
    "for req in self.scheduler.running:\n    req.async_tokens_to_discard = 1",
    "self.scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED)",
    "self.kv_cache_manager.free(req)",
    "try:\n    pass\nexcept Exception:\n    pass",
]


def handler_from(body: str) -> str:
    indented = "\n".join("        " + line if line.strip() else "" for line in body.splitlines())
    return f"class Sentinel:\n    def on_fault(self, exc):\n{indented or '        pass'}\n        return None\n"


programs = st.one_of(
    hypothesmith.from_grammar(),
    hypothesmith.from_node(),
    st.lists(st.sampled_from(SNIPPETS), max_size=6).map(lambda parts: handler_from("\n".join(parts))),
    st.tuples(hypothesmith.from_grammar(), st.lists(st.sampled_from(SNIPPETS), max_size=4)).map(
        lambda pair: pair[0] + "\n" + handler_from("\n".join(pair[1]))
    ),
)


def lint(ftlint, workdir: Path, *args: str):
    return ftlint(workdir, "--format", "json", "--exhaustive", *args, "prog.py")


def fresh_dir() -> Path:
    workdir = Path(tempfile.mkdtemp(prefix="ftlint-fuzz-"))
    (workdir / "pyproject.toml").write_text('[tool.ftlint]\nfault-handlers = ["*"]\n')
    return workdir


@FUZZ
@given(source=programs)
def test_ftlint_never_crashes_and_fix_output_parses(ftlint, source):
    import json

    workdir = fresh_dir()
    try:
        (workdir / "prog.py").write_text(source, encoding="utf-8")
        before = lint(ftlint, workdir)
        assert before.code in (0, 1), before.err
        assert "internal error" not in before.err
        findings_before = json.loads(before.out or "[]")
        fixed = lint(ftlint, workdir, "--fix")
        assert fixed.code in (0, 1), fixed.err
        after_text = (workdir / "prog.py").read_text(encoding="utf-8")
        if after_text != source:
            cst.parse_module(after_text)  # the fixed file still parses
        after = lint(ftlint, workdir)
        assert after.code in (0, 1), after.err
        assert len(json.loads(after.out or "[]")) <= len(findings_before)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


@FUZZ
@given(data=st.binary(max_size=400) | st.text(max_size=400).map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_arbitrary_bytes_never_crash(ftlint, data):
    """Any bytes under a .py name: a clean report (FT000 or findings), never exit 2."""
    workdir = fresh_dir()
    try:
        (workdir / "prog.py").write_bytes(data)
        run = ftlint(workdir, "prog.py")
        assert run.code in (0, 1), run.err
        assert "internal error" not in run.err
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


# -- `--fix` on handlers built to need many fixes at once (issue 16) -------------------------------
# Neighbouring fixes, fixes that empty a block together, an unsafe fix, line breaks Python does
# not count above the handler, and the three newline conventions. Every fixed file must parse
# and re-lint with no fixable finding left.
FIX_SNIPPETS = [
    "self.scheduler._preempt_request(req, 0.0, drop_stale_output=True)",
    "self.scheduler._preempt_request(req, 0.0)",
    "self.scheduler.preempt_request(req, 0.0, True)",
    "self.scheduler._preempt_request(self.scheduler.running.pop(), 0.0, drop_stale_output=True)",
    "self.scheduler._preempt_request(self.scheduler.running.pop(), 0.0)",
    "req.async_tokens_to_discard = 1",
    "req.async_tokens_to_discard += req.num_output_placeholders",
    "req.drop_stale_output = True",
    "x = 1; req.async_tokens_to_discard = 2",
    "if req.num_computed_tokens:\n    req.drop_stale_output = True\n    req.async_tokens_to_discard = 3",
    "# a comment between fixes",
    "",
]
ODD_BREAKS = ["", "\f", "\v", "\x1c", "\x85", "\u2028", "\u2029"]


def fix_handler(parts: list[str], odd: str, newline: str, prefix: str) -> str:
    body = "\n".join(parts) or "pass"
    loop = "\n".join("            " + line if line.strip() else "" for line in body.split("\n"))
    text = (
        f'"""Recovery helpers {odd} for the scheduler."""\n'
        f"{prefix}\n"
        "class Sentinel:\n"
        "    def on_fault(self, exc):\n"
        "        self._evict_tails()\n"
        "        for req in list(self.scheduler.running):\n"
        f"{loop}\n"
        "        return None\n"
        "\n"
        "    def _evict_tails(self):\n"
        "        self.kv.evict_blocks(set())\n"
    )
    return text.replace("\n", newline)


fix_programs = st.builds(
    fix_handler,
    st.lists(st.sampled_from(FIX_SNIPPETS), min_size=1, max_size=8),
    st.sampled_from(ODD_BREAKS),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.one_of(st.just(""), hypothesmith.from_grammar().filter(lambda s: "\r" not in s and "\\" not in s)),
)


# each example lints, fixes and re-lints: fewer by default than the other properties
FIX_FUZZ = settings(FUZZ, max_examples=int(os.environ.get("FTLINT_FUZZ_EXAMPLES", "60")))


@FIX_FUZZ
@given(source=fix_programs, unsafe=st.booleans())
def test_fix_output_parses_and_relints_without_fixable_findings(ftlint, source, unsafe):
    import json

    workdir = fresh_dir()
    try:
        (workdir / "prog.py").write_text(source, encoding="utf-8", newline="")
        before = lint(ftlint, workdir)
        assert before.code in (0, 1), before.err
        flags = ["--fix", "--unsafe-fixes"] if unsafe else ["--fix"]
        fixed = lint(ftlint, workdir, *flags)
        assert fixed.code in (0, 1), fixed.err
        data = (workdir / "prog.py").read_bytes()
        after_text = data.decode("utf-8")
        if after_text != source:
            cst.parse_module(after_text)  # the fixed file still parses
            # and keeps the file's newline convention on every line
            if "\r\n" in source:
                assert "\r" not in after_text.replace("\r\n", "") and "\n" not in after_text.replace("\r\n", "")
            elif "\r" in source:
                assert "\n" not in after_text
            else:
                assert "\r" not in after_text
        after = lint(ftlint, workdir)
        assert after.code in (0, 1), after.err
        left = [f for f in json.loads(after.out or "[]") if f["fix"] and (unsafe or f["fix_applicability"] == "safe")]
        assert left == [], left
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
