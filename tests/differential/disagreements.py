"""Where the static verdict may differ from the runtime verdict, and why.

``LEGITIMATE_DIFFERENCES``: the runtime oracle cannot see the bug (or the
scenario cannot show it) while the static rules should report it.  The test
holds the static verdict to the one given here instead of the runtime's.

``KNOWN_DISAGREEMENTS``: today's static rules are wrong on these handlers (the
runtime is right).  The analysis rewrite (issue 12) is expected to fix them;
the test marks them ``xfail(strict=True)``, so an entry that starts agreeing
fails until it is removed from this table: the table can only shrink.
"""

from __future__ import annotations

# name -> (expected static verdict as runtime families, reason)
LEGITIMATE_DIFFERENCES: dict[str, tuple[list[str], str]] = {
    "old_api_placeholders_left": (
        ["FTR03"],
        "vLLM 0.26's preempt leaves num_output_placeholders set and the handler does not "
        "reset it (the older API's counters are num_in_flight_tokens and "
        "num_output_placeholders); the runtime verifier's FTR03 reads "
        "num_in_flight_tokens, num_stale_output_tokens/drop_stale_output and "
        "async_tokens_to_discard, not num_output_placeholders, so the runtime passes it",
    ),
}

# name -> what the current static rules get wrong (static verdict -> runtime verdict)
KNOWN_DISAGREEMENTS: dict[str, str] = {}

# name -> what goes wrong when `ftlint check --fix` is applied to the handler and
# the result is rerun (statically and on the real scheduler).
KNOWN_FIX_FAILURES: dict[str, str] = {
    "old_api_counters_left": "the handler names no counter field of either API generation and the corpus does not set "
    "`vllm-api`, so the generation falls back to the installed vLLM (0.34) and FT008's fix "
    'resets num_stale_output_tokens, which 0.26 lacks; with `vllm-api = "0.26"` (or a '
    "Request class in the project) the fix names num_output_placeholders",
}


# -- the rules' own examples run through the oracle (rule_examples.py) -------------------

_STRING_STATUS = (
    'passes the status as a string (`"aborted"`); the real `finish_requests` needs a RequestStatus (TypeError)'
)
_OLD_PREEMPT = "calls `preempt_request`, which vLLM 0.34's Scheduler lacks (only `_preempt_request`): AttributeError"
_NO_IMPORT = "names `RequestStatus` without importing it (the example shows upstream's lines only): NameError"

# example id -> why it cannot run on the real scheduler (it raises): its static verdict
# is not compared.
EXAMPLES_CANNOT_RUN: dict[str, str] = {
    "FT001-INVALID-7-helper-in-other-module": _OLD_PREEMPT,
    "FT004-VALID-1-tail-slice-in-same-class-helper-abort-and-resume": _STRING_STATUS,
    "FT004-VALID-2-whole-list-bounded-by-helper-in-other-module": _STRING_STATUS,
    "FT004-VALID-3-kv-load-failure-path-is-not-a-fault-path": _STRING_STATUS,
    "FT004-INVALID-1-req-to-blocks-in-same-class-helper-abort-and-resume": _STRING_STATUS,
    "FT004-INVALID-2-req-to-blocks-in-helper-in-other-module": _STRING_STATUS,
    "FT004-INVALID-3-get-block-ids-and-request-block-ids-passed-to-helper": "reads `request.block_ids`, which "
    "vLLM 0.34's Request does not have: AttributeError",
    "FT004-INVALID-4-maybe-evict-every-block-in-a-loop": _STRING_STATUS,
    "FT004-INVALID-5-one-block-of-margin-and-a-whole-pool-sweep": _STRING_STATUS,
    "FT004-INVALID-6-whole-prefix-cache-reset-after-the-abort": _STRING_STATUS,
    "FT006-VALID-3-ids-collected-before-the-free-evicted-after": _STRING_STATUS,
    "FT006-INVALID-1-abort-then-helper-evicts": _STRING_STATUS,
    "FT006-INVALID-2-abort-and-resume-branches-both-before-eviction": _STRING_STATUS,
    "FT006-INVALID-3-helper-in-other-module": _STRING_STATUS,
    "FT006-INVALID-4-free-in-same-class-helper-before-eviction": _STRING_STATUS,
    "FT006-INVALID-5-per-request-free-then-read-its-blocks": _STRING_STATUS,
    "FT007-VALID-1-evict-before-both-branches": "calls `self._tail(...)`, a helper the example leaves out: "
    "AttributeError",
    "FT007-VALID-3-helper-in-file-not-passed": _STRING_STATUS,
    "FT007-VALID-5-eviction-pass-skips-requests-without-tail": _STRING_STATUS,
    "FT007-VALID-6-comprehension-over-groups-guarded-by-if-ids": _STRING_STATUS,
    "FT007-VALID-7-bound-methods-in-a-dict": _STRING_STATUS,
    "FT007-INVALID-1-upstream-abort": _NO_IMPORT,
    "FT007-INVALID-2-eviction-only-in-resume-branch": _STRING_STATUS,
    "FT007-INVALID-3-free-in-helper-in-file-not-passed": _STRING_STATUS,
    "FT007-INVALID-5-eviction-may-fail-silently": _STRING_STATUS,
    "FT007-INVALID-6-free-in-helper-in-same-class-reported-at-the-free": _NO_IMPORT,
    "FT007-INVALID-7-tail-from-num-computed-tokens-misses-it": _STRING_STATUS,
    "FT007-INVALID-8-first-kv-cache-group-only": _STRING_STATUS,
    "FT007-INVALID-9-zeroing-is-not-eviction": _STRING_STATUS,
    "FT007-INVALID-10-skips-requests-that-have-a-dirty-tail": _STRING_STATUS,
    "FT008-INVALID-2-one-counter-reset": _OLD_PREEMPT,
    "FT008-INVALID-4-helper-in-other-module-abort-and-resume": _STRING_STATUS,
}

# example id -> why its static verdict differs from the runtime one although it runs.
# (FTR01 is not compared for examples whose eviction is the placeholder
# `evict_blocks(set())`: it stands for a tail eviction the example is not about, and
# evicts nothing on the real scheduler.)
EXAMPLE_DIFFERENCES: dict[str, str] = {
    "FT001-INVALID-1-old-api-discard": "sets the discard counter on requests that stay running (nothing is "
    "preempted or freed): the runtime checks stale-output bookkeeping on requests back in the waiting queue only",
    "FT001-INVALID-3-helper-in-same-class": "sets drop_stale_output on requests that stay running (nothing is "
    "preempted or freed): the runtime checks stale-output bookkeeping on requests back in the waiting queue only",
    "FT008-VALID-2-drop-stale-output-is-ft001": "its preempt with drop_stale_output=True is FT001's, suppressed "
    "in the example with `# noqa: FT001` (the example shows that FT008 leaves it to FT001)",
    "FT008-VALID-5-older-api-resets-its-own-counters": "written for the 0.26 API (its own Request class says so), "
    "but run on 0.34's scheduler, whose preempt copies num_in_flight_tokens into num_stale_output_tokens",
}
