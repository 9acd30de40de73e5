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
