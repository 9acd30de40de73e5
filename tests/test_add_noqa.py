"""Issue 14 item 3: `ftlint check --add-noqa` records a baseline (ruff's convention).

After it, `ftlint check` passes, the only change is the added comments (existing comments and
codes kept, codes sorted), the file keeps its codec and newlines, and a second run adds
nothing. Findings whose line ends inside a string or with a backslash get the comment on the
statement's last line, which suppresses the statement.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from tests.helpers import findings_json, run_ftlint

HEADER = "class Sentinel:\n    def on_fault(self, exc):\n"


def write(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    for name, content in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, newline="")
    return tmp_path


def add_noqa(tmp_path: Path, *paths: str):
    proc = run_ftlint("check", "--add-noqa", *(paths or (".",)), cwd=tmp_path)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def test_add_noqa_merges_keeps_comments_and_is_idempotent(tmp_path):
    source = HEADER + (
        "        self.scheduler.reset_prefix_cache()\n"
        "        self.scheduler.reset_prefix_cache()  # noqa: E501,B950 long line\n"
        "        self.scheduler.reset_prefix_cache()  # keep: tail only\n"
        "        self.scheduler.reset_prefix_cache()  # noqa: FT001\n"
        "        for r in self.scheduler.running:\n"
        "            r.async_tokens_to_discard = 1   \n"
    )
    write(tmp_path, {"s.py": source})
    code, before = findings_json("s.py", cwd=tmp_path)
    assert code == 1 and len(before) == 5
    first = add_noqa(tmp_path)
    assert first.returncode == 0, first.stderr
    assert "Added 5 noqa directives in 1 file." in first.stderr
    assert (tmp_path / "s.py").read_text() == HEADER + (
        "        self.scheduler.reset_prefix_cache()  # noqa: FT005\n"
        "        self.scheduler.reset_prefix_cache()  # noqa: B950, E501, FT005 long line\n"
        "        self.scheduler.reset_prefix_cache()  # keep: tail only  # noqa: FT005\n"
        "        self.scheduler.reset_prefix_cache()  # noqa: FT001, FT005\n"
        "        for r in self.scheduler.running:\n"
        "            r.async_tokens_to_discard = 1  # noqa: FT001\n"
    )
    assert findings_json("s.py", cwd=tmp_path) == (0, [])
    text = (tmp_path / "s.py").read_text()
    second = add_noqa(tmp_path)
    assert second.returncode == 0 and "Added 0 noqa directives." in second.stderr
    assert (tmp_path / "s.py").read_text() == text


def test_comment_goes_where_a_comment_is_legal(tmp_path):
    source = HEADER + (
        '        self.scheduler.reset_prefix_cache(reason="""\n'
        "            # not a comment: inside the string\n"
        '        """)\n'
        "        ok = self.scheduler.reset_prefix_cache() or \\\n"
        "            False\n"
    )
    write(tmp_path, {"s.py": source})
    assert add_noqa(tmp_path).returncode == 0
    assert (tmp_path / "s.py").read_text() == HEADER + (
        '        self.scheduler.reset_prefix_cache(reason="""\n'
        "            # not a comment: inside the string\n"
        '        """)  # noqa: FT005\n'
        "        ok = self.scheduler.reset_prefix_cache() or \\\n"
        "            False  # noqa: FT005\n"
    )
    assert findings_json("s.py", cwd=tmp_path) == (0, [])


def test_add_noqa_keeps_codec_bom_and_newlines(tmp_path):
    latin = ("# -*- coding: latin-1 -*-\n# café\n" + HEADER + "        self.scheduler.reset_prefix_cache()\n").replace(
        "\n", "\r\n"
    )
    write(
        tmp_path,
        {
            "a.py": latin.encode("latin-1"),
            "b.py": b"\xef\xbb\xbf"
            + (HEADER + "        self.scheduler.reset_prefix_cache()\n").replace("\n", "\r").encode(),
        },
    )
    assert add_noqa(tmp_path).returncode == 0
    assert (tmp_path / "a.py").read_bytes() == latin.replace(
        "reset_prefix_cache()\r\n", "reset_prefix_cache()  # noqa: FT005\r\n"
    ).encode("latin-1")
    assert (tmp_path / "b.py").read_bytes() == b"\xef\xbb\xbf" + (
        HEADER + "        self.scheduler.reset_prefix_cache()  # noqa: FT005\n"
    ).replace("\n", "\r").encode()
    assert findings_json(".", cwd=tmp_path) == (0, [])


def test_add_noqa_cannot_combine_with_fix(tmp_path):
    write(tmp_path, {"s.py": HEADER + "        pass\n"})
    proc = run_ftlint("check", "--add-noqa", "--fix", ".", cwd=tmp_path)
    assert proc.returncode == 2 and "--add-noqa cannot be combined with --fix" in proc.stderr


@pytest.mark.vllm  # copies the installed vLLM package: not in the static venv
def test_add_noqa_on_a_copy_of_vllm_fault_tolerance(tmp_path):
    """Issue 14's done-when, on the installed vLLM's fault-tolerance package: afterwards
    `ftlint check` exits 0, only comments were added, and a second run changes nothing."""
    spec = importlib.util.find_spec("vllm")
    assert spec is not None and spec.origin, "vLLM must be installed in the test environment"
    tree = tmp_path / "vllm" / "v1" / "fault_tolerance"
    shutil.copytree(
        Path(spec.origin).parent / "v1" / "fault_tolerance", tree, ignore=shutil.ignore_patterns("__pycache__")
    )
    before = {p: p.read_text() for p in tree.rglob("*.py")}
    code, findings = findings_json(str(tree), cwd=tmp_path)
    assert code == 1 and findings, "the upstream sentinel has a real finding (FT007)"
    assert add_noqa(tmp_path, str(tree)).returncode == 0
    assert findings_json(str(tree), cwd=tmp_path) == (0, [])
    added = 0
    for path, old in before.items():
        new = path.read_text()
        old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
        assert len(old_lines) == len(new_lines)
        for a, b in zip(old_lines, new_lines, strict=True):  # lengths asserted equal above
            if a != b:
                assert b.startswith(a.rstrip("\n").rstrip()) and b[len(a.rstrip("\n").rstrip()) :].startswith(
                    "  # noqa: FT"
                )
                added += 1
    assert added == len({(f["path"], f["line"]) for f in findings})
    after = {p: p.read_bytes() for p in tree.rglob("*.py")}
    again = add_noqa(tmp_path, str(tree))
    assert again.returncode == 0 and "Added 0 noqa directives." in again.stderr
    assert {p: p.read_bytes() for p in tree.rglob("*.py")} == after
