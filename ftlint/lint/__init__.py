"""Lint: the rule base and registry, the per-file runner, the engine (discover -> scan -> lint -> suppress) and the speed machinery only the engine uses (scan strategies, result store)."""
