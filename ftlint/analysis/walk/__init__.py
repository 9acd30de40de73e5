"""The path walk, in layers: each module's class builds on the one below it.

`state` (a path's store and effects so far, how paths join) -> `base` (what a walk holds:
its frames, loops and facts) -> `effects` (vLLM's primitives) -> `expressions` ->
`calls` (methods, builtins, lambdas, project helpers walked in the caller's state) ->
`control` (statements); `shapes` reads the syntax shapes the layers recognise. The walk
of one entry function is `interpreter._EntryWalk`, on top.
"""
