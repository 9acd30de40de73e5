"""Fault-path scoping: which code the rules report in, across classes, modules and files."""

from tests.helpers import codes_at, findings_json, write_project

HANDLER = """
from helpers.resume import resume_all
from . import local_helpers

class EngineCoreSentinel:
    def on_fault(self, exc):
        self._evict_tails()
        self._resume_in_class()
        resume_all(self.engine.scheduler)
        local_helpers.reset_everything(self.engine.scheduler)

    def _evict_tails(self):
        self.engine.scheduler.kv_cache_manager.evict_blocks(set())

    def _resume_in_class(self):
        for req in self.engine.scheduler.running:
            req.async_tokens_to_discard = req.num_output_placeholders
"""

RESUME = """
def resume_all(scheduler):
    for req in list(scheduler.running):
        scheduler._preempt_request(req, 0.0, drop_stale_output=True)
"""

LOCAL = """
def reset_everything(scheduler):
    scheduler.reset_prefix_cache()
"""

SCHEDULER = """
class Scheduler:
    def reset_prefix_cache(self, reset_running_requests=False):
        for request in self.running:
            self._preempt_request(request, 0.0, drop_stale_output=True)
            request.async_tokens_to_discard = request.num_output_placeholders

    def _handle_invalid_blocks(self, invalid_block_ids):
        self.kv_cache_manager.evict_blocks(invalid_block_ids)
        for req in self.running:
            self.finish_requests(req.request_id, "aborted")
"""


def _project(tmp_path):
    return write_project(
        tmp_path,
        {
            "engine/__init__.py": "",
            "engine/sentinel.py": HANDLER,
            "engine/local_helpers.py": LOCAL,
            "helpers/__init__.py": "",
            "helpers/resume.py": RESUME,
            "sched/scheduler.py": SCHEDULER,
        },
    )


def test_helpers_in_class_module_and_package_are_fault_paths(tmp_path):
    code, findings = findings_json("--select", "FT001,FT005", cwd=_project(tmp_path))
    assert code == 1
    assert codes_at(findings) == [
        ("engine/local_helpers.py", 2, "FT005"),
        ("engine/sentinel.py", 16, "FT001"),
        ("helpers/resume.py", 3, "FT001"),
    ]


def test_same_code_outside_fault_paths_is_not_reported(tmp_path):
    code, findings = findings_json("sched/scheduler.py", cwd=_project(tmp_path))
    assert (code, findings) == (0, [])


def test_helper_file_passed_alone_is_linted_as_fault_path(tmp_path):
    """pre-commit passes only the changed helper: the handler in another file still scopes it."""
    code, findings = findings_json("helpers/resume.py", cwd=_project(tmp_path))
    assert code == 1
    assert codes_at(findings) == [("helpers/resume.py", 3, "FT001")]


def test_handler_file_passed_alone_reads_helpers_it_was_not_given(tmp_path):
    """Effects of helpers in files not passed are known: the eviction there covers the abort."""
    root = write_project(
        tmp_path,
        {
            "sentinel.py": """
                from evict import evict_dirty_tails
                class S:
                    def on_fault(self, exc):
                        evict_dirty_tails(self.scheduler)
                        self.scheduler.finish_requests(None, "aborted")
            """,
            "evict.py": """
                def evict_dirty_tails(scheduler):
                    scheduler.kv_cache_manager.evict_blocks(set())
            """,
        },
    )
    assert findings_json("sentinel.py", cwd=root) == (0, [])
    (root / "evict.py").write_text("def evict_dirty_tails(scheduler):\n    pass\n")
    code, findings = findings_json("sentinel.py", cwd=root)
    assert code == 1 and codes_at(findings) == [("sentinel.py", 5, "FT007")]


def test_configured_handler_globs_and_fault_paths(tmp_path):
    root = write_project(
        tmp_path,
        {
            "a.py": """
                class RecoverySentinel:
                    def retry(self):
                        self.scheduler.reset_prefix_cache()
                class Other:
                    def retry(self):
                        self.scheduler.reset_prefix_cache()
                def handle_fault_dp(engine):
                    engine.scheduler.reset_prefix_cache()
            """,
            "ft/recovery.py": """
                def anything(s):
                    s.reset_prefix_cache()
            """,
        },
        config='fault-handlers = ["handle_fault*", "*Sentinel.retry"]\nfault-paths = ["ft/**"]\n',
    )
    _code, findings = findings_json("--select", "FT005", cwd=root)
    assert codes_at(findings) == [("a.py", 3, "FT005"), ("a.py", 8, "FT005"), ("ft/recovery.py", 2, "FT005")]
