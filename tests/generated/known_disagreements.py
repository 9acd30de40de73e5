"""Generated handlers of the fixed slice (fixed_slice.py) where ftlint's static codes
differ from the truth today: ``{name: "kinds: static codes; truth codes"}``.  Measured with
``scripts/generated_agreement.py --seed 2026 --n 300 --jobs 1`` on the commit that added
this file; test_generated.py marks each ``xfail(strict=True)``, so an entry must go once
the rules agree on it (issue 21 item 2 reshapes the analysis: regenerate this table
with ``--json`` then).  Each handler's header names its axis values; regenerate one with
``generator.render(generator.draw(2026, index))``.

Regenerated (38 entries) after merging the eviction side of item 2 (lambdas, class-attribute
lambdas, method tables with a computed key: one of the table's callables runs, calling its
``None`` entry would raise; decorators, generators of ids, set difference, gates in the
request loop) with the resume side (resets through ``vars()``, ``setattr`` over a dict's
items, a helper's ``**fields``, ``copy.copy``; ``methodcaller``, ``**{...}``). Seed 2026,
300 handlers: 262 agree on every code. The kinds left, with the smallest handler of each:
- FT002 FN (16): an eviction in a lambda bound in ``on_fault``, spelled through a dict literal.
- FT003 FN (3): the range filter in a module function reached from a class-attribute lambda.
- FTR01 FN (10): the boundary from ``num_computed_tokens`` (defect ft007_computed), evicted
  through ``methodcaller`` in a lambda bound in ``on_fault`` (axes of the smallest: site
  lambda_local, release_call kwargs, flow early_return, switch_style dict_dispatch): no FT007.
- FTR02 FN (4): one block of margin (ft004_margin), ids as all minus the prefix, evicted
  through ``**{...}`` per request behind an ``isinstance`` gate: no FT004.
- FTR02 FP (7): ``getattr(sched, "reset_prefix_cache")()`` after per-request aborts on
  vLLM 0.26: FT004 on the reset, but the runtime sees no clean block evicted.
"""

KNOWN_DISAGREEMENTS: dict[str, str] = {
    "g2026_00004": "FTR02 FN: static FT002; truth FT002, FTR02",
    "g2026_00010": "FT002 FN: static FT001; truth FT002, FTR03",
    "g2026_00012": "FTR02 FP: static FT004, FT005; truth FT005",
    "g2026_00016": "FT002 FN: static FT008; truth FT002, FTR03",
    "g2026_00021": "FTR02 FP: static FT004, FT005; truth FT005",
    "g2026_00034": "FTR01 FN: static nothing; truth FTR01",
    "g2026_00049": "FTR01 FN: static nothing; truth FTR01",
    "g2026_00061": "FT002 FN: static FT008; truth FT002, FTR03",
    "g2026_00067": "FT002 FN: static nothing; truth FT002",
    "g2026_00073": "FTR01 FN: static FT008; truth FTR01, FTR03",
    "g2026_00079": "FT002 FN: static FT007; truth FT002, FTR01",
    "g2026_00085": "FTR01 FN: static nothing; truth FTR01",
    "g2026_00093": "FTR02 FN: static FT002; truth FT002, FTR02",
    "g2026_00098": "FT002 FN: static FT007; truth FT002, FTR01",
    "g2026_00132": "FT003 FN: static nothing; truth FT003",
    "g2026_00136": "FT003 FN: static nothing; truth FT003",
    "g2026_00144": "FT002 FN, FTR01 FN: static nothing; truth FT002, FTR01",
    "g2026_00153": "FTR02 FN: static nothing; truth FTR02",
    "g2026_00158": "FT003 FN: static FT008; truth FT003, FTR03",
    "g2026_00162": "FT002 FN: static nothing; truth FT002",
    "g2026_00163": "FTR02 FP: static FT004, FT005; truth FT005",
    "g2026_00167": "FTR01 FN: static nothing; truth FTR01",
    "g2026_00173": "FT002 FN: static FT001; truth FT002, FTR03",
    "g2026_00188": "FT002 FN: static FT007; truth FT002, FTR01",
    "g2026_00189": "FTR01 FN: static nothing; truth FTR01",
    "g2026_00194": "FTR01 FN: static FT008; truth FTR01, FTR03",
    "g2026_00196": "FT002 FN: static nothing; truth FT002",
    "g2026_00214": "FT002 FN: static FT001, FT008; truth FT002, FTR03",
    "g2026_00217": "FTR02 FP: static FT004, FT005, FT008; truth FT005, FTR03",
    "g2026_00219": "FT002 FN: static FT008; truth FT002, FTR03",
    "g2026_00228": "FTR02 FP: static FT002, FT004, FT005; truth FT002, FT005",
    "g2026_00243": "FTR02 FP: static FT002, FT004, FT005; truth FT002, FT005",
    "g2026_00244": "FTR01 FN: static nothing; truth FTR01",
    "g2026_00248": "FT002 FN: static FT007; truth FT002, FTR01",
    "g2026_00250": "FT002 FN: static FT007; truth FT002, FTR01",
    "g2026_00276": "FTR02 FN: static FT008; truth FTR02, FTR03",
    "g2026_00279": "FTR01 FN, FTR02 FP: static FT004, FT005; truth FT005, FTR01",
    "g2026_00296": "FT002 FN: static FT004, FT008; truth FT002, FTR02, FTR03",
}
