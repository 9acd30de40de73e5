"""A corpus of pull requests shaped like a fault-tolerance fork's history, to measure PR004.

Each case is what a pull request hands the review bot: a title, a description and a unified
diff against the small sample project below (written for this corpus, not copied from vLLM:
an engine-core sentinel with resume/abort helpers, a KV-cleanup module, a retry handler).
The shapes follow the kinds of change such a fork's history holds: resume instead of abort
through a helper, evict-and-zero fixes, helper refactors and renames, logging and plumbing
edits, docstring clean-ups, and drive-by removals of stale-output bookkeeping.

``flagged`` is the ground truth, decided by reading each case: the fault-path functions a
reviewer should be told about (lines removed or changed that the title does not explain and
that change what happens to requests or their KV blocks). PR004's precision is the share of
its reports that are in ``flagged``; its recall the share of ``flagged`` it reports.

Run ``python -m tests.review.pr004_corpus`` to print the figures;
``tests/review/test_pr004_precision.py`` asserts them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

SENTINEL = "vllm/v1/fault_tolerance/sentinel.py"
CLEANUP = "vllm/v1/fault_tolerance/kv_cleanup.py"

BASE_FILES = {
    "pyproject.toml": """\
[tool.ftlint]
extend-fault-handlers = ["retry", "auto_recover"]
""",
    "vllm/__init__.py": "",
    "vllm/v1/__init__.py": "",
    "vllm/v1/fault_tolerance/__init__.py": "",
    CLEANUP: '''\
"""KV-cache clean-up on the fault path (a sample for the PR004 corpus)."""


def unconfirmed_tail_block_ids(manager, request):
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    ids = set()
    for group in manager.coordinator.single_type_managers:
        blocks = group.req_to_blocks[request.request_id]
        first = confirmed // group.block_size
        ids.update(block.block_id for block in blocks[first:] if not block.is_null)
    return ids


def evict_unconfirmed_tail(manager, request):
    ids = unconfirmed_tail_block_ids(manager, request)
    if ids:
        manager.evict_blocks(ids)


def zero_unconfirmed_tail(manager, request, block_size):
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    start = confirmed // block_size * block_size
    manager.record_blocks_for_zeroing(request.request_id, start)
''',
    SENTINEL: '''\
"""What happens to requests when an engine step fails (a sample for the PR004 corpus)."""

import logging
import time

from vllm.v1.fault_tolerance.kv_cleanup import evict_unconfirmed_tail
from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class EngineCoreSentinel:
    def __init__(self, engine, config):
        self.engine = engine
        self.config = config
        self.recovery_timeout = config.engine_recovery_timeout_sec
        self.dead_ranks = set()

    def on_fault(self, exc):
        """Pause the engine and settle every running request."""
        engine = self.engine
        logger.warning("engine core fault: %s", exc)
        self._clear_contaminated_blocks()
        if self.config.resume_requests_after_recovery:
            self._preempt_running()
        else:
            self._abort_all()
        self._flush_metrics()
        self._preempt_summary(engine)
        self._push_status("paused")

    def _clear_contaminated_blocks(self):
        scheduler = self.engine.scheduler
        for request in scheduler.running:
            evict_unconfirmed_tail(scheduler.kv_cache_manager, request)

    def _preempt_running(self):
        scheduler = self.engine.scheduler
        now = time.monotonic()
        while scheduler.running:
            request = scheduler.running.pop()
            scheduler._preempt_request(request, now)
            request.async_tokens_to_discard = request.num_output_placeholders
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0

    def _abort_all(self):
        scheduler = self.engine.scheduler
        aborted = scheduler.finish_requests(
            None,
            RequestStatus.FINISHED_ABORTED,
        )
        self.engine._send_abort_outputs(aborted)

    def _flush_metrics(self):
        stale = [r.request_id for r in self.engine.scheduler.running if r.is_stale]
        self.engine.scheduler.finish_requests(stale, RequestStatus.FINISHED_ABORTED)

    def _preempt_summary(self, engine):
        logger.info("%d requests running at the fault", len(engine.scheduler.running))

    def _push_status(self, status):
        payload = {"status": status, "dead_ranks": sorted(self.dead_ranks)}
        self.engine.publish_status(payload)

    def retry(self, timeout=None):
        timeout = timeout or self.recovery_timeout
        logger.info("retrying after a fault (timeout %s s)", timeout)
        self._rebuild_dp_store(timeout)
        self.engine.scheduler.reset_prefix_cache()
        self.engine.resume()

    def _rebuild_dp_store(self, timeout):
        store = self.engine.dp_store
        store.reset(timeout=timeout)
        return store

    def auto_recover(self):
        mask = self.engine.query_mask()
        self.dead_ranks = {rank for rank, alive in enumerate(mask) if not alive}
        self._push_status("recovering")
        self.retry()
''',
}

FILLED = """\
## Purpose

{purpose}

## Test Plan

`pytest tests/v1/fault_tolerance -k {test}`

## Test Result

All passed on CPU.
"""

TEMPLATE = """\
<!-- markdownlint-disable -->
PLEASE FILL IN THE PR DESCRIPTION HERE ENSURING ALL CHECKLIST ITEMS (AT THE BOTTOM) HAVE BEEN CONSIDERED.

## Purpose

## Test Plan

## Test Result
"""


@dataclass
class Case:
    name: str
    title: str
    body: str
    diff: str
    flagged: set[str] = field(default_factory=set)  # qualnames PR004 should name


def _body(purpose: str, test: str = "fault") -> str:
    return FILLED.format(purpose=purpose, test=test)


CASES: list[Case] = [
    Case(
        "resume-instead-of-abort",
        "[Feature] Resume requests after retry command",
        _body("Preempt the running requests on a fault instead of aborting them, so they continue after retry."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -23,10 +23,7 @@ class EngineCoreSentinel:
         logger.warning("engine core fault: %s", exc)
         self._clear_contaminated_blocks()
-        if self.config.resume_requests_after_recovery:
-            self._preempt_running()
-        else:
-            self._abort_all()
+        self._preempt_running()
         self._flush_metrics()
         self._preempt_summary(engine)
""",
    ),
    Case(
        "abort-drops-the-resume-path",
        "[Bugfix] Always abort on fault until resume is stable",
        _body("The resume path hangs in the DP case; abort until it is fixed."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -23,10 +23,7 @@ class EngineCoreSentinel:
         logger.warning("engine core fault: %s", exc)
         self._clear_contaminated_blocks()
-        if self.config.resume_requests_after_recovery:
-            self._preempt_running()
-        else:
-            self._abort_all()
+        self._abort_all()
         self._flush_metrics()
         self._preempt_summary(engine)
""",
    ),
    Case(
        "inline-the-abort-helper",
        "clean codes",
        _body("Inline the abort helper, which had one caller."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -25,7 +25,10 @@ class EngineCoreSentinel:
         if self.config.resume_requests_after_recovery:
             self._preempt_running()
         else:
-            self._abort_all()
+            aborted = self.engine.scheduler.finish_requests(
+                None, RequestStatus.FINISHED_ABORTED
+            )
+            self.engine._send_abort_outputs(aborted)
         self._flush_metrics()
         self._preempt_summary(engine)
""",
    ),
    Case(
        "rename-the-abort-helper",
        "[Refactor] rename _abort_all to _abort_running",
        _body("A clearer name."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -25,7 +25,7 @@ class EngineCoreSentinel:
         if self.config.resume_requests_after_recovery:
             self._preempt_running()
         else:
-            self._abort_all()
+            self._abort_running()
         self._flush_metrics()
         self._preempt_summary(engine)
         self._push_status("paused")
@@ -47,7 +47,7 @@ class EngineCoreSentinel:
             request.num_stale_output_tokens = 0

-    def _abort_all(self):
+    def _abort_running(self):
         scheduler = self.engine.scheduler
         aborted = scheduler.finish_requests(
             None,
""",
    ),
    Case(
        "log-errors-in-recovery",
        "[Bugfix] Log errors in the recovery",
        _body("Log the exception with its traceback, and the retry timeout."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -21,7 +21,7 @@ class EngineCoreSentinel:
         \"\"\"Pause the engine and settle every running request.\"\"\"
         engine = self.engine
-        logger.warning("engine core fault: %s", exc)
+        logger.exception("engine core fault: %s", exc)
         self._clear_contaminated_blocks()
         if self.config.resume_requests_after_recovery:
             self._preempt_running()
@@ -68,7 +68,7 @@ class EngineCoreSentinel:
     def retry(self, timeout=None):
         timeout = timeout or self.recovery_timeout
-        logger.info("retrying after a fault (timeout %s s)", timeout)
+        logger.info("retrying after a fault (timeout %.1f s)", timeout)
         self._rebuild_dp_store(timeout)
         self.engine.scheduler.reset_prefix_cache()
         self.engine.resume()
""",
    ),
    Case(
        "timeout-plumbing",
        "fix: use engine_recovery_timeout_sec for the DP store rebuild",
        _body("The store rebuild ignored the configured timeout."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -75,8 +75,8 @@ class EngineCoreSentinel:

     def _rebuild_dp_store(self, timeout):
         store = self.engine.dp_store
-        store.reset(timeout=timeout)
+        store.reset(timeout=max(timeout, self.recovery_timeout))
         return store

     def auto_recover(self):
""",
    ),
    Case(
        "status-payload",
        "[BugFix] Publish the engine identity with the status",
        _body("The API server could not tell the engines apart."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -63,8 +63,12 @@ class EngineCoreSentinel:

     def _push_status(self, status):
-        payload = {{"status": status, "dead_ranks": sorted(self.dead_ranks)}}
-        self.engine.publish_status(payload)
+        payload = {{
+            "status": status,
+            "dead_ranks": sorted(self.dead_ranks),
+            "engine_identity": self.engine.identity,
+        }}
+        self.engine.publish_status(payload, topic="fault")

     def retry(self, timeout=None):
         timeout = timeout or self.recovery_timeout
""",
    ),
    Case(
        "readability-clean-up",
        "clean up the codes and improve readability",
        _body("Docstrings and a local alias."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -19,9 +19,8 @@ class EngineCoreSentinel:

     def on_fault(self, exc):
-        \"\"\"Pause the engine and settle every running request.\"\"\"
-        engine = self.engine
+        \"\"\"Settle every running request after a failed step (resume or abort).\"\"\"
         logger.warning("engine core fault: %s", exc)
         self._clear_contaminated_blocks()
         if self.config.resume_requests_after_recovery:
@@ -29,7 +28,7 @@ class EngineCoreSentinel:
         else:
             self._abort_all()
         self._flush_metrics()
-        self._preempt_summary(engine)
+        self._preempt_summary(self.engine)
         self._push_status("paused")

     def _clear_contaminated_blocks(self):
""",
    ),
    Case(
        "evict-and-zero-contaminated-blocks",
        "[Bugfix] Evict and zero contaminated KV blocks on fault retry",
        _body("Zero the unconfirmed tail too (Mamba and mixed-precision caches keep stale state otherwise)."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -3,7 +3,7 @@
 import logging
 import time

-from vllm.v1.fault_tolerance.kv_cleanup import evict_unconfirmed_tail
+from vllm.v1.fault_tolerance.kv_cleanup import evict_unconfirmed_tail, zero_unconfirmed_tail
 from vllm.v1.request import RequestStatus

 logger = logging.getLogger(__name__)
@@ -34,7 +34,9 @@ class EngineCoreSentinel:
     def _clear_contaminated_blocks(self):
         scheduler = self.engine.scheduler
         for request in scheduler.running:
-            evict_unconfirmed_tail(scheduler.kv_cache_manager, request)
+            manager = scheduler.kv_cache_manager
+            zero_unconfirmed_tail(manager, request, scheduler.block_size)
+            evict_unconfirmed_tail(manager, request)

     def _preempt_running(self):
         scheduler = self.engine.scheduler
""",
    ),
    Case(
        "evict-with-the-confirmed-boundary",
        "Evict only the unconfirmed tail of each KV-cache group",
        _body("The boundary left out in-flight tokens of the last block."),
        f"""\
--- a/{CLEANUP}
+++ b/{CLEANUP}
@@ -2,10 +2,10 @@


 def unconfirmed_tail_block_ids(manager, request):
-    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
+    confirmed = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
     ids = set()
     for group in manager.coordinator.single_type_managers:
-        blocks = group.req_to_blocks[request.request_id]
+        blocks = group.req_to_blocks.get(request.request_id, [])
         first = confirmed // group.block_size
         ids.update(block.block_id for block in blocks[first:] if not block.is_null)
     return ids
""",
    ),
    Case(
        "evict-and-drop-the-counter-resets",
        "Evict contaminated KV blocks on fault",
        _body("Evict before preempting."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -40,10 +40,8 @@ class EngineCoreSentinel:
         while scheduler.running:
             request = scheduler.running.pop()
+            evict_unconfirmed_tail(scheduler.kv_cache_manager, request)
             scheduler._preempt_request(request, now)
             request.async_tokens_to_discard = request.num_output_placeholders
-            request.num_in_flight_tokens = 0
-            request.num_stale_output_tokens = 0

     def _abort_all(self):
         scheduler = self.engine.scheduler
""",
        {"EngineCoreSentinel._preempt_running"},
    ),
    Case(
        "evict-and-zero-drops-the-discard-line",
        "[Bugfix] Evict and zero contaminated KV blocks on fault retry",
        TEMPLATE,
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -40,9 +40,9 @@ class EngineCoreSentinel:
         while scheduler.running:
             request = scheduler.running.pop()
+            evict_unconfirmed_tail(scheduler.kv_cache_manager, request)
             scheduler._preempt_request(request, now)
-            request.async_tokens_to_discard = request.num_output_placeholders
             request.num_in_flight_tokens = 0
             request.num_stale_output_tokens = 0

""",
        {"EngineCoreSentinel._preempt_running"},
    ),
    Case(
        "discard-line-explained",
        "[Bugfix] Evict contaminated KV blocks on fault retry",
        _body(
            "Evict the tail before preempting. Also removes the `async_tokens_to_discard` line: "
            "in a fault the failed step's frame never arrives, so it dropped the first good frame."
        ),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -40,9 +40,9 @@ class EngineCoreSentinel:
         while scheduler.running:
             request = scheduler.running.pop()
+            evict_unconfirmed_tail(scheduler.kv_cache_manager, request)
             scheduler._preempt_request(request, now)
-            request.async_tokens_to_discard = request.num_output_placeholders
             request.num_in_flight_tokens = 0
             request.num_stale_output_tokens = 0

""",
    ),
    Case(
        "stale-output-fix",
        "Fix the hang after resume: reset the stale-output counters once",
        _body("The counters were reset before the discard line took effect."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -41,8 +41,7 @@ class EngineCoreSentinel:
             request = scheduler.running.pop()
             scheduler._preempt_request(request, now)
-            request.async_tokens_to_discard = request.num_output_placeholders
-            request.num_in_flight_tokens = 0
+            request.num_in_flight_tokens = request.num_output_placeholders = 0
             request.num_stale_output_tokens = 0

     def _abort_all(self):
""",
    ),
    Case(
        "logging-pr-drops-the-eviction-call",
        "[Bugfix] Log errors in the recovery",
        _body("Log the fault once."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -21,8 +21,7 @@ class EngineCoreSentinel:
         \"\"\"Pause the engine and settle every running request.\"\"\"
         engine = self.engine
-        logger.warning("engine core fault: %s", exc)
-        self._clear_contaminated_blocks()
+        logger.exception("engine core fault: %s", exc)
         if self.config.resume_requests_after_recovery:
             self._preempt_running()
         else:
""",
        {"EngineCoreSentinel.on_fault"},
    ),
    Case(
        "mask-pr-drops-the-abort",
        "add mask coordination for auto recovery",
        _body("Query the mask before recovering."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -25,8 +25,7 @@ class EngineCoreSentinel:
         if self.config.resume_requests_after_recovery:
             self._preempt_running()
-        else:
-            self._abort_all()
+        self.dead_ranks |= set(self.engine.query_mask_dead_ranks())
         self._flush_metrics()
         self._preempt_summary(engine)
         self._push_status("paused")
""",
        {"EngineCoreSentinel.on_fault"},
    ),
    Case(
        "a-metrics-helper-that-aborts",
        "Remove the metrics flush on fault",
        _body("Metrics are flushed by the API server now."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -28,7 +28,6 @@ class EngineCoreSentinel:
         else:
             self._abort_all()
-        self._flush_metrics()
         self._preempt_summary(engine)
         self._push_status("paused")

""",
        {"EngineCoreSentinel.on_fault"},
    ),
    Case(
        "a-preempt-named-helper-that-only-logs",
        "Log the fault summary from the API server instead",
        _body("One log line per fault, from the API server."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -29,7 +29,6 @@ class EngineCoreSentinel:
             self._abort_all()
         self._flush_metrics()
-        self._preempt_summary(engine)
         self._push_status("paused")

     def _clear_contaminated_blocks(self):
""",
    ),
    Case(
        "counter-removal-explained-by-description",
        "Evict contaminated KV blocks on fault",
        _body(
            "Evict before preempting. Drops the `num_stale_output_tokens` reset: `_preempt_request` "
            "no longer copies the in-flight count in this version."
        ),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -40,10 +40,10 @@ class EngineCoreSentinel:
         while scheduler.running:
             request = scheduler.running.pop()
+            evict_unconfirmed_tail(scheduler.kv_cache_manager, request)
             scheduler._preempt_request(request, now)
             request.async_tokens_to_discard = request.num_output_placeholders
             request.num_in_flight_tokens = 0
-            request.num_stale_output_tokens = 0

     def _abort_all(self):
         scheduler = self.engine.scheduler
""",
    ),
    Case(
        "no-prefix-cache-reset-on-retry",
        "Do not reset the whole prefix cache on retry",
        _body("The contaminated tail is evicted already; keep the clean prefix."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -70,7 +70,6 @@ class EngineCoreSentinel:
         timeout = timeout or self.recovery_timeout
         logger.info("retrying after a fault (timeout %s s)", timeout)
         self._rebuild_dp_store(timeout)
-        self.engine.scheduler.reset_prefix_cache()
         self.engine.resume()

     def _rebuild_dp_store(self, timeout):
""",
    ),
    Case(
        "tp-barrier-drops-the-prefix-cache-reset",
        "add tp barrier before retry",
        _body("Wait for every TP rank before resuming."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -70,7 +70,7 @@ class EngineCoreSentinel:
         timeout = timeout or self.recovery_timeout
         logger.info("retrying after a fault (timeout %s s)", timeout)
         self._rebuild_dp_store(timeout)
-        self.engine.scheduler.reset_prefix_cache()
+        self.engine.tp_barrier(timeout)
         self.engine.resume()

     def _rebuild_dp_store(self, timeout):
""",
        {"EngineCoreSentinel.retry"},
    ),
    Case(
        "add-ci-test",
        "add ci test",
        _body("A test that fails a step and resumes."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -31,6 +31,7 @@ class EngineCoreSentinel:
         self._preempt_summary(engine)
         self._push_status("paused")
+        self.engine.fault_count += 1

     def _clear_contaminated_blocks(self):
         scheduler = self.engine.scheduler
diff --git a/tests/v1/fault_tolerance/test_resume.py b/tests/v1/fault_tolerance/test_resume.py
new file mode 100644
--- /dev/null
+++ b/tests/v1/fault_tolerance/test_resume.py
@@ -0,0 +1,2 @@
+def test_resume():
+    assert True
""",
    ),
    Case(
        "zero-instead-of-evict",
        "Zero contaminated KV blocks on fault",
        _body("Zero the tail of each running request."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -3,7 +3,7 @@
 import logging
 import time

-from vllm.v1.fault_tolerance.kv_cleanup import evict_unconfirmed_tail
+from vllm.v1.fault_tolerance.kv_cleanup import zero_unconfirmed_tail
 from vllm.v1.request import RequestStatus

 logger = logging.getLogger(__name__)
@@ -34,7 +34,7 @@ class EngineCoreSentinel:
     def _clear_contaminated_blocks(self):
         scheduler = self.engine.scheduler
         for request in scheduler.running:
-            evict_unconfirmed_tail(scheduler.kv_cache_manager, request)
+            zero_unconfirmed_tail(scheduler.kv_cache_manager, request, scheduler.block_size)

     def _preempt_running(self):
         scheduler = self.engine.scheduler
""",
        {"EngineCoreSentinel._clear_contaminated_blocks"},
    ),
    Case(
        "evict-and-zero-instead-of-evict",
        "Evict and zero contaminated KV blocks on fault",
        _body("Zero the tail; eviction happens in the block pool now."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -3,7 +3,7 @@
 import logging
 import time

-from vllm.v1.fault_tolerance.kv_cleanup import evict_unconfirmed_tail
+from vllm.v1.fault_tolerance.kv_cleanup import zero_unconfirmed_tail
 from vllm.v1.request import RequestStatus

 logger = logging.getLogger(__name__)
@@ -34,7 +34,7 @@ class EngineCoreSentinel:
     def _clear_contaminated_blocks(self):
         scheduler = self.engine.scheduler
         for request in scheduler.running:
-            evict_unconfirmed_tail(scheduler.kv_cache_manager, request)
+            zero_unconfirmed_tail(scheduler.kv_cache_manager, request, scheduler.block_size)

     def _preempt_running(self):
         scheduler = self.engine.scheduler
""",
    ),
    Case(
        "reindent-under-a-lock",
        "Hold the recovery lock while settling requests",
        _body("Two faults at once raced."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -22,13 +22,14 @@ class EngineCoreSentinel:
         engine = self.engine
         logger.warning("engine core fault: %s", exc)
-        self._clear_contaminated_blocks()
-        if self.config.resume_requests_after_recovery:
-            self._preempt_running()
-        else:
-            self._abort_all()
-        self._flush_metrics()
+        with self.engine.recovery_lock:
+            self._clear_contaminated_blocks()
+            if self.config.resume_requests_after_recovery:
+                self._preempt_running()
+            else:
+                self._abort_all()
+            self._flush_metrics()
         self._preempt_summary(engine)
         self._push_status("paused")

""",
    ),
    Case(
        "comments-only",
        "Comment the order of the fault steps",
        _body("Comments only."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -22,6 +22,7 @@ class EngineCoreSentinel:
         engine = self.engine
         logger.warning("engine core fault: %s", exc)
+        # evict first: the tail's hashes must be gone before the blocks are freed
         self._clear_contaminated_blocks()
         if self.config.resume_requests_after_recovery:
             self._preempt_running()
""",
    ),
    Case(
        "status-fix-drops-the-abort-outputs",
        "Fix a race in status publishing",
        _body("Publish the status after the outputs are sent."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -49,7 +49,7 @@ class EngineCoreSentinel:
         aborted = scheduler.finish_requests(
             None,
             RequestStatus.FINISHED_ABORTED,
         )
-        self.engine._send_abort_outputs(aborted)
+        self._push_status("aborted")

     def _flush_metrics(self):
         stale = [r.request_id for r in self.engine.scheduler.running if r.is_stale]
""",
        # A reviewer wants this one; the analysis does not model `_send_abort_outputs` (vLLM's
        # engine, outside the project): unknown, so PR004 stays quiet. Counted as a miss.
        {"EngineCoreSentinel._abort_all"},
    ),
    Case(
        "drain-stale-responses",
        "fix: drain stale executor responses after the health check",
        _body("Stale responses from before the fault confused the retry."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -68,8 +68,9 @@ class EngineCoreSentinel:
     def retry(self, timeout=None):
         timeout = timeout or self.recovery_timeout
-        logger.info("retrying after a fault (timeout %s s)", timeout)
+        logger.info("retrying after a fault, draining stale responses (timeout %s s)", timeout)
         self._rebuild_dp_store(timeout)
+        self.engine.drain_stale_responses(timeout)
         self.engine.scheduler.reset_prefix_cache()
         self.engine.resume()

""",
    ),
    Case(
        "drain-stale-drops-the-preempt",
        "fix: drain stale outputs of the running requests",
        _body("Drain the stale outputs of the running requests."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -40,7 +40,7 @@ class EngineCoreSentinel:
         while scheduler.running:
             request = scheduler.running.pop()
-            scheduler._preempt_request(request, now)
+            scheduler.waiting.add_request(request)
             request.async_tokens_to_discard = request.num_output_placeholders
             request.num_in_flight_tokens = 0
             request.num_stale_output_tokens = 0
""",
        {"EngineCoreSentinel._preempt_running"},
    ),
    Case(
        "preempt-flag-explicit",
        "Preempt with drop_stale_output=False explicitly on fault",
        _body("Make the flag explicit (FT001)."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -40,7 +40,7 @@ class EngineCoreSentinel:
         while scheduler.running:
             request = scheduler.running.pop()
-            scheduler._preempt_request(request, now)
+            scheduler._preempt_request(request, now, drop_stale_output=False)
             request.async_tokens_to_discard = request.num_output_placeholders
             request.num_in_flight_tokens = 0
             request.num_stale_output_tokens = 0
""",
    ),
    Case(
        "chinese-evict-title",
        "故障恢复时只驱逐未确认的尾部块",
        "## Purpose\n\n只驱逐每个 KV 缓存组中未确认的尾部块。\n\n## Test Plan\n\n单元测试\n\n## Test Result\n\n通过\n",
        f"""\
--- a/{CLEANUP}
+++ b/{CLEANUP}
@@ -5,7 +5,7 @@ def unconfirmed_tail_block_ids(manager, request):
     confirmed = request.num_computed_tokens - request.num_in_flight_tokens
     ids = set()
     for group in manager.coordinator.single_type_managers:
-        blocks = group.req_to_blocks[request.request_id]
+        blocks = group.req_to_blocks.get(request.request_id, ())
         first = confirmed // group.block_size
         ids.update(block.block_id for block in blocks[first:] if not block.is_null)
     return ids
""",
    ),
    Case(
        "chinese-logging-title-drops-the-eviction",
        "修复恢复过程中的日志",
        "## Purpose\n\n日志修复。\n\n## Test Plan\n\n单元测试\n\n## Test Result\n\n通过\n",
        f"""\
--- a/{CLEANUP}
+++ b/{CLEANUP}
@@ -13,8 +13,9 @@ def unconfirmed_tail_block_ids(manager, request):

 def evict_unconfirmed_tail(manager, request):
     ids = unconfirmed_tail_block_ids(manager, request)
-    if ids:
-        manager.evict_blocks(ids)
+    import logging
+
+    logging.getLogger(__name__).debug("tail blocks: %s", sorted(ids))


 def zero_unconfirmed_tail(manager, request, block_size):
""",
        {"evict_unconfirmed_tail"},
    ),
    Case(
        "remove-auto-recovery",
        "remove auto recovery mechanism",
        _body("Recovery is driven by the orchestrator only."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -78,10 +78,3 @@ class EngineCoreSentinel:
         store = self.engine.dp_store
         store.reset(timeout=timeout)
         return store
-
-    def auto_recover(self):
-        mask = self.engine.query_mask()
-        self.dead_ranks = {{rank for rank, alive in enumerate(mask) if not alive}}
-        self._push_status("recovering")
-        self.retry()
""",
    ),
    Case(
        "abort-status-change",
        "Abort running requests with FINISHED_ERROR on fault",
        _body("Clients should see an error, not an abort."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -46,7 +46,7 @@ class EngineCoreSentinel:
         scheduler = self.engine.scheduler
         aborted = scheduler.finish_requests(
             None,
-            RequestStatus.FINISHED_ABORTED,
+            RequestStatus.FINISHED_ERROR,
         )
         self.engine._send_abort_outputs(aborted)

""",
    ),
    Case(
        "evict-pr-drops-the-abort-helper",
        "Evict contaminated KV blocks before aborting",
        _body("Evict first."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -25,8 +25,6 @@ class EngineCoreSentinel:
         if self.config.resume_requests_after_recovery:
             self._preempt_running()
-        else:
-            self._abort_all()
         self._flush_metrics()
         self._preempt_summary(engine)
         self._push_status("paused")
@@ -45,13 +43,6 @@ class EngineCoreSentinel:
             request.num_stale_output_tokens = 0

-    def _abort_all(self):
-        scheduler = self.engine.scheduler
-        aborted = scheduler.finish_requests(
-            None,
-            RequestStatus.FINISHED_ABORTED,
-        )
-        self.engine._send_abort_outputs(aborted)
-
     def _flush_metrics(self):
         stale = [r.request_id for r in self.engine.scheduler.running if r.is_stale]
         self.engine.scheduler.finish_requests(stale, RequestStatus.FINISHED_ABORTED)
""",
        # "before aborting": the title claims an abort, so removing it is explained... by its
        # words; a reviewer would still ask. Not flagged: the title's action covers it.
    ),
    Case(
        "ci-test-pr-changes-the-preempt-flag",
        "add ci test",
        _body("An end-to-end test of resume after a failed step."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -36,12 +36,12 @@ class EngineCoreSentinel:
             evict_unconfirmed_tail(scheduler.kv_cache_manager, request)

     def _preempt_running(self):
-        scheduler = self.engine.scheduler
         now = time.monotonic()
-        while scheduler.running:
-            request = scheduler.running.pop()
-            scheduler._preempt_request(request, now)
+        while self.engine.scheduler.running:
+            request = self.engine.scheduler.running.pop()
+            self.engine.scheduler._preempt_request(request, now, drop_stale_output=True)
             request.async_tokens_to_discard = request.num_output_placeholders
             request.num_in_flight_tokens = 0
             request.num_stale_output_tokens = 0
diff --git a/tests/v1/fault_tolerance/test_e2e.py b/tests/v1/fault_tolerance/test_e2e.py
new file mode 100644
--- /dev/null
+++ b/tests/v1/fault_tolerance/test_e2e.py
@@ -0,0 +1,2 @@
+def test_resume_after_a_failed_step():
+    assert True
""",
        {"EngineCoreSentinel._preempt_running"},
    ),
    Case(
        "alias-refactor-keeps-the-preempt",
        "clean codes",
        _body("Drop a local alias."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -36,12 +36,12 @@ class EngineCoreSentinel:
             evict_unconfirmed_tail(scheduler.kv_cache_manager, request)

     def _preempt_running(self):
-        scheduler = self.engine.scheduler
         now = time.monotonic()
-        while scheduler.running:
-            request = scheduler.running.pop()
-            scheduler._preempt_request(request, now)
+        while self.engine.scheduler.running:
+            request = self.engine.scheduler.running.pop()
+            self.engine.scheduler._preempt_request(request, now)
             request.async_tokens_to_discard = request.num_output_placeholders
             request.num_in_flight_tokens = 0
             request.num_stale_output_tokens = 0
""",
    ),
    Case(
        "recovery-status-drops-the-eviction-helper-call",
        "[BugFix] Update engine status after recovery",
        _body("The status stayed `paused` after a successful retry."),
        f"""\
--- a/{SENTINEL}
+++ b/{SENTINEL}
@@ -32,9 +32,7 @@ class EngineCoreSentinel:

     def _clear_contaminated_blocks(self):
-        scheduler = self.engine.scheduler
-        for request in scheduler.running:
-            evict_unconfirmed_tail(scheduler.kv_cache_manager, request)
+        self._push_status("clearing")

     def _preempt_running(self):
         scheduler = self.engine.scheduler
@@ -72,6 +70,7 @@ class EngineCoreSentinel:
         self._rebuild_dp_store(timeout)
         self.engine.scheduler.reset_prefix_cache()
         self.engine.resume()
+        self._push_status("running")

     def _rebuild_dp_store(self, timeout):
         store = self.engine.dp_store
""",
        {"EngineCoreSentinel._clear_contaminated_blocks"},
    ),
]


@dataclass
class Outcome:
    case: Case
    reported: set[str]  # qualnames PR004 named

    @property
    def true_positives(self) -> set[str]:
        return self.reported & self.case.flagged

    @property
    def false_positives(self) -> set[str]:
        return self.reported - self.case.flagged

    @property
    def misses(self) -> set[str]:
        return self.case.flagged - self.reported


GIT_ENV = {
    "GIT_AUTHOR_NAME": "ftlint corpus",
    "GIT_AUTHOR_EMAIL": "corpus@ftlint.invalid",
    "GIT_COMMITTER_NAME": "ftlint corpus",
    "GIT_COMMITTER_EMAIL": "corpus@ftlint.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "FTLINT_NO_CACHE": "1",
}


def _git(cwd: Path, *args: str, stdin: str | None = None) -> None:
    import os

    subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **GIT_ENV}, input=stdin, text=True, check=True, capture_output=True
    )


def unified(diff: str) -> str:
    """The case's diff as git reads it: an empty line in a hunk is an unchanged empty line
    (written without its leading space here, as editors and linters strip it)."""
    lines = diff.split("\n")
    return "\n".join(" " if line == "" else line for line in lines[:-1]) + "\n" + lines[-1]


def review_case(case: Case, workdir: Path) -> Outcome:
    """Write the sample project, commit it, apply the case's diff, run ``ftlint review`` with
    the case's title and description, and read which functions PR004 named."""
    import os

    root = workdir / case.name
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    for rel, text in BASE_FILES.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    try:
        _git(root, "apply", "--recount", "--whitespace=nowarn", "-", stdin=unified(case.diff))
    except subprocess.CalledProcessError as err:
        raise RuntimeError(f"{case.name}: the diff does not apply: {err.stderr}") from None
    body = workdir / f"{case.name}.md"
    body.write_text(case.body, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "ftlint", "review", "--base=HEAD", "--select=PR004", "--format=json",
         f"--title={case.title}", f"--body-file={body}", "--exit-zero"],
        cwd=root,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"{case.name}: ftlint review exited {proc.returncode}: {proc.stderr}")
    reported = set()
    for finding in json.loads(proc.stdout):
        assert finding["code"] == "PR004", finding
        reported.add(finding["message"].split("`")[1])  # "... code in `Qualname` in `path` ..."
    return Outcome(case, reported)


def measure(workdir: Path) -> list[Outcome]:
    return [review_case(case, workdir) for case in CASES]


def summary(outcomes: list[Outcome]) -> str:
    tp = sum(len(o.true_positives) for o in outcomes)
    fp = sum(len(o.false_positives) for o in outcomes)
    miss = sum(len(o.misses) for o in outcomes)
    reports = tp + fp
    precision = tp / reports if reports else float("nan")
    recall = tp / (tp + miss) if tp + miss else float("nan")
    lines = [
        f"PR004 on {len(outcomes)} pull requests: {reports} report(s), {tp} true, {fp} false, {miss} missed",
        f"PR004 precision {tp}/{reports} = {precision:.1%}; recall {tp}/{tp + miss} = {recall:.1%}",
    ]
    for o in outcomes:
        if o.false_positives or o.misses:
            lines.append(f"  {o.case.name}: false {sorted(o.false_positives)}, missed {sorted(o.misses)}")
    return "\n".join(lines)


def precision(outcomes: list[Outcome]) -> float:
    tp = sum(len(o.true_positives) for o in outcomes)
    reports = tp + sum(len(o.false_positives) for o in outcomes)
    return tp / reports if reports else 0.0


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        print(summary(measure(Path(tmp))))
