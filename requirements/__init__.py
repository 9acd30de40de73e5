"""The pinned lists for a CPU-only vLLM; they ship in the wheel as ftlint.runtime.requirements
(see ftlint.runtime.install_hint). scripts/bootstrap-env reads them from the checkout."""
