# The two set-up commands (see README): both build or reuse the environment first.
.PHONY: demo test test-static lint docs

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

# The static linter's tests only, in a venv with libcst and the test tools but no torch or
# vLLM (scripts/bootstrap-env --static): what a contributor to the linter needs. The tests
# that need vLLM carry the `vllm` marker (tests/conftest.py marks tests/runtime/ and
# tests/differential/ by directory) and are left out.
test-static:
	@venv=$$(bash scripts/bootstrap-env --static) || exit 2; \
	"$$venv/bin/python" -m pytest -m "not vllm" $(PYTEST_ARGS)

# The project checks its own code: ruff (lint and format), mypy, and ftlint on itself
# (configured in pyproject.toml; the tools are pinned in requirements/dev.txt). Runs every
# tool and fails if any failed.
lint:
	@venv=$$(bash scripts/bootstrap-env --static) || exit 2; \
	status=0; \
	"$$venv/bin/ruff" check . || status=1; \
	"$$venv/bin/ruff" format --check . || status=1; \
	"$$venv/bin/python" -m mypy ftlint rules || status=1; \
	"$$venv/bin/python" -m ftlint check . || status=1; \
	exit $$status

# The generated docs (README's rule table, docs/rules.md) from the rule registry; a test
# fails with this command's name when they are stale.
docs:
	@venv=$$(bash scripts/bootstrap-env --static) || exit 2; \
	"$$venv/bin/python" -m ftlint.docs
