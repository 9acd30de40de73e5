"""The codeql-action line-hash port reproduces codeql-action's own test vectors
(github/codeql-action src/fingerprints.test.ts)."""

from __future__ import annotations

import pytest

from ftlint.report.fingerprint import assign_fingerprints, line_hash_value, line_hashes

VECTORS = [
    ("", ["c129715d7a2bc9a3:1"]),
    (
        " a\nb\n  \t\tc\n d",
        [
            "271789c17abda88f:1",
            "54703d4cd895b18:1",
            "180aee12dab6264:1",
            "a23a3dc5e078b07b:1",
        ],
    ),
    (
        " hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End",
        [
            "8b7cf3e952e7aeb2:1",
            "b1ae1287ec4718d9:1",
            "bff680108adb0fcc:1",
            "c6805c5e1288b612:1",
            "b86d3392aea1be30:1",
            "e6ceba753e1a442:1",
        ],
    ),
]
TRAILING = [
    "e9496ae3ebfced30:1",
    "fb7c023a8b9ccb3f:1",
    "ce8ba1a563dcdaca:1",
    "e20e36e16fcb0cc8:1",
    "b3edc88f2938467e:1",
    "c8e28b0b4002a3a0:1",
    "c129715d7a2bc9a3:1",
]
for text in (
    " hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End\n",
    " hello; \t\nworld!!!\r\r\r  \t\tGreetings\r End\r",
    " hello; \t\r\nworld!!!\r\n\r\n\r\n  \t\tGreetings\r\n End\r\n",
    " hello; \t\nworld!!!\r\n\n\r  \t\tGreetings\r End\r\n",
):
    VECTORS.append((text, TRAILING))
VECTORS.append(
    (
        "Lorem ipsum dolor sit amet.\n" * 10,
        [f"a7f2ff13bc495cf2:{i}" for i in range(1, 7)]
        + [
            "a7f2ff1481e87703:1",
            "a9cf91f7bbf1862b:1",
            "55ec222b86bcae53:1",
            "cc97dc7b1d7d8f7b:1",
            "c129715d7a2bc9a3:1",
        ],
    )
)


@pytest.mark.parametrize("text,expected", VECTORS)
def test_codeql_vectors(text, expected):
    assert line_hashes(text) == expected


def test_long_line_hash_equals_whole_file_hash():
    """With >= 100 non-blank characters the window stays inside the line: exact."""
    long_line = "x = " + "a" * 120
    whole = line_hashes("import os\n" + long_line + "\nprint(x)\n")
    assert whole[1].split(":")[0] == line_hash_value(long_line)


def test_non_bmp_characters_are_two_code_units():
    assert line_hash_value("🙂") != line_hash_value("\ue000")
    assert line_hashes("🙂")[0] == line_hashes("\ud83d\ude42".encode("utf-16", "surrogatepass").decode("utf-16"))[0]


def test_assign_fingerprints_numbering():
    items = [
        ("a.py", 3, "foo()"),
        ("a.py", 1, "foo()"),
        ("a.py", 3, "foo()"),
        ("b.py", 1, "foo()"),
    ]
    value = line_hash_value("foo()")
    assert assign_fingerprints(items) == [
        f"{value}:2",
        f"{value}:1",
        f"{value}:2",
        f"{value}:1",
    ]
