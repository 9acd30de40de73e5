"""GitHub code scanning's ``primaryLocationLineHash``, as computed by github/codeql-action.

Port of ``hash()`` in codeql-action ``src/fingerprints.ts``: for every line, a rolling
polynomial hash (base 37, 64-bit wrap-around, like the ``long`` npm package) over the
first ``BLOCK_SIZE`` = 100 characters counted from the start of the line, skipping spaces
and tabs, with CR, LF and CRLF normalised to LF.  Characters are UTF-16 code units (the
JavaScript ``charCodeAt``).  After the input a sentinel 65535 is hashed, then zeros pad the
window.  The value is rendered ``"<hex>:<n>"``: lower-case hex *without* zero padding (as
``Long.toString(16)``; usually 16 digits, sometimes fewer) and ``n`` = how many lines so far
in the file had the same hash (1-based).

``line_hashes`` is exact for a whole file.  A reporter only holds a finding's own
source line (``Finding.line_text``), so :func:`line_fingerprint` hashes that line as if it
were a whole file (``line_text + "\\n"``).  The value equals codeql-action's whenever the
line has at least 99 non-blank characters (the window then lies inside the line); for
shorter lines the real window would reach into the following lines, which ftlint does not
have, so the value is ftlint's own, still stable from run to run for an unchanged line,
which is what code scanning uses it for (matching alerts across uploads).  The occurrence
counter is computed among the *finding* lines of a file (lines without findings are not
known), see :func:`assign_fingerprints`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

BLOCK_SIZE = 100
MOD = 37
_MASK = (1 << 64) - 1
_FIRST_MOD = pow(MOD, BLOCK_SIZE, 1 << 64)
_TAB, _SPACE, _LF, _CR = 9, 32, 10, 13
_EOF = 65535


def _code_units(text: str) -> Iterable[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    for i in range(0, len(data), 2):
        yield data[i] | (data[i + 1] << 8)


def line_hashes(text: str) -> list[str]:
    """codeql-action's ``"<hex>:<occurrence>"`` for every line of ``text`` (index 0 = line 1)."""
    window = [0] * BLOCK_SIZE
    line_numbers = [-1] * BLOCK_SIZE
    hash_raw = 0
    index = 0
    line_number = 0
    line_start = True
    prev_cr = False
    counts: dict[str, int] = {}
    out: dict[int, str] = {}

    def output_hash() -> None:
        value = format(hash_raw & _MASK, "x")
        counts[value] = counts.get(value, 0) + 1
        out[line_numbers[index]] = f"{value}:{counts[value]}"
        line_numbers[index] = -1

    def update_hash(current: int) -> None:
        nonlocal hash_raw, index
        begin = window[index]
        window[index] = current
        hash_raw = (MOD * hash_raw + current - _FIRST_MOD * begin) & _MASK
        index = (index + 1) % BLOCK_SIZE

    def process(current: int) -> None:
        nonlocal prev_cr, line_start, line_number
        if current in (_SPACE, _TAB) or (prev_cr and current == _LF):
            prev_cr = False
            return
        if current == _CR:
            current = _LF
            prev_cr = True
        else:
            prev_cr = False
        if line_numbers[index] != -1:
            output_hash()
        if line_start:
            line_start = False
            line_number += 1
            line_numbers[index] = line_number
        if current == _LF:
            line_start = True
        update_hash(current)

    for unit in _code_units(text):
        process(unit)
    process(_EOF)
    for _ in range(BLOCK_SIZE):
        if line_numbers[index] != -1:
            output_hash()
        update_hash(0)
    return [out[n] for n in sorted(out)]


def line_hash_value(line_text: str) -> str:
    """The hex hash of one source line, hashed as the whole file ``line_text + "\\n"``."""
    line = line_text.rstrip("\r\n")
    return line_hashes(line + "\n")[0].split(":", 1)[0]


def assign_fingerprints(items: Sequence[tuple[str, int, str]]) -> list[str]:
    """``primaryLocationLineHash`` for each ``(file, line, line_text)``.

    Occurrences are numbered per file, over the distinct lines in line order, like
    codeql-action numbers identical hashes down a file; findings on the same line share
    the fingerprint.
    """
    per_line: dict[tuple[str, int], str] = {}
    for path, line, text in items:
        per_line.setdefault((path, line), line_hash_value(text))
    numbered: dict[tuple[str, int], str] = {}
    counts: dict[tuple[str, str], int] = {}
    for path, line in sorted(per_line):
        value = per_line[(path, line)]
        counts[(path, value)] = counts.get((path, value), 0) + 1
        numbered[(path, line)] = f"{value}:{counts[(path, value)]}"
    return [numbered[(path, line)] for path, line, _ in items]
