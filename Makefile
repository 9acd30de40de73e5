# The two set-up commands (see README): both build or reuse the environment first.
.PHONY: demo test

# Main job on an embedded default: lint the bundled bad fault handler, then run the
# runtime verifier's demo on vLLM's real scheduler (CPU).
demo:
	@venv=$$(bash scripts/bootstrap-env) || exit 2; \
	"$$venv/bin/python" -m ftlint check ftlint/examples/bad_fault_handler.py; \
	status=$$?; [ $$status -le 1 ] || exit $$status; \
	echo; echo "== fixes ftlint can apply safely (ftlint check --diff) =="; \
	"$$venv/bin/python" -m ftlint check --diff ftlint/examples/bad_fault_handler.py; \
	echo; "$$venv/bin/python" -m ftlint verify --demo

# The whole test suite (static linter, review output, runtime verifier on real vLLM).
test:
	@venv=$$(bash scripts/bootstrap-env) || exit 2; \
	"$$venv/bin/python" -m pytest $(PYTEST_ARGS)
