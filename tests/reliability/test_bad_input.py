"""Issue 6, the bad-input matrix: every input gives a clean report.

Each bad file ftlint parses gets exactly one FT000 naming the cause (or, for a non-Python
file, a clean skip with the reason); good files next to it are still linted; the exit code says
so (1: findings, 0: clean). No traceback, ever (the `ftlint` fixture asserts that). A file is
parsed when it may define a handler (the byte prefilter: `def on_fault`), when a handler reaches
it, or with `--exhaustive`, whether it is passed explicitly or found by a walk (issue 15).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ftlint.core import source as source_mod
from ftlint.core.source import MAX_BRACKET_DEPTH, MAX_CONCATENATED_STRINGS
from ftlint.index import discovery as discovery_mod
from ftlint.index.prefilter import other_encoding


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


HANDLER = "class Sentinel:\n    def on_fault(self, exc):\n        self.scheduler.reset_prefix_cache()\n"
FT005 = (
    "Fault path calls `reset_prefix_cache()`: it drops the next output frame and empties the whole "
    "prefix cache instead of the dirty tail"
)

# name -> (bytes, expected FT000 (line, column, message))
BAD_FILES = {
    "py2_print.py": (
        b'def on_fault(self, exc):\n    print "failed"\n',
        (  # where compile() reports it
            2,
            5,
            "syntax error: expected one of !=, %, &, (, *, **, +, ,, -, ., /, //, :, "
            ";, <, <<, <=, =, ==, >, >=, >>, @, NEWLINE, [, ^, and, if, in, is, not, or, |",
        ),
    ),
    "unfinished_edit.py": (
        b"def on_fault(self, exc):\n    self.scheduler.finish_requests(\n",
        (  # where compile() reports it
            2,
            35,
            "syntax error: unexpected end of file: expected one of ), *, **, +, -, ..., AWAIT, False, NAME, "
            "NUMBER, None, True, lambda, not, ~",
        ),
    ),
    "missing_colon.py": (
        b"def on_fault(self, exc)\n    pass\n",
        (1, 24, "syntax error: expected one of ->, :"),  # where compile() reports it
    ),
    "latin1_undeclared.py": (
        b'def on_fault(self, exc):\n    msg = "\xe9chec"\n',
        (2, 12, "cannot decode as utf-8: invalid continuation byte (byte 0xe9)"),
    ),
    "latin1_first_line.py": (
        b'msg = "\xff\xfe"\n',
        (1, 8, "cannot decode as utf-8: invalid start byte (byte 0xff)"),
    ),
    "mislabeled_utf8.py": (
        b'# -*- coding: utf-8 -*-\nmsg = "\xe9chec"\n',
        (2, 8, "cannot decode as utf-8: invalid continuation byte (byte 0xe9)"),
    ),
    "mislabeled_ascii.py": (
        b'# coding: ascii\nmsg = "\xc3\xa9chec"\n',
        (2, 8, "cannot decode as ascii: ordinal not in range(128) (byte 0xc3)"),
    ),
    "unknown_coding.py": (
        b"# -*- coding: klingon -*-\nx = 1\n",
        (1, 1, "cannot determine encoding: unknown encoding: klingon"),
    ),
    "bom_and_latin1_cookie.py": (
        b"\xef\xbb\xbf# coding: latin-1\nx = 1\n",
        (1, 1, "cannot determine encoding: the UTF-8 BOM contradicts the coding declaration"),
    ),
    "nul_byte.py": (b"x = 1\ny = 2\x00\n", (2, 1, "source contains NUL bytes (binary file with a .py name?)")),
    "binary_elf.py": (
        b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4,
        (1, 1, "source contains NUL bytes (binary file with a .py name?)"),
    ),
    "tabs_inconsistent.py": (
        b"def on_fault(self, exc):\n    if exc:\n\treturn\n",
        (3, 1, "syntax error: tokenizer error: inconsistent mixing of tabs and spaces"),
    ),
    "too_many_brackets.py": (
        b"x = " + b"(" * (MAX_BRACKET_DEPTH + 1) + b"1" + b")" * (MAX_BRACKET_DEPTH + 1) + b"\n",
        (
            1,
            5 + MAX_BRACKET_DEPTH,
            f"too deeply nested: more than {MAX_BRACKET_DEPTH} nested brackets (Python's own limit is {MAX_BRACKET_DEPTH})",
        ),
    ),
}

# Inputs that are fine: linted as usual (the handler's FT005 is found at the right place).
GOOD_FILES = {
    "bom.py": b"\xef\xbb\xbf" + HANDLER.encode(),
    "crlf.py": HANDLER.replace("\n", "\r\n").encode(),
    "mixed_endings.py": b"class Sentinel:\r\n    def on_fault(self, exc):\n        self.scheduler.reset_prefix_cache()\r",
    "tabs.py": HANDLER.replace("    ", "\t").encode(),
    "form_feed.py": b"\x0c\n" + HANDLER.encode() + b"\n\x0c\ndef helper():\n\x0c    return 1\n",
    "latin1_declared.py": b"# -*- coding: latin-1 -*-\n# \xe9chec\n" + HANDLER.encode(),
}


def write(tmp_path: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)


def may_define_handler(data: bytes) -> bool:
    """The byte prefilter's answer: `def on_fault`, or a coding cookie naming another encoding
    (the bytes cannot be searched as UTF-8, so such a file is always parsed)."""
    return b"def on_fault" in data or other_encoding(data)


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_each_bad_file_gets_one_ft000_naming_the_cause(tmp_path, ftlint, name):
    data, (line, column, message) = BAD_FILES[name]
    write(tmp_path, {name: data})
    run = ftlint(tmp_path, "--exhaustive", name)
    assert run.findings == [(name, line, column, "FT000", message)]
    assert run.code == 1
    assert run.err == ""
    # passed explicitly without --exhaustive: parsed (so FT000) only if it may define a handler
    run = ftlint(tmp_path, name)
    if may_define_handler(data):
        assert (run.code, run.findings) == (1, [(name, line, column, "FT000", message)])
    else:
        assert (run.code, run.findings) == (0, [])
    assert run.err == ""


@pytest.mark.parametrize("name", sorted(GOOD_FILES))
def test_odd_but_valid_files_are_linted(tmp_path, ftlint, name):
    write(tmp_path, {name: GOOD_FILES[name]})
    run = ftlint(tmp_path, name)
    line = 3 + (name in ("form_feed.py", "latin1_declared.py")) + (name == "latin1_declared.py")
    column = 9 if name != "tabs.py" else 3
    assert run.findings == [(name, line, column, "FT005", FT005)]
    assert run.code == 1


def test_all_bad_files_at_once_and_the_good_ones_still_linted(tmp_path, ftlint):
    write(tmp_path, {name: data for name, (data, _) in BAD_FILES.items()})
    write(tmp_path, GOOD_FILES)
    (tmp_path / "empty.py").write_bytes(b"")
    every_file = (*sorted(BAD_FILES), *sorted(GOOD_FILES), "empty.py")
    bad_handlers = {n for n, (data, _) in BAD_FILES.items() if may_define_handler(data)}
    # passed explicitly and walked alike: bad files that cannot hold a handler are not parsed
    # (the prefilter), so only the bad files that may define one get FT000
    for args in (every_file, ()):
        run = ftlint(tmp_path, *args)
        assert sorted(f for f in run.findings if f[3] == "FT000") == sorted(
            (name, *expected[:2], "FT000", expected[2])
            for name, (_, expected) in BAD_FILES.items()
            if name in bad_handlers
        )
        assert sorted(f[0] for f in run.findings if f[3] == "FT005") == sorted(GOOD_FILES)
        assert run.code == 1
    # and --exhaustive parses everything: every bad file, explicit or walked
    for args in (every_file, ()):
        run = ftlint(tmp_path, "--exhaustive", *args)
        assert sorted(f for f in run.findings if f[3] == "FT000") == sorted(
            (name, *expected[:2], "FT000", expected[2]) for name, (_, expected) in BAD_FILES.items()
        )
        assert sorted(f[0] for f in run.findings if f[3] == "FT005") == sorted(GOOD_FILES)
        assert run.code == 1


def test_empty_file_is_clean(tmp_path, ftlint):
    (tmp_path / "empty.py").write_bytes(b"")
    (tmp_path / "only_bom.py").write_bytes(b"\xef\xbb\xbf")
    (tmp_path / "only_newlines.py").write_bytes(b"\n\r\n\n")
    run = ftlint(tmp_path, "empty.py", "only_bom.py", "only_newlines.py")
    assert (run.code, run.findings, run.err) == (0, [], "")
    assert run.out == "All checks passed!\n"


def test_ten_megabyte_files(tmp_path, ftlint):
    blob = b"x" * 99 + b"\n"
    big = HANDLER.encode() + b'DATA = """\n' + blob * 100_000 + b'"""\n'
    assert len(big) > 10_000_000
    (tmp_path / "big.py").write_bytes(big)
    (tmp_path / "big_broken.py").write_bytes(big + b"def on_fault(self, exc)\n")
    run = ftlint(tmp_path, "big.py", "big_broken.py")
    assert run.findings == [
        ("big.py", 3, 9, "FT005", FT005),
        ("big_broken.py", 100_006, 24, "FT000", "syntax error: unexpected end of file: expected one of ->, :"),
    ]
    assert run.code == 1


# -- nesting -------------------------------------------------------------------------------------

HEAD = "def on_fault(self, exc):\n    self.scheduler.reset_prefix_cache()\n"
DEEP = {
    # what, make(n), the deepest n that must still be linted, the message past the limit
    "brackets": (
        lambda n: "x = " + "(" * n + "1" + ")" * n,
        MAX_BRACKET_DEPTH,
        "more than 200 nested brackets (Python's own limit is 200)",
    ),
    "lists": (
        lambda n: "x = " + "[" * n + "1" + "]" * n,
        95,
        "more than 100 levels of nested expressions and statements (ftlint's limit)",
    ),
    "binary operators": (
        lambda n: "x = " + " + ".join(["1"] * n),
        95,
        "more than 100 levels of nested expressions and statements (ftlint's limit)",
    ),
    "boolean operators": (
        lambda n: "x = " + " and ".join(["a"] * n),
        95,
        "more than 100 levels of nested expressions and statements (ftlint's limit)",
    ),
    "attribute chain": (
        lambda n: "x = a" + ".b" * n,
        95,
        "more than 100 levels of nested expressions and statements (ftlint's limit)",
    ),
    "concatenated strings": (
        lambda n: "x = " + " ".join(['"a"'] * n),
        MAX_CONCATENATED_STRINGS,
        "more than 200 implicitly concatenated string literals (ftlint's limit)",
    ),
}


def deepest_accepted(make) -> int:
    lo, hi = 1, 1000
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if source_mod.nesting_failure(HEAD + make(mid) + "\n") is None:
            lo = mid
        else:
            hi = mid - 1
    return lo


@pytest.mark.parametrize("what", sorted(DEEP))
def test_nesting_at_the_limit_is_linted_and_past_it_is_ft000(tmp_path, ftlint, what):
    make, at_least, message = DEEP[what]
    limit = deepest_accepted(make)
    assert at_least <= limit <= MAX_BRACKET_DEPTH + 1
    (tmp_path / "ok.py").write_text(HEAD + make(limit) + "\n")
    (tmp_path / "deep.py").write_text(HEAD + make(limit + 1) + "\n")
    run = ftlint(tmp_path, "--exhaustive", "ok.py", "deep.py")
    assert [(f[0], f[3]) for f in run.findings] == [("deep.py", "FT000"), ("ok.py", "FT005")]
    assert run.findings[0][1] == 3 and run.findings[0][4] == "too deeply nested: " + message
    assert run.code == 1


@pytest.mark.parametrize(
    "text",
    [
        "x = " + "-" * 100_000 + "1",
        "x = " + "not " * 50_000 + "x",
        "x = " + "+".join(["1"] * 50_000),
        "x = a" + ".b" * 50_000,
        "x = f" + "()" * 50_000,
        "x = " + "a if b else " * 20_000 + "c",
        "x = " + "lambda: " * 20_000 + "1",
        "x = " + "(" * 100_000 + "1" + ")" * 100_000,
        "x = " + " ".join(['"a"'] * 50_000),
        "x = " + "[" * 100_000,
    ],
    ids=["unary", "not", "plus", "attr", "call", "ifexp", "lambda", "parens", "strings", "unclosed"],
)
def test_extreme_nesting_never_crashes_the_process(tmp_path, ftlint, text):
    """LibCST's native parser overflows the C stack (SIGSEGV) on these; ftlint must refuse them first."""
    (tmp_path / "deep.py").write_text("def on_fault(self, exc):\n    pass\n" + text + "\n")
    run = ftlint(tmp_path, "deep.py")
    assert len(run.findings) == 1
    path, _line, _, code, message = run.findings[0]
    assert (path, code) == ("deep.py", "FT000")
    assert message.startswith("too deeply nested: ")
    assert run.code == 1


# -- files that cannot be read -------------------------------------------------------------------


def test_unreadable_file(tmp_path, ftlint, monkeypatch):
    (tmp_path / "secret.py").write_text(HANDLER)
    (tmp_path / "ok.py").write_text(HANDLER)
    if is_root():  # root reads mode-000 files: make open() refuse as the kernel would
        real_open = open

        def refusing_open(path, *args, **kwargs):
            if os.fspath(path).endswith("secret.py"):
                raise PermissionError(13, "Permission denied", os.fspath(path))
            return real_open(path, *args, **kwargs)

        monkeypatch.setattr(source_mod, "open", refusing_open, raising=False)
    else:
        (tmp_path / "secret.py").chmod(0)
    try:
        run = ftlint(tmp_path, "secret.py", "ok.py")
    finally:
        (tmp_path / "secret.py").chmod(0o644)
    assert run.findings == [
        ("ok.py", 3, 9, "FT005", FT005),
        ("secret.py", 1, 1, "FT000", "cannot read file: permission denied"),
    ]
    assert run.code == 1


def test_broken_and_looping_symlinks_explicit_and_walked(tmp_path, ftlint):
    (tmp_path / "ok.py").write_text(HANDLER)
    (tmp_path / "broken.py").symlink_to(tmp_path / "nowhere.py")
    (tmp_path / "loop_a.py").symlink_to(tmp_path / "loop_b.py")
    (tmp_path / "loop_b.py").symlink_to(tmp_path / "loop_a.py")
    expected = [
        ("broken.py", 1, 1, "FT000", "cannot read: broken symbolic link"),
        ("loop_a.py", 1, 1, "FT000", "cannot read: symbolic link loop"),
        ("loop_b.py", 1, 1, "FT000", "cannot read: symbolic link loop"),
        ("ok.py", 3, 9, "FT005", FT005),
    ]
    run = ftlint(tmp_path, "broken.py", "loop_a.py", "loop_b.py", "ok.py")
    assert (run.code, run.findings) == (1, expected)
    run = ftlint(tmp_path)
    assert (run.code, run.findings) == (1, expected)


def test_missing_path(tmp_path, ftlint):
    (tmp_path / "ok.py").write_text("x = 1\n")
    run = ftlint(tmp_path, "gone.py", "ok.py")
    assert run.findings == [("gone.py", 1, 1, "FT000", "cannot read: No such file or directory")]
    assert run.code == 1


def test_file_deleted_while_being_linted(tmp_path, ftlint, monkeypatch):
    (tmp_path / "vanishing.py").write_text(HANDLER)
    (tmp_path / "ok.py").write_text(HANDLER)
    real_discover = discovery_mod.discover

    def discover_then_delete(*args, **kwargs):
        found = real_discover(*args, **kwargs)
        (tmp_path / "vanishing.py").unlink()  # after discovery, before it is read
        return found

    monkeypatch.setattr("ftlint.lint.engine.discover", discover_then_delete)
    run = ftlint(tmp_path, "vanishing.py", "ok.py")
    assert run.findings == [
        ("ok.py", 3, 9, "FT005", FT005),
        ("vanishing.py", 1, 1, "FT000", "cannot read file: it no longer exists (deleted while linting?)"),
    ]
    assert run.code == 1


def test_directory_with_a_py_name(tmp_path, ftlint):
    (tmp_path / "pkg.py").mkdir()
    (tmp_path / "pkg.py" / "inner.py").write_text(HANDLER)
    run = ftlint(tmp_path, "pkg.py")
    assert run.findings == [("pkg.py/inner.py", 3, 9, "FT005", FT005)]


def test_non_python_files_passed_explicitly_are_skipped_with_a_reason(tmp_path, ftlint):
    (tmp_path / "notes.txt").write_text("def on_fault(self, exc):\n")
    (tmp_path / "Makefile").write_text("all:\n\ttrue\n")
    (tmp_path / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (tmp_path / "ok.py").write_text("x = 1\n")
    run = ftlint(tmp_path, "notes.txt", "Makefile", "image.png", "ok.py")
    assert run.code == 0
    assert run.findings == []
    assert run.err.splitlines() == [
        "ftlint: skipped notes.txt: not a Python file (.txt); pass it with a .py/.pyi name to lint it",
        "ftlint: skipped Makefile: not a Python file (no extension); pass it with a .py/.pyi name to lint it",
        "ftlint: skipped image.png: not a Python file (.png); pass it with a .py/.pyi name to lint it",
    ]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_with_a_py_name_is_skipped_not_read(tmp_path, ftlint):
    os.mkfifo(tmp_path / "pipe.py")
    run = ftlint(tmp_path, "pipe.py")
    assert (run.code, run.findings) == (0, [])
    assert run.err == "ftlint: skipped pipe.py: not a regular file\n"


def _reference_depth_failure(text: str) -> tuple[int, int] | None:
    """The nesting walk as ast.iter_child_nodes gives it (the definition source.py's
    _ast_nesting_failure keeps, without the generators): where the first node past the
    limit is, in the walk's order."""
    import ast

    stack = [(ast.parse(text), 0, 1, 1)]
    while stack:
        node, depth, line, column = stack.pop()
        if hasattr(node, "lineno"):
            line, column = node.lineno, node.col_offset + 1
        if depth > source_mod.MAX_NESTING_DEPTH:
            return line, column
        step = len(node.values) if isinstance(node, ast.BoolOp) else 1
        stack.extend((child, depth + step, line, column) for child in ast.iter_child_nodes(node))
    return None


@pytest.mark.parametrize(
    "text",
    [
        "x = " + "-" * 150 + "1\n",
        "def f():\n    y = 1\n    return " + "not " * 130 + "x\n",
        "w = " + " and ".join(["(a if b else c)"] * 120) + "\n",
        "q = " + "f(" * 40 + "a and b" + ")" * 40 + "\nx = " + "-" * 150 + "1\n",
        "z = [" + ", ".join("a and b and c" for _ in range(300)) + "]\n",
        "class C:\n    def m(self, *a, k=1, **kw):\n        return {i: [j for j in i if j] for i in a}\n",
    ],
    ids=["unary", "not-in-def", "boolop-weights", "second-statement", "wide-not-deep", "shallow"],
)
def test_the_nesting_walk_finds_what_the_reference_walk_finds(text):
    found = source_mod._ast_nesting_failure(text, 0)
    expected = _reference_depth_failure(text)
    assert (None if found is None else (found.line, found.column)) == expected
