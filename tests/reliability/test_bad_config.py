"""Issue 6: bad `[tool.ftlint]` configuration exits 2 with one line naming the file and the key."""

from __future__ import annotations

import pytest

CASES = {
    "unknown key": ('selct = ["FT"]', "[tool.ftlint] unknown key 'selct' (did you mean 'select'?)"),
    "string instead of list": ('select = "FT001"', "[tool.ftlint] select: expected a list of strings, got str"),
    "wrong item type": ("select = [1]", "[tool.ftlint] select: expected a list of strings, got int at index 0"),
    "wrong bool type": ('respect-gitignore = "yes"', "[tool.ftlint] respect-gitignore: expected a boolean, got str"),
    "wrong table type": (
        'per-file-ignores = ["a"]',
        "[tool.ftlint] per-file-ignores: expected a table of glob = [codes], got list",
    ),
    "invalid exclude glob": ('exclude = ["a[b"]', "[tool.ftlint] exclude: invalid glob 'a[b': unclosed '['"),
    "invalid extend-exclude glob": (
        'extend-exclude = ["**/[!"]',
        "[tool.ftlint] extend-exclude: invalid glob '**/[!': unclosed '['",
    ),
    "invalid handler glob": (
        'fault-handlers = ["on_[fault"]',
        "[tool.ftlint] fault-handlers: invalid glob 'on_[fault': unclosed '['",
    ),
    "unknown code in select": ('select = ["FT9"]', "[tool.ftlint] select: unknown rule code or prefix 'FT9'"),
    "unknown code in ignore": ('ignore = ["XYZ"]', "[tool.ftlint] ignore: unknown rule code or prefix 'XYZ'"),
    "unparsable TOML": ("[[[", "invalid TOML: Invalid initial character for a key part (at line 2, column 3)"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_config_exits_2_naming_file_and_key(tmp_path, ftlint, case):
    body, message = CASES[case]
    (tmp_path / "pyproject.toml").write_text(f"[tool.ftlint]\n{body}\n")
    (tmp_path / "a.py").write_text("def on_fault(self, exc):\n    pass\n")
    run = ftlint(tmp_path, "a.py")
    assert run.code == 2
    assert run.out == ""
    assert run.err == f"ftlint: error: {tmp_path / 'pyproject.toml'}: {message}\n"


def test_non_utf8_pyproject(tmp_path, ftlint):
    (tmp_path / "pyproject.toml").write_bytes(b"[tool.ftlint]\n# \xff\n")
    run = ftlint(tmp_path)
    assert run.code == 2
    assert run.err == (
        f"ftlint: error: {tmp_path / 'pyproject.toml'}: invalid TOML: not UTF-8 (invalid start byte at byte 16)\n"
    )


def test_explicit_config_missing_and_bad(tmp_path, ftlint):
    run = ftlint(tmp_path, "--config", "nope.toml")
    assert (run.code, run.err) == (2, "ftlint: error: --config nope.toml: no such file\n")
    (tmp_path / "ftlint.toml").write_text('select = ["FT"]\nbogus = 1\n')
    run = ftlint(tmp_path, "--config", "ftlint.toml")
    assert run.code == 2
    assert run.err == f"ftlint: error: {tmp_path / 'ftlint.toml'}: unknown key 'bogus'\n"


def test_unknown_code_on_the_command_line(tmp_path, ftlint):
    (tmp_path / "a.py").write_text("x = 1\n")
    run = ftlint(tmp_path, "--select", "FT999", "a.py")
    assert run.code == 2
    assert run.err.endswith("--select: unknown rule code or prefix 'FT999'\n")
