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
KNOWN_DISAGREEMENTS: dict[str, str] = {
    # -- false positives: correct handlers flagged ---------------------------------------
    "abort_alias_evict_method":
        "FTR01 -> none: evict_blocks called through a local alias "
        "(evict = kvm.evict_blocks; evict(ids)) is not seen as an eviction",
    "abort_partial_evict":
        "FTR01 -> none: the eviction helper called through functools.partial is not "
        "followed",
    "abort_guard_if_ids":
        "FTR01 -> none: the tail ids built in a nested set comprehension and evicted "
        "under `if ids:` are not seen as covering the tail",
    "abort_try_finally":
        "FTR01 -> none: the eviction helper in `try` runs before the abort in "
        "`finally` on the normal path; only the path where the helper raises skips it",
    "abort_collect_then_evict_after_free":
        "FTR01 -> none: ids collected from req_to_blocks before the abort and evicted "
        "after it still drop the hashes; only reading req_to_blocks after the free is "
        "useless",
    "abort_pop_hashes_directly":
        "FTR01 -> none: removing the tail's hashes by hand "
        "(block_pool.cached_block_hash_to_block.pop(hash, id)) is an eviction by "
        "effect, not by name",
    "switch_helper_evict_flag_set":
        "FTR01 -> none: the shared helper evicts when evict=True, which this caller "
        "passes; the helper's summary must be per path (per argument), not 'may not "
        "evict'",
    "resume_setattr_counters":
        "FTR03 -> none: counters reset with setattr(req, name, 0) over a tuple of field "
        "names are not seen",
    "resume_zero_inflight_before_preempt":
        "FTR03 -> none: num_in_flight_tokens zeroed before _preempt_request leaves both "
        "counters at zero (the preempt copies it into num_stale_output_tokens)",
    "resume_drop_stale_after_zeroing":
        "FTR03 -> none: drop_stale_output=True with num_in_flight_tokens already zeroed "
        "drops nothing",
    "resume_helper_preempts_caller_resets":
        "FTR03 -> none: the helper preempts and returns the request; the caller resets "
        "the returned request's counters",
    "old_api_resume_correct":
        "FTR03 -> none: on the 0.26 API (no num_stale_output_tokens) resetting "
        "num_in_flight_tokens and num_output_placeholders is the complete reset",
    "old_api_setattr_reset":
        "FTR03 -> none: 0.26 API, counters reset with setattr in a helper module",
    # -- misses: real bugs not reported -------------------------------------------------
    "abort_first_group_only":
        "none -> FTR01: evicts the tail of single_type_managers[0] only; the second "
        "KV-cache group's dirty tail stays cached",
    "abort_tail_from_computed":
        "none -> FTR01: the range starts at num_computed_tokens // block_size, past "
        "the dirty tail",
    "abort_record_zeroing_only":
        "none -> FTR01: record_blocks_for_zeroing zeroes the blocks but leaves their "
        "hashes: it is not an eviction",
    "abort_skip_prefill_requests":
        "none -> FTR01: skips requests with num_output_tokens == 0, which have "
        "in-flight tokens (a failed prefill); skipping is fine only without in-flight "
        "tokens",
    "sentinel_subclass_only_logs":
        "none -> FTR01: super().on_fault is vLLM's EngineCoreSentinel.on_fault, which "
        "aborts without evicting",
    "resume_alias_preempt_no_reset":
        "none -> FTR03: _preempt_request called through a local alias, counters never "
        "reset",
    "resume_partial_preempt_no_reset":
        "none -> FTR03: _preempt_request called through functools.partial, counters "
        "never reset",
    "switch_subclass_overrides_resume":
        "none -> FTR03: the subclass overrides the base class's _resume (called as "
        "self._resume from the inherited on_fault) and drops the counter reset",
    "abort_block_pool_sweep":
        "none -> FTR02: evicts every hashed block of block_pool.blocks (a whole-pool "
        "source is broad)",
    "abort_one_block_margin":
        "none -> FTR02: the range starts one block before the confirmed boundary "
        "(max(confirmed // block_size - 1, 0))",
    "resume_reset_prefix_cache_then_rearm":
        "none -> FTR02: reset_prefix_cache(reset_running_requests=True) clears the whole "
        "prefix cache (FT005 reports the call, but no rule in the mapping does)",
    # -- both: wrong family -------------------------------------------------------------
    "abort_then_reset_prefix_cache":
        "FTR01 -> FTR02: reset_prefix_cache() after the abort drops every hash, dirty "
        "ones included: broad, not missing",
    "resume_reset_prefix_cache":
        "none -> FTR02,FTR03: reset_prefix_cache(reset_running_requests=True) preempts "
        "with drop_stale_output=True (first good frame dropped) and clears the whole "
        "prefix cache",
}

# name -> what goes wrong when `ftlint check --fix` is applied to the handler and
# the result is rerun (statically and on the real scheduler); today's fixes.
_POPS_AGAIN = (
    "FT008's fix writes the reset on the preempt's argument expression "
    "(sched.running.pop().num_in_flight_tokens = 0), popping two more requests: the "
    "fixed handler raises IndexError (and other requests are lost from running)")
_OLD_API_FIELD = (
    "on the 0.26 API the fix adds num_stale_output_tokens = 0, a field that "
    "generation does not have (its counters are num_in_flight_tokens and "
    "num_output_placeholders)")
KNOWN_FIX_FAILURES: dict[str, str] = {
    "old_api_copies_discard":
        "FT001's fix of `request.async_tokens_to_discard = request.num_output_placeholders` "
        "leaves the fragment `ns_to_discard = request.num_output_placeholders` at column 0: "
        "the fixed module no longer imports (IndentationError)",
    "old_api_counters_left": _OLD_API_FIELD,
    "old_api_placeholders_left": _OLD_API_FIELD,
    "old_api_resume_correct": _OLD_API_FIELD,
    "old_api_setattr_reset": _OLD_API_FIELD,
    "old_api_switch_discard_on_resume": _OLD_API_FIELD,
    "resume_counters_left": _POPS_AGAIN,
    "resume_drop_stale_output": _POPS_AGAIN,
    "resume_reset_other_queue": _POPS_AGAIN,
    "switch_resume_counters_left": _POPS_AGAIN,
}
