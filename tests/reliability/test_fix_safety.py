"""Issue 16, items 1-7: `--fix` never damages a file.

Every test runs the real CLI (in this process, through the `ftlint` fixture) on files it
writes itself, and checks the bytes on disk afterwards: the fixed file parses and re-lints
clean, untouched lines keep their bytes (codec, BOM, newlines), the file keeps its mode and
links, and a file that cannot or must not be written is left exactly as it was, with a
message naming it and no temporary file behind.
"""

from __future__ import annotations

import ast
import errno
import os
import stat
from pathlib import Path

import pytest

from ftlint.core import writeback
from tests.helpers import NEIGHBOURS, NEIGHBOURS_FIXED


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


# The samples mix the two stale-output generations (as the did): pin the newer one, whose
# counters the expected fixes reset.
CONFIG = '[tool.ftlint]\nvllm-api = "0.27"\n'

# One discard line in a loop: the fix turns it into `pass`.
SIMPLE = (
    "class Sentinel:\n"
    "    def on_fault(self, exc):\n"
    "        # keep: a user comment\n"
    "        for r in self.scheduler.running:\n"
    "            r.async_tokens_to_discard = 1\n"
)
SIMPLE_FIXED = SIMPLE.replace("r.async_tokens_to_discard = 1", "pass")


def project(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    (tmp_path / "pyproject.toml").write_text(CONFIG)
    for name, content in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")
    return tmp_path


def temp_files(directory: Path) -> list[str]:
    return sorted(
        p.name for p in directory.iterdir() if p.name.endswith(writeback.TEMP_SUFFIX) or ".ftlint-fix." in p.name
    )


def assert_relints_clean(ftlint, tmp_path: Path, *names: str) -> None:
    again = ftlint(tmp_path, *names)
    assert again.code == 0, again.out + again.err


# -- item 1: neighbouring fixes ------------------------------------------------------------
# FT008's resets are an insertion at the start of the next line, FT001's removal of the discard
# starts there too: the old fixer applied both and cut the inserted text (`put_tokens = 0`).
PREEMPT_THEN_DISCARD = NEIGHBOURS.replace(", drop_stale_output=True)", ")")


@pytest.mark.parametrize("source", [NEIGHBOURS, PREEMPT_THEN_DISCARD], ids=["ft001-ft001", "ft008-ft001"])
def test_neighbouring_fixes_combine_into_code_that_parses(ftlint, tmp_path, source):
    project(tmp_path, {"s.py": source})
    run = ftlint(tmp_path, "--fix", "s.py")
    assert run.code == 0, run.out + run.err
    text = (tmp_path / "s.py").read_text()
    ast.parse(text)
    assert text == NEIGHBOURS_FIXED
    assert_relints_clean(ftlint, tmp_path, "s.py")


def post_image(original: str, diff: str) -> str:
    """The file a unified diff (of one file) turns `original` into."""
    import re

    lines = original.splitlines(keepends=True)
    out: list[str] = []
    at = 0
    for line in diff.splitlines(keepends=True)[2:]:
        hunk = re.match(r"@@ -(\d+)(?:,(\d+))? \+", line)
        if hunk:
            start = int(hunk[1]) - (1 if hunk[2] != "0" else 0)
            out.extend(lines[at:start])
            at = start
        elif line.startswith((" ", "-")):
            at += 1
            if line.startswith(" "):
                out.append(line[1:])
        elif line.startswith("+"):
            out.append(line[1:])
    return "".join(out + lines[at:])


@pytest.mark.parametrize("source", [NEIGHBOURS, PREEMPT_THEN_DISCARD], ids=["ft001-ft001", "ft008-ft001"])
def test_diff_of_neighbouring_fixes_parses(ftlint, tmp_path, source):
    project(tmp_path, {"s.py": source})
    run = ftlint(tmp_path, "--diff", "s.py")
    assert run.code == 1
    after = post_image(source, run.out)
    ast.parse(after)  # the first round of fixes (of two touching fixes, one waits for the next)
    if source is NEIGHBOURS:
        assert after == NEIGHBOURS_FIXED
    else:  # the resets went in; the discard waits for `--fix`'s next round
        assert after == NEIGHBOURS_FIXED.replace(
            "            req.num_stale_output_tokens = 0\n",
            "            req.num_stale_output_tokens = 0\n            req.async_tokens_to_discard = req.num_output_placeholders\n",
        )
    assert (tmp_path / "s.py").read_text() == source  # --diff writes nothing


# -- item 2: a block every fix empties gets one `pass` --------------------------------------
def test_fixes_that_empty_a_block_leave_one_pass(ftlint, tmp_path):
    source = (
        "class Sentinel:\n"
        "    def on_fault(self, exc):\n"
        "        for r in self.scheduler.running:\n"
        "            r.async_tokens_to_discard = 1\n"
        "            r.drop_stale_output = True\n"
        "        if self.resume:\n"
        "            for q in self.scheduler.waiting:\n"
        "                q.drop_stale_output = True\n"
        "                q.async_tokens_to_discard = 2\n"
        "                q.async_tokens_to_discard += 3\n"
        "        return None\n"
    )
    project(tmp_path, {"s.py": source})
    run = ftlint(tmp_path, "--fix", "s.py")
    assert run.code == 0, run.out + run.err
    assert (tmp_path / "s.py").read_text() == (
        "class Sentinel:\n"
        "    def on_fault(self, exc):\n"
        "        for r in self.scheduler.running:\n"
        "            pass\n"
        "        if self.resume:\n"
        "            for q in self.scheduler.waiting:\n"
        "                pass\n"
        "        return None\n"
    )


# -- item 3: only \r\n, \r and \n end a line ---------------------------------------------------
@pytest.mark.parametrize(
    "char",
    ["\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"],
    ids=["ff", "vt", "fs", "gs", "rs", "nel", "ls", "ps"],
)
def test_line_breaks_python_does_not_count_do_not_shift_the_fix(ftlint, tmp_path, char):
    source = (
        f'"""Recovery {char} helpers."""\n'
        "class Sentinel:\n"
        "    def on_fault(self, exc):\n"
        f"        # a comment {char} too\n"
        "        for r in self.scheduler.running:\n"
        "            self.kv.evict_blocks(set())\n"
        "            r.async_tokens_to_discard = 1\n"
    )
    project(tmp_path, {"s.py": source})
    import json

    listed = ftlint(tmp_path, "--format", "json", "--select", "FT001", "s.py")
    (finding,) = json.loads(listed.out)
    assert finding["line"] == 7 and finding["line_text"] == "            r.async_tokens_to_discard = 1"
    run = ftlint(tmp_path, "--fix", "--select", "FT001", "s.py")
    assert run.code == 0, run.out + run.err
    assert (tmp_path / "s.py").read_text(encoding="utf-8") == source.replace(
        "            r.async_tokens_to_discard = 1\n", ""
    )


# -- item 4: newlines, codecs and BOM come back as they were ----------------------------------------
@pytest.mark.parametrize("newline", ["\r\n", "\r"], ids=["crlf", "cr"])
def test_crlf_and_cr_files_keep_their_newlines(ftlint, tmp_path, newline):
    project(tmp_path, {"s.py": NEIGHBOURS.replace("\n", newline)})
    run = ftlint(tmp_path, "--fix", "s.py")
    assert run.code == 0, run.out + run.err
    assert (tmp_path / "s.py").read_bytes() == NEIGHBOURS_FIXED.replace("\n", newline).encode()


def test_mixed_newlines_stay_on_untouched_lines(ftlint, tmp_path):
    lines = SIMPLE.splitlines(keepends=True)
    mixed = lines[0] + lines[1].replace("\n", "\r\n") + lines[2].replace("\n", "\r") + "".join(lines[3:])
    project(tmp_path, {"s.py": mixed})
    assert ftlint(tmp_path, "--fix", "s.py").code == 0
    assert (tmp_path / "s.py").read_bytes() == mixed.replace("r.async_tokens_to_discard = 1", "pass").encode()


@pytest.mark.parametrize(
    "codec, sample",
    [("latin-1", "café ± ß"), ("cp1252", "price: 5 € – “quoted”")],
)
def test_coding_cookie_files_are_fixed_and_diffed_in_their_codec(ftlint, tmp_path, codec, sample):
    source = f"# -*- coding: {codec} -*-\n# {sample}\n" + SIMPLE
    data = source.encode(codec)
    assert data != source.encode("utf-8")
    # a UTF-8 file next to it, fixed first (the old code wrote it, then crashed on this one)
    project(tmp_path, {"a.py": SIMPLE, "b.py": data})
    diff = ftlint(tmp_path, "--diff", "a.py", "b.py")
    assert diff.code == 1, diff.err
    assert "+++ b/b.py" in diff.out and "-            r.async_tokens_to_discard = 1" in diff.out
    assert (tmp_path / "b.py").read_bytes() == data
    run = ftlint(tmp_path, "--fix", "a.py", "b.py")
    assert run.code == 0, run.out + run.err
    assert (tmp_path / "a.py").read_text() == SIMPLE_FIXED
    assert (tmp_path / "b.py").read_bytes() == (f"# -*- coding: {codec} -*-\n# {sample}\n" + SIMPLE_FIXED).encode(codec)


def test_utf8_bom_is_kept(ftlint, tmp_path):
    project(tmp_path, {"s.py": b"\xef\xbb\xbf" + SIMPLE.encode()})
    assert ftlint(tmp_path, "--fix", "s.py").code == 0
    assert (tmp_path / "s.py").read_bytes() == b"\xef\xbb\xbf" + SIMPLE_FIXED.encode()


# -- item 5: modes, links, read-only files and write errors ---------------------------------------
@pytest.mark.parametrize("mode", [0o600, 0o755, 0o640])
def test_mode_is_kept(ftlint, tmp_path, mode):
    project(tmp_path, {"s.py": SIMPLE})
    os.chmod(tmp_path / "s.py", mode)
    assert ftlint(tmp_path, "--fix", "s.py").code == 0
    assert stat.S_IMODE(os.stat(tmp_path / "s.py").st_mode) == mode
    assert (tmp_path / "s.py").read_text() == SIMPLE_FIXED


def test_symlink_is_fixed_at_its_target(ftlint, tmp_path):
    project(tmp_path, {"real/target.py": SIMPLE})
    (tmp_path / "link.py").symlink_to(tmp_path / "real" / "target.py")
    run = ftlint(tmp_path, "--fix", "link.py")
    assert run.code == 0, run.out + run.err
    assert (tmp_path / "link.py").is_symlink()
    assert os.readlink(tmp_path / "link.py") == str(tmp_path / "real" / "target.py")
    assert (tmp_path / "real" / "target.py").read_text() == SIMPLE_FIXED
    assert temp_files(tmp_path) == [] and temp_files(tmp_path / "real") == []


def test_hard_link_is_refused_with_a_message(ftlint, tmp_path):
    project(tmp_path, {"s.py": SIMPLE})
    os.link(tmp_path / "s.py", tmp_path / "other.py.bak")
    run = ftlint(tmp_path, "--fix", "s.py")
    assert run.code == 1  # the finding is still there
    assert "s.py: not written: it has 2 hard links" in run.err
    assert (tmp_path / "s.py").read_text() == SIMPLE
    assert os.stat(tmp_path / "s.py").st_ino == os.stat(tmp_path / "other.py.bak").st_ino
    assert temp_files(tmp_path) == []


def test_read_only_file_is_not_rewritten(ftlint, tmp_path):
    project(tmp_path, {"s.py": SIMPLE, "ok.py": SIMPLE})
    os.chmod(tmp_path / "s.py", 0o444)
    run = ftlint(tmp_path, "--fix", "s.py", "ok.py")
    assert run.code == 2
    assert "ftlint: s.py: not written: the file is read-only" in run.err
    assert (tmp_path / "s.py").read_text() == SIMPLE
    assert stat.S_IMODE(os.stat(tmp_path / "s.py").st_mode) == 0o444
    assert (tmp_path / "ok.py").read_text() == SIMPLE_FIXED  # the other file is still fixed
    assert temp_files(tmp_path) == []


def test_read_only_directory_is_a_message_and_exit_2(ftlint, tmp_path, monkeypatch):
    project(tmp_path, {"pkg/s.py": SIMPLE})
    directory = tmp_path / "pkg"
    os.chmod(directory, 0o555)
    if is_root():  # root may write there anyway: refuse as the kernel does for others
        real = writeback.tempfile.mkstemp

        def refusing_mkstemp(*args, dir=None, **kwargs):
            if Path(dir) == directory:
                raise PermissionError(errno.EACCES, "Permission denied", os.path.join(dir, ".s.py.XXXX"))
            return real(*args, dir=dir, **kwargs)

        monkeypatch.setattr(writeback.tempfile, "mkstemp", refusing_mkstemp)
    try:
        run = ftlint(tmp_path, "--fix", "pkg/s.py")
    finally:
        os.chmod(directory, 0o755)
    assert run.code == 2
    assert "ftlint: pkg/s.py: not written: Permission denied" in run.err
    assert (directory / "s.py").read_text() == SIMPLE
    assert temp_files(directory) == []


def test_write_error_is_a_message_and_leaves_no_temp_file(ftlint, tmp_path, monkeypatch):
    project(tmp_path, {"s.py": SIMPLE})

    def full_disk(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writeback.os, "write", full_disk)
    run = ftlint(tmp_path, "--fix", "s.py")
    assert run.code == 2
    assert "ftlint: s.py: not written: No space left on device" in run.err
    assert (tmp_path / "s.py").read_text() == SIMPLE
    assert temp_files(tmp_path) == []


# -- item 6: the file changed between the lint and the write --------------------------------------
def test_file_changed_after_lint_is_skipped_and_keeps_the_users_lines(ftlint, tmp_path, monkeypatch):
    import ftlint.lint.fix_runner as fix_runner

    project(tmp_path, {"s.py": SIMPLE, "ok.py": SIMPLE})
    real = fix_runner.lint_paths
    edited = "# the user's new line\n" + SIMPLE

    def lint_then_edit(*args, **kwargs):
        result = real(*args, **kwargs)
        if (tmp_path / "s.py").read_text() == SIMPLE:
            (tmp_path / "s.py").write_text(edited)  # an editor saves right after the lint
        return result

    monkeypatch.setattr(fix_runner, "lint_paths", lint_then_edit)
    run = ftlint(tmp_path, "--fix", "s.py", "ok.py")
    assert "ftlint: s.py: skipped: the file changed since it was linted" in run.err
    assert (tmp_path / "s.py").read_text() == edited
    assert (tmp_path / "ok.py").read_text() == SIMPLE_FIXED


def test_file_changed_while_the_fix_is_written_is_skipped(ftlint, tmp_path, monkeypatch):
    project(tmp_path, {"s.py": SIMPLE})
    real = writeback.tempfile.mkstemp
    edited = SIMPLE + "# saved by an editor meanwhile\n"

    def mkstemp_then_edit(*args, **kwargs):
        made = real(*args, **kwargs)
        (tmp_path / "s.py").write_text(edited)
        return made

    monkeypatch.setattr(writeback.tempfile, "mkstemp", mkstemp_then_edit)
    run = ftlint(tmp_path, "--fix", "s.py")
    assert "ftlint: s.py: skipped: the file changed since it was linted" in run.err
    assert (tmp_path / "s.py").read_text() == edited
    assert temp_files(tmp_path) == []


# -- item 7: the temporary file cannot be planted ------------------------------------------------
def test_planted_symlink_at_a_predictable_temp_name_cannot_redirect_the_write(ftlint, tmp_path):
    project(tmp_path, {"s.py": SIMPLE})
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    # the names the old code wrote to (pid-based) and a few near ones
    for name in [f".s.py.ftlint-fix.{os.getpid()}", ".s.py.ftlint-fix", ".s.py" + writeback.TEMP_SUFFIX]:
        (tmp_path / name).symlink_to(victim)
    run = ftlint(tmp_path, "--fix", "s.py")
    assert run.code == 0, run.out + run.err
    assert victim.read_text() == "precious\n"
    assert not (tmp_path / "s.py").is_symlink()
    assert (tmp_path / "s.py").read_text() == SIMPLE_FIXED


def test_unencodable_fix_is_a_message_not_a_traceback(tmp_path):
    source = writeback.read_source(project(tmp_path, {"s.py": "# -*- coding: latin-1 -*-\nx = 1\n"}) / "s.py")
    problem = writeback.write_back(source, "# -*- coding: latin-1 -*-\nx = '€'\n")
    assert problem is not None and problem.error
    assert "not written: the fixed text cannot be encoded as iso-8859-1" in problem.message
    assert (tmp_path / "s.py").read_text() == "# -*- coding: latin-1 -*-\nx = 1\n"


# -- the bad-input matrix through --fix, --diff and --add-noqa ---------------------------------------
@pytest.mark.parametrize("mode", ["--fix", "--diff", "--add-noqa"])
def test_bad_and_odd_inputs_through_the_writing_modes(ftlint, tmp_path, mode):
    from tests.reliability.test_bad_input import BAD_FILES, GOOD_FILES

    files = {name: data for name, (data, _) in BAD_FILES.items()} | dict(GOOD_FILES)
    files["fixable.py"] = SIMPLE.encode()
    project(tmp_path, files)
    run = ftlint(tmp_path, mode, *sorted(files))  # the fixture fails on any traceback
    assert "internal error" not in run.err
    for name, (data, _) in BAD_FILES.items():
        assert (tmp_path / name).read_bytes() == data, name  # never touched
    if mode == "--add-noqa":
        assert run.code == 0, run.err
        for name, data in GOOD_FILES.items():
            expected = data.replace(b"reset_prefix_cache()", b"reset_prefix_cache()  # noqa: FT005", 1)
            assert (tmp_path / name).read_bytes() == expected, name
        assert (tmp_path / "fixable.py").read_text() == SIMPLE.replace(
            "r.async_tokens_to_discard = 1", "r.async_tokens_to_discard = 1  # noqa: FT001"
        )
        again = ftlint(tmp_path, *sorted(files))
        assert {f[3] for f in again.findings} == {"FT000"}
    else:
        assert run.code == 1  # the FT000s remain
        for name, data in GOOD_FILES.items():
            assert (tmp_path / name).read_bytes() == data, name  # FT005 has no fix
        fixed = (tmp_path / "fixable.py").read_text()
        assert fixed == (SIMPLE_FIXED if mode == "--fix" else SIMPLE)
        if mode == "--diff":
            assert "+++ b/fixable.py" in run.out
