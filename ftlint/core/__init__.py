"""Core: findings, source I/O, suppressions, vLLM's vocabulary, configuration, digests and the on-disk store. Imports nothing else of ftlint."""
