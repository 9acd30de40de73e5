"""FT007 on requests rewound in place or requeued by hand (not only freed ones), and FT009
(placeholder underflow) per API generation: what the rules leave alone.  The runtime side
(FTR01/FTR04 on vLLM's real scheduler) is tests/differential/test_rule_examples_runtime.py."""

from __future__ import annotations

from tests.helpers import codes_at, findings_json, write_project

REWINDS = """\
class FaultHandler:
    def on_fault(self, exc):
        sched = self.engine.scheduler
        for r in sched.waiting:
            r.num_computed_tokens = 0  # a waiting request holds no block of the failed step
        sched.waiting.add_request(self.make_request())  # a new request, not a running one
        for r in sched.running:
            self._rewind(r)

    def _rewind(self, req):
        req.num_computed_tokens -= req.num_in_flight_tokens
"""


def test_rewinds_of_running_requests_only_are_reported(tmp_path):
    write_project(tmp_path, {"h.py": REWINDS})
    code, findings = findings_json("--select", "FT007", "h.py", cwd=tmp_path)
    assert code == 1 and codes_at(findings) == [("h.py", 11, "FT007")]
    assert "rewinds the request in place" in findings[0]["message"]
    assert "reached from `FaultHandler.on_fault`" in findings[0]["message"]


UNDERFLOW = """\
class FaultHandler:
    def on_fault(self, exc):
        sched = self.engine.scheduler
        for req in list(sched.running):
            req.num_output_placeholders -= 1  # before the preempt: async scheduling may owe one
            sched._preempt_request(req, 0.0)
            req.num_in_flight_tokens = 0
            self._account(req)
            req.num_output_placeholders -= 1  # the helper set it again: not 0
            sched._preempt_request(preempted_req=req, timestamp=0.0)
            req.num_output_placeholders -= 1

    def _account(self, req):
        req.num_output_placeholders += 1
"""


def test_placeholder_underflow_only_where_the_count_is_known_to_be_zero(tmp_path):
    write_project(tmp_path, {"h.py": UNDERFLOW}, config='vllm-api = "0.27"\n')
    code, findings = findings_json("--select", "FT009", "h.py", cwd=tmp_path)
    assert code == 1 and codes_at(findings) == [("h.py", 11, "FT009")]
    assert "`_preempt_request()` set it to 0" in findings[0]["message"]


def test_no_placeholder_underflow_after_the_older_api_preempt(tmp_path):
    """vLLM 0.26's preempt leaves num_output_placeholders set: a decrement after it may be right."""
    write_project(tmp_path, {"h.py": UNDERFLOW}, config='vllm-api = "0.26"\n')
    assert findings_json("--select", "FT009", "h.py", cwd=tmp_path) == (0, [])


def test_a_rewind_in_a_helper_of_another_file_is_reported_at_the_call(tmp_path):
    handler = (
        "from resume import rewind_all\n\n\nclass FaultHandler:\n    def on_fault(self, exc):\n"
        "        rewind_all(self.engine.scheduler)\n"
    )
    helper = (
        "def rewind_all(sched):\n    for req in sched.running:\n"
        "        req.num_computed_tokens -= req.num_in_flight_tokens\n        req.num_in_flight_tokens = 0\n"
    )
    write_project(tmp_path, {"h.py": handler, "resume.py": helper})
    code, findings = findings_json("--select", "FT007", "h.py", cwd=tmp_path)
    assert code == 1 and codes_at(findings) == [("h.py", 6, "FT007")]
    assert findings[0]["message"].startswith(
        "`rewind_all()` rewinds a request in place (it keeps its blocks and their hashes) (inside the helper, in "
        "another file)"
    )


HELPER_FILE = """\
from accounting import account_for_the_lost_frame


class FaultHandler:
    def on_fault(self, exc):
        sched = self.engine.scheduler
        for req in list(sched.running):
            sched._preempt_request(req, 0.0)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
            account_for_the_lost_frame(req)
"""


def test_placeholder_decrement_in_a_helper_of_another_file(tmp_path):
    """The decrement is in another file's helper: reported at the call that reaches it."""
    files = {
        "h.py": HELPER_FILE,
        "accounting.py": "def account_for_the_lost_frame(r):\n    r.num_output_placeholders -= 1\n",
    }
    write_project(tmp_path, files, config='vllm-api = "0.27"\n')
    code, findings = findings_json("--select", "FT009", "h.py", "accounting.py", cwd=tmp_path)
    assert code == 1 and codes_at(findings) == [("h.py", 11, "FT009")]
    message = findings[0]["message"]
    assert "`account_for_the_lost_frame()` decrements `r.num_output_placeholders` (inside the helper)" in message
    assert "`_preempt_request()` set it to 0" in message


ZEROED_IN_A_HELPER = """\
class FaultHandler:
    def on_fault(self, exc):
        sched = self.engine.scheduler
        while sched.running:
            req = sched.running.pop()
            sched._preempt_request(req, 0.0)
            GATE
            req.num_output_placeholders -= 1

    def _clear(self, r):
        for name in ("num_in_flight_tokens", "num_output_placeholders"):
            setattr(r, name, 0)
"""


def test_placeholder_zeroed_by_a_helper_on_every_path_or_not(tmp_path):
    """vLLM 0.26 (the preempt leaves the count set): zeroed by a helper's setattr on every
    path, the decrement underflows; zeroed on one path only, it is not known to be 0."""
    every = ZEROED_IN_A_HELPER.replace("GATE", "self._clear(req)")
    some = ZEROED_IN_A_HELPER.replace("GATE", "if exc is None:\n                self._clear(req)")
    write_project(tmp_path, {"every.py": every, "some.py": some}, config='vllm-api = "0.26"\n')
    code, findings = findings_json("--select", "FT009", ".", cwd=tmp_path)
    assert code == 1 and codes_at(findings) == [("every.py", 8, "FT009")]
    assert "set to 0 above" in findings[0]["message"]
