"""Issue 14 item 2 (part) and issue 12 "Also": fix applicability as ruff has it.

A fix that names the request again in the counter resets is safe only when that name
evaluates nothing. `sched._preempt_request(sched.running.pop(), ...)` must not become
`sched.running.pop().num_in_flight_tokens = 0` (popping two more requests): its fix binds the
request to a fresh name first and is unsafe, applied only with `--unsafe-fixes`.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from tests.helpers import run_ftlint

SOURCE = (
    "class Sentinel:\n"
    "    def on_fault(self, exc):\n"
    "        sched = self.scheduler\n"
    "        self._evict_tails()\n"
    "        while sched.running:\n"
    "            sched._preempt_request(sched.running.pop(), 0.0, drop_stale_output=True)\n"
    "        for req in list(sched.waiting):\n"
    "            sched._preempt_request(req, 0.0)\n"
    "\n"
    "    def _evict_tails(self):\n"
    "        self.kv.evict_blocks(set())\n"
)


def write(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    (tmp_path / "s.py").write_text(SOURCE)
    return tmp_path / "s.py"


def test_text_marks_only_safe_fixes_and_counts_hidden_ones(tmp_path):
    write(tmp_path)
    proc = run_ftlint("check", "s.py", cwd=tmp_path)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("s.py:6:13: FT001 Fault path")  # no [*]: its fix is unsafe
    assert lines[1].startswith("s.py:8:13: FT008 [*] ")
    assert lines[-1] == (
        "[*] 1 fixable with `ftlint check --fix` (1 hidden fix can be enabled with the `--unsafe-fixes` option)."
    )
    unsafe = run_ftlint("check", "--unsafe-fixes", "s.py", cwd=tmp_path)
    assert unsafe.stdout.splitlines()[0].startswith("s.py:6:13: FT001 [*] ")
    assert unsafe.stdout.splitlines()[-1] == "[*] 2 fixable with `ftlint check --fix --unsafe-fixes`."


def test_json_carries_the_applicability(tmp_path):
    write(tmp_path)
    proc = run_ftlint("check", "--format", "json", "s.py", cwd=tmp_path)
    data = json.loads(proc.stdout)
    assert [(f["code"], f["fix_applicability"]) for f in data] == [("FT001", "unsafe"), ("FT008", "safe")]
    assert "preempted = sched.running.pop()" in data[0]["fix"][0]["text"]


def test_fix_applies_safe_fixes_only_and_never_duplicates_a_side_effect(tmp_path):
    path = write(tmp_path)
    proc = run_ftlint("check", "--fix", "--show-fixes", "s.py", cwd=tmp_path)
    assert proc.returncode == 1
    text = path.read_text()
    assert text.count("running.pop()") == 1 and "drop_stale_output=True" in text
    assert "req.num_in_flight_tokens = 0" in text
    assert "Fixed 1 error:\n- s.py:\n    1 x FT008 (stale-counters-not-reset)\n" in proc.stderr
    assert "1 hidden fix can be enabled with the `--unsafe-fixes` option" in proc.stdout


def test_unsafe_fixes_bind_the_request_once_and_relint_clean(tmp_path):
    path = write(tmp_path)
    diff = run_ftlint("check", "--diff", "--unsafe-fixes", "s.py", cwd=tmp_path)
    assert diff.returncode == 1 and "+            preempted = sched.running.pop()\n" in diff.stdout
    assert path.read_text() == SOURCE
    proc = run_ftlint("check", "--fix", "--unsafe-fixes", "s.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = path.read_text()
    ast.parse(text)
    assert text.count("running.pop()") == 1
    assert (
        "            preempted = sched.running.pop()\n"
        "            sched._preempt_request(preempted, 0.0)\n"
        "            preempted.num_in_flight_tokens = 0\n"
        "            preempted.num_stale_output_tokens = 0\n"
    ) in text
    assert run_ftlint("check", "s.py", cwd=tmp_path).returncode == 0


def test_side_effect_free_request_expressions_stay_safe(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    (tmp_path / "s.py").write_text(
        "class Sentinel:\n"
        "    def on_fault(self, exc):\n"
        "        self._evict_tails()\n"
        "        self.scheduler._preempt_request(self.scheduler.running[0], 0.0, drop_stale_output=True)\n"
        "\n"
        "    def _evict_tails(self):\n"
        "        self.kv.evict_blocks(set())\n"
    )
    data = json.loads(run_ftlint("check", "--format", "json", "s.py", cwd=tmp_path).stdout)
    assert [(f["code"], f["fix_applicability"]) for f in data] == [("FT001", "safe")]
    assert "self.scheduler.running[0].num_in_flight_tokens = 0" in data[0]["fix"][0]["text"]
