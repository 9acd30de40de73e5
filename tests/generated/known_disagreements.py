"""Generated handlers of the fixed slice (fixed_slice.py) where ftlint's static codes
differ from the truth today: ``{name: "kinds: static codes; truth codes"}``.  Measured with
``scripts/generated_agreement.py --seed 2026 --n 300 --jobs 1`` on the commit that added
this file; test_generated.py marks each ``xfail(strict=True)``, so an entry must go once
the rules agree on it (issue 21 item 2 reshapes the analysis: regenerate this table
with ``--json`` then).  Each handler's header names its axis values; regenerate one with
``generator.render(generator.draw(2026, index))``.

Regenerated (empty) after the session that modelled a `@contextmanager`'s exit after the
body, kept a loop from spreading one entry path's eviction to another (an `isinstance` gate
before the loop), resolved `type(self).m()`, put what a class-attribute lambda calls in the
fault-path scope, read a margin written as all minus a shorter prefix or as the last
`len(blocks) - first` blocks, let FT002 see evictions however spelled (the walk's
`EvictionCalled` facts), judged FT002 in a dict-dispatched `_resume_all`/`_abort_all` as in
helpers (the generator's truth), and read the prefix cache vLLM 0.26's `reset_prefix_cache`
rebinds (the runtime checks). Seed 2026, 300 handlers: all 300 agree on every code.
"""

KNOWN_DISAGREEMENTS: dict[str, str] = {}
