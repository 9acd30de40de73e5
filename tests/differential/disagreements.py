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

# example id -> why it cannot run on vLLM 0.34's real scheduler (it raises there): its
# static verdict is not compared. None today: the examples are vLLM 0.34 code (a
# RequestStatus for `finish_requests`, with its import; `_preempt_request`; real
# attribute names; every helper they call). An example about an older API generation
# on purpose would go here, with its reason.
EXAMPLES_CANNOT_RUN: dict[str, str] = {}

# example id -> why its static verdict differs from the runtime one although it runs.
# (FTR01 is not compared for examples whose eviction is the placeholder
# `evict_blocks(set())`: it stands for a tail eviction the example is not about, and
# evicts nothing on the real scheduler.)
EXAMPLE_DIFFERENCES: dict[str, str] = {
    "FT001-INVALID-1-old-api-discard": "sets the discard counter on requests that stay running (nothing is "
    "preempted or freed): the runtime checks stale-output bookkeeping on requests back in the waiting queue only",
    "FT001-INVALID-4-helper-in-same-class": "sets drop_stale_output on requests that stay running (nothing is "
    "preempted or freed): the runtime checks stale-output bookkeeping on requests back in the waiting queue only",
    "FT004-VALID-3-kv-load-failure-path-is-not-a-fault-path": "its handler aborts without evicting, FT007's "
    "finding, suppressed in the example with `# noqa: FT007` (the example shows that FT004 leaves the "
    "KV-load-failure path alone)",
    "FT008-VALID-2-drop-stale-output-is-ft001": "its preempt with drop_stale_output=True is FT001's, suppressed "
    "in the example with `# noqa: FT001` (the example shows that FT008 leaves it to FT001)",
    "FT008-VALID-5-older-api-resets-its-own-counters": "written for the 0.26 API (its own Request class says so), "
    "but run on 0.34's scheduler, whose preempt copies num_in_flight_tokens into num_stale_output_tokens",
    "FT009-VALID-3-older-api-preempt-leaves-the-placeholder": "FT008 asks for `num_output_placeholders = 0` after "
    "the 0.26 preempt; the example's `-= 1` takes the lost step's one placeholder back to 0 instead (on vLLM "
    "0.26.0's scheduler no FTR03, no FTR04): FT008 reads only a reset to 0 as a reset",
}
