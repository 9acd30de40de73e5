"""ftlint: checks for vLLM fault-tolerance invariants."""

__version__ = "0.1.0"
