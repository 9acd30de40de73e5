"""The byte-level test that decides whether a file can define a fault handler.

Exact by construction: a file defines a function matching a handler pattern only
if its bytes contain `def` + whitespace/line-continuations + a name the pattern's
last component matches; this regex accepts every such file (and some more, e.g.
the name in a string, which only costs a parse).
"""

from __future__ import annotations

import re


def _glob_to_regex(glob: str) -> bytes:
    out = []
    i = 0
    while i < len(glob):
        c = glob[i]
        if c == "*":
            out.append(r"[\w\x80-\xff]*")
        elif c == "?":
            out.append(r"[\w\x80-\xff]")
        elif c == "[":
            j = glob.find("]", i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                body = glob[i + 1 : j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body + "]")
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out).encode()


def handler_regex(patterns) -> re.Pattern[bytes]:
    """One regex for all handler patterns (the part after the last '.' names the function)."""
    names = sorted({_glob_to_regex(p.rsplit(".", 1)[-1]) for p in patterns})
    body = b"|".join(names) if names else b"(?!x)x"
    return re.compile(rb"\bdef(?:\s|\\\r?\n)+(?:" + body + rb")(?![\w\x80-\xff])")


class Prefilter:
    def __init__(self, patterns) -> None:
        self.regex = handler_regex(patterns)

    def matches(self, data: bytes) -> bool:
        return self.regex.search(data) is not None
