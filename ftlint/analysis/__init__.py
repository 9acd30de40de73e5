"""The shared abstract interpreter of fault-path code.

One walk over every path through a fault-path function and the project helpers it
calls, tracking *values* (which expression is a running request, the scheduler's
running queue, a request's block list, a collection of block ids, a bound vLLM
primitive) instead of names, and the effects of vLLM's primitives on them (what
was evicted, from which boundary, in which KV-cache groups; what was freed; which
counters a preempted request still holds). It records neutral facts (`facts`) and
names no rule: each rule asks for the facts of one kind and decides its finding
(`interpreter.Interpreter.facts`).

Modules: `facts` (what the walk found), `values` (the abstract values, one named type
per kind, and their joins), `generation` (which vLLM stale-output API the linted code
targets), `interpreter` (the walk from each entry function, and the queries the rules
ask), `walk` (the walk in layers: `state`, `base`, `effects`, `expressions`, `calls`,
`control`; `shapes`: the syntax shapes it recognises).
"""
