"""Issue 21, item 0: a fault handler that is a closure (the busy-loop wrapper's shape) is
matched by its name, and messages name only fields the detected API generation's `Request`
has (vLLM 0.25's has no `num_in_flight_tokens`: no counter for FT008 to ask about)."""

from tests.helpers import codes_at, findings_json, write_project

# The shape of a decorator around an engine's busy loop whose `except` branch preempts every
# running request and waits for instructions (written for this test).
WRAPPER = """
import time

def fault_tolerant(loop):
    def run_guarded(self):
        while True:
            try:
                loop(self)
            except SystemExit:
                raise
            except Exception:
                now = time.monotonic()
                while self.scheduler.running:
                    request = self.scheduler.running.pop()
                    self.scheduler.preempt_request(request, now)
                continue
    return run_guarded
"""

REQUEST_0_25 = """
class Request:
    def __init__(self):
        self.num_computed_tokens = 0
        self.num_output_placeholders = 0
        self.async_tokens_to_discard = 0
"""

REQUEST_0_26 = REQUEST_0_25 + "        self.num_in_flight_tokens = 0\n"

RESUME = """
class Sentinel:
    def on_fault(self, exc):
        for req in list(self.scheduler.running):
            self.scheduler._preempt_request(req, 0.0)
"""


def test_a_closure_named_in_extend_fault_handlers_is_a_handler(tmp_path):
    root = write_project(
        tmp_path,
        {"loop.py": WRAPPER, "vllm/v1/request.py": REQUEST_0_25},
        config='extend-fault-handlers = ["run_guarded"]\n',
    )
    code, findings = findings_json("loop.py", cwd=root)
    assert code == 1
    assert codes_at(findings) == [("loop.py", 14, "FT007")]


def test_a_closure_named_by_its_qualified_name_is_a_handler(tmp_path):
    root = write_project(
        tmp_path,
        {"loop.py": WRAPPER, "vllm/v1/request.py": REQUEST_0_25},
        config='fault-handlers = ["fault_tolerant.<locals>.run_guarded"]\n',
    )
    assert codes_at(findings_json("loop.py", cwd=root)[1]) == [("loop.py", 14, "FT007")]


def test_a_closure_not_named_is_not_a_handler(tmp_path):
    root = write_project(tmp_path, {"loop.py": WRAPPER})
    assert findings_json("loop.py", cwd=root) == (0, [])


def test_on_fault_nested_in_a_factory_is_a_handler_by_default(tmp_path):
    root = write_project(
        tmp_path,
        {
            "factory.py": """
                def make_handler(scheduler):
                    def on_fault(exc):
                        for req in list(scheduler.running):
                            scheduler.finish_requests(req.request_id, "aborted")
                    return on_fault
            """
        },
    )
    assert codes_at(findings_json("factory.py", cwd=root)[1]) == [("factory.py", 4, "FT007")]


def test_no_ft008_where_the_request_has_no_in_flight_counter(tmp_path):
    """vLLM 0.25's Request (no num_in_flight_tokens): nothing to reset, no FT008; with 0.26's
    Request the same handler leaves num_in_flight_tokens set."""
    old = write_project(tmp_path / "old", {"h.py": RESUME, "vllm/v1/request.py": REQUEST_0_25})
    assert findings_json("--select", "FT008", "h.py", cwd=old) == (0, [])
    new = write_project(tmp_path / "new", {"h.py": RESUME, "vllm/v1/request.py": REQUEST_0_26})
    code, findings = findings_json("--select", "FT008", "h.py", cwd=new)
    assert code == 1 and [f["code"] for f in findings] == ["FT008"]
    assert "num_in_flight_tokens" in findings[0]["message"]


def test_vllm_api_0_25_setting(tmp_path):
    root = write_project(tmp_path, {"h.py": RESUME}, config='vllm-api = "0.25"\n')
    assert findings_json("--select", "FT008", "h.py", cwd=root) == (0, [])


def test_broad_eviction_message_names_no_missing_field(tmp_path):
    handler = """
        class Sentinel:
            def on_fault(self, exc):
                kv = self.scheduler.kv_cache_manager
                for req in list(self.scheduler.running):
                    kv.evict_blocks(set(kv.get_block_ids(req.request_id)[0]))
                    self.scheduler.finish_requests(req.request_id, "aborted")
    """
    old = write_project(tmp_path / "old", {"h.py": handler, "vllm/v1/request.py": REQUEST_0_25})
    code, findings = findings_json("--select", "FT004", "h.py", cwd=old)
    assert code == 1 and [f["code"] for f in findings] == ["FT004"]
    assert "num_in_flight_tokens" not in findings[0]["message"]
    assert "the blocks the failed step was writing" in findings[0]["message"]
    new = write_project(tmp_path / "new", {"h.py": handler, "vllm/v1/request.py": REQUEST_0_26})
    assert "num_in_flight_tokens" in findings_json("--select", "FT004", "h.py", cwd=new)[1][0]["message"]
