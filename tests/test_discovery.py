"""ftlint.index.discovery and ftlint.core.gitignore: walking, excludes, .gitignore semantics, errors."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from ftlint.core.config import Config
from ftlint.core.gitignore import GitIgnore
from ftlint.index import discovery as discovery_mod
from ftlint.index.discovery import (
    Discovered,
    DiscoveryError,
    Skipped,
    describe_os_error,
    discover,
    is_python_path,
    iter_python_files,
)
from tests.helpers import git


def touch(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git" / "info").mkdir(parents=True)
    return tmp_path


def files(result: Discovered) -> list[str]:
    return [p.as_posix() for p in result.files]


def run(root: Path, *paths, **config) -> Discovered:
    return discover([Path(p) for p in paths], Config(root=root, **config), cwd=root)


# --------------------------------------------------------------------------------------------
# gitignore semantics, line by line


@pytest.mark.parametrize(
    ("lines", "path", "is_dir", "expected"),
    [
        (["*.log"], "a.log", False, True),
        (["*.log"], "x/y/a.log", False, True),  # no slash: any level
        (["# *.py", "", "   "], "a.py", False, None),  # comment and blanks
        (["\\#x.py"], "#x.py", False, True),  # escaped hash
        (["*.py", "!keep.py"], "keep.py", False, False),  # negation
        (["*.py", "!keep.py"], "drop.py", False, True),
        (["!keep.py", "*.py"], "keep.py", False, True),  # last match wins
        (["\\!bang.py"], "!bang.py", False, True),
        (["out/"], "out", True, True),  # trailing slash: directories only
        (["out/"], "out", False, None),
        (["out/"], "x/out", True, True),
        (["/top.py"], "top.py", False, True),  # leading slash: anchored
        (["/top.py"], "x/top.py", False, None),
        (["doc/frotz"], "doc/frotz", True, True),  # middle slash: anchored
        (["doc/frotz"], "a/doc/frotz", True, None),
        (["**/foo"], "foo", True, True),
        (["**/foo"], "a/b/foo", True, True),
        (["**/foo/bar"], "x/foo/bar", False, True),
        (["abc/**"], "abc/x/y.py", False, True),
        (["abc/**"], "abc", True, None),  # not the directory itself: a later "!abc/keep" must still work
        (["a/**/b"], "a/b", True, True),
        (["a/**/b"], "a/x/y/b", True, True),
        (["a/*.py"], "a/b/c.py", False, None),  # '*' does not cross '/'
        (["?.py"], "a.py", False, True),
        (["[abc].py"], "b.py", False, True),
        (["[!abc].py"], "b.py", False, None),
        (["[abc"], "[abc", False, True),  # malformed: literal, never an error
        (["trail.py   "], "trail.py", False, True),  # trailing spaces trimmed
        (["sp\\ "], "sp ", False, True),  # escaped trailing space kept
        (["/"], "a", False, None),
    ],
)
def test_gitignore_rules(lines, path, is_dir, expected):
    assert GitIgnore.from_lines(lines).match(path, is_dir) is expected


def test_gitignore_crlf_and_empty():
    gi = GitIgnore.from_text("*.tmp\r\n!keep.tmp\r\n")
    assert gi.match("a.tmp", False) is True
    assert gi.match("keep.tmp", False) is False
    assert not GitIgnore.from_text("# only comments\n\n")


# --------------------------------------------------------------------------------------------
# gitignore in the walker


def test_nested_gitignore_negation_and_anchoring(tmp_path):
    root = repo(tmp_path)
    write(root / ".gitignore", "*_gen.py\n/top_only.py\nlogs/\n")
    write(root / "pkg" / ".gitignore", "!keep_gen.py\n/local.py\nsub/deep.py\n")
    touch(
        root,
        "a.py",
        "x_gen.py",
        "top_only.py",
        "pkg/top_only.py",  # '/top_only.py' is anchored to the root: kept here
        "pkg/x_gen.py",
        "pkg/keep_gen.py",  # re-included by the nested file
        "pkg/local.py",  # anchored to pkg/
        "pkg/inner/local.py",  # ...so this one stays
        "pkg/sub/deep.py",  # middle slash: anchored to pkg/
        "pkg/other/sub/deep.py",
        "logs/l.py",
        "pkg/logs/l.py",
    )
    assert files(run(root)) == [
        "a.py",
        "pkg/inner/local.py",
        "pkg/keep_gen.py",
        "pkg/other/sub/deep.py",
        "pkg/top_only.py",
    ]


def test_cannot_reinclude_below_an_ignored_directory(tmp_path):
    root = repo(tmp_path)
    write(root / ".gitignore", "build2/\n!build2/keep.py\n")
    touch(root, "build2/keep.py", "ok.py")
    assert files(run(root)) == ["ok.py"]


def test_reinclude_inside_dir_star_star(tmp_path):
    root = repo(tmp_path)
    write(root / ".gitignore", "gen/**\n!gen/keep.py\n")
    touch(root, "gen/keep.py", "gen/drop.py", "gen/sub/x.py")
    assert files(run(root)) == ["gen/keep.py"]


def test_ignore_everything_but(tmp_path):
    root = repo(tmp_path)
    write(root / ".gitignore", "/*\n!/src\n!.gitignore\n")
    touch(root, "top.py", "other/x.py", "src/a.py")
    assert files(run(root)) == ["src/a.py"]


def test_info_exclude(tmp_path):
    root = repo(tmp_path)
    write(root / ".git" / "info" / "exclude", "scratch*.py\n")
    write(root / ".gitignore", "!scratch_keep.py\n")  # .gitignore outranks info/exclude
    touch(root, "scratch1.py", "scratch_keep.py", "main.py")
    assert files(run(root)) == ["main.py", "scratch_keep.py"]


def test_respect_gitignore_false(tmp_path):
    root = repo(tmp_path)
    write(root / ".gitignore", "*.py\n")
    touch(root, "a.py")
    assert files(run(root)) == []
    assert files(run(root, respect_gitignore=False)) == ["a.py"]


def test_walk_from_subdirectory_uses_parent_gitignore(tmp_path):
    root = repo(tmp_path)
    write(root / ".gitignore", "pkg/skip.py\n*_tmp.py\n")
    touch(root, "pkg/skip.py", "pkg/a.py", "pkg/b_tmp.py")
    result = discover([Path("pkg")], Config(root=root), cwd=root)
    assert files(result) == ["pkg/a.py"]
    # started from inside the package, with paths shown relative to it
    result = discover([], Config(root=root), cwd=root / "pkg")
    assert files(result) == ["a.py"]


def test_gitignore_without_git_repository_applies_below_root(tmp_path):
    write(tmp_path / ".gitignore", "skip.py\n")
    touch(tmp_path, "skip.py", "a/skip.py", "a/ok.py")
    assert files(run(tmp_path)) == ["a/ok.py"]


def test_git_dir_never_entered(tmp_path):
    root = repo(tmp_path)
    touch(root, ".git/hooks/h.py", "a.py")
    assert files(run(root, exclude=())) == ["a.py"]


# --------------------------------------------------------------------------------------------
# excludes


def test_default_excludes(tmp_path):
    touch(
        tmp_path,
        "a.py",
        ".venv/lib/x.py",
        "venv/x.py",
        "build/x.py",
        "pkg/__pycache__/x.py",
        ".tox/x.py",
        "node_modules/x.py",
        ".ftlint_cache/x.py",
        "lib/python3.11/site-packages/vllm/core.py",  # users lint an installed vLLM
        ".hidden_pkg/y.py",
    )
    assert files(run(tmp_path)) == [".hidden_pkg/y.py", "a.py", "lib/python3.11/site-packages/vllm/core.py"]


def test_exclude_and_extend_exclude(tmp_path):
    touch(
        tmp_path,
        "a.py",
        "gen/x.py",
        "pkg/gen/y.py",
        "pkg/msg_pb2.py",
        "third_party/t.py",
        "pkg/third_party/t.py",
        "docs/conf.py",
        "docs/api/conf.py",
        "build/b.py",
    )
    result = run(tmp_path, exclude=("gen", "*_pb2.py"), extend_exclude=("third_party/**", "docs/*.py"))
    assert files(result) == ["a.py", "build/b.py", "docs/api/conf.py", "pkg/third_party/t.py"]


def test_pyi_and_non_python_files(tmp_path):
    touch(tmp_path, "a.py", "b.pyi", "c.txt", "d.pyc", "e.py.bak", "Makefile")
    assert files(run(tmp_path)) == ["a.py", "b.pyi"]


def test_explicit_excluded_file_is_linted_unless_force_exclude(tmp_path):
    touch(tmp_path, "gen/x.py", "pkg/msg_pb2.py", "ok.py")
    cfg = Config(root=tmp_path, extend_exclude=("gen", "*_pb2.py"))
    explicit = [Path("gen/x.py"), Path("pkg/msg_pb2.py"), Path("ok.py")]
    assert files(discover(explicit, cfg, cwd=tmp_path)) == ["gen/x.py", "ok.py", "pkg/msg_pb2.py"]
    forced = discover(explicit, cfg, cwd=tmp_path, force_exclude=True)
    assert files(forced) == ["ok.py"]
    assert forced.excluded == [Path("gen/x.py"), Path("pkg/msg_pb2.py")]
    assert forced.skipped == []  # silent, as in ruff: pre-commit passes excluded files all the time
    assert forced.errors == []
    # force-exclude = true in the configuration does the same
    cfg_forced = Config(root=tmp_path, extend_exclude=("gen", "*_pb2.py"), force_exclude=True)
    assert files(discover(explicit, cfg_forced, cwd=tmp_path)) == ["ok.py"]


def test_explicit_excluded_directory(tmp_path):
    touch(tmp_path, "build/a.py", "build/sub/b.py")
    assert files(run(tmp_path, "build")) == ["build/a.py", "build/sub/b.py"]
    assert files(discover([Path("build")], Config(root=tmp_path), cwd=tmp_path, force_exclude=True)) == []


def test_explicit_gitignored_file_is_linted(tmp_path):
    root = repo(tmp_path)
    write(root / ".gitignore", "scratch.py\n")
    touch(root, "scratch.py")
    assert files(run(root, "scratch.py")) == ["scratch.py"]
    assert files(discover([Path("scratch.py")], Config(root=root), cwd=root, force_exclude=True)) == ["scratch.py"]


# --------------------------------------------------------------------------------------------
# explicit paths: skips and errors


def test_non_python_explicit_file_is_skipped_with_reason(tmp_path):
    write(tmp_path / "notes.txt", "hi")
    write(tmp_path / "script", "#!/usr/bin/env python\n")
    result = run(tmp_path, "notes.txt", "script")
    assert result.files == [] and result.errors == []
    assert result.skipped == [
        Skipped(Path("notes.txt"), "not a Python file (.txt); pass it with a .py/.pyi name to lint it", "not-python"),
        Skipped(
            Path("script"), "not a Python file (no extension); pass it with a .py/.pyi name to lint it", "not-python"
        ),
    ]


def test_missing_path(tmp_path):
    result = run(tmp_path, "nope.py", "nodir")
    assert result.files == []
    assert result.errors == [
        DiscoveryError(Path("nope.py"), "No such file or directory"),
        DiscoveryError(Path("nodir"), "No such file or directory"),
    ]
    assert str(result.errors[0]) == "nope.py: No such file or directory"


def test_not_a_directory(tmp_path):
    touch(tmp_path, "a.py")
    assert run(tmp_path, "a.py/b.py").errors == [DiscoveryError(Path("a.py/b.py"), "Not a directory")]


def test_broken_symlink_and_loop_explicit(tmp_path):
    os.symlink(tmp_path / "missing.py", tmp_path / "broken.py")
    os.symlink(tmp_path / "loop.py", tmp_path / "loop.py")
    os.symlink(tmp_path / "b2.py", tmp_path / "a2.py")
    os.symlink(tmp_path / "a2.py", tmp_path / "b2.py")
    result = run(tmp_path, "broken.py", "loop.py", "a2.py")
    assert result.files == []
    assert result.errors == [
        DiscoveryError(Path("broken.py"), "broken symbolic link"),
        DiscoveryError(Path("loop.py"), "symbolic link loop"),
        DiscoveryError(Path("a2.py"), "symbolic link loop"),
    ]


def test_broken_symlink_met_while_walking_is_reported(tmp_path):
    touch(tmp_path, "pkg/a.py")
    os.symlink(tmp_path / "gone.py", tmp_path / "pkg" / "dangling.py")
    os.symlink(tmp_path / "gone.txt", tmp_path / "pkg" / "dangling.txt")  # not Python: not our business
    result = run(tmp_path)
    assert files(result) == ["pkg/a.py"]
    assert result.errors == [DiscoveryError(Path("pkg/dangling.py"), "broken symbolic link")]


def test_symlinks_while_walking(tmp_path):
    touch(tmp_path, "real/a.py", "other/b.py")
    os.symlink(tmp_path / "real", tmp_path / "linkdir")  # directory symlink: not followed
    os.symlink(tmp_path, tmp_path / "real" / "up")  # would loop if followed
    os.symlink(tmp_path / "other" / "b.py", tmp_path / "real" / "alias.py")  # file symlink: followed, de-duplicated
    result = run(tmp_path)
    assert result.errors == []
    assert len(result.files) == 2
    assert "real/a.py" in files(result)
    assert {os.path.realpath(tmp_path / p) for p in result.files} == {
        os.path.realpath(tmp_path / "real" / "a.py"),
        os.path.realpath(tmp_path / "other" / "b.py"),
    }


def test_explicit_symlinks_are_followed(tmp_path):
    touch(tmp_path, "real/a.py", "target.py")
    os.symlink(tmp_path / "real", tmp_path / "linkdir")
    os.symlink(tmp_path / "target.py", tmp_path / "alias.py")
    assert files(run(tmp_path, "linkdir")) == ["linkdir/a.py"]
    assert files(run(tmp_path, "alias.py")) == ["alias.py"]


def test_unlistable_directory_is_an_error(tmp_path, monkeypatch):
    touch(tmp_path, "ok/a.py", "locked/b.py")
    real_scandir = os.scandir

    def scandir(path):
        if os.path.basename(path) == "locked":
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(discovery_mod.os, "scandir", scandir)
    result = run(tmp_path)
    assert files(result) == ["ok/a.py"]
    assert result.errors == [DiscoveryError(Path("locked"), "Permission denied")]


@pytest.mark.parametrize(
    ("err", "message"),
    [
        (FileNotFoundError(errno.ENOENT, "x"), "No such file or directory"),
        (PermissionError(errno.EACCES, "x"), "Permission denied"),
        (PermissionError(errno.EPERM, "x"), "Permission denied"),
        (OSError(errno.ELOOP, "x"), "symbolic link loop"),
        (NotADirectoryError(errno.ENOTDIR, "x"), "Not a directory"),
        (OSError(errno.EIO, "Input/output error"), "Input/output error"),
        (OSError("odd"), "odd"),
    ],
)
def test_describe_os_error(err, message):
    assert describe_os_error(err) == message


def test_describe_broken_link(tmp_path):
    os.symlink(tmp_path / "none", tmp_path / "l.py")
    assert describe_os_error(FileNotFoundError(errno.ENOENT, "x"), tmp_path / "l.py") == "broken symbolic link"


# --------------------------------------------------------------------------------------------
# output shape


def test_default_path_is_cwd_and_paths_are_relative(tmp_path):
    touch(tmp_path, "b.py", "a/z.py", "a/b/c.py", "a.py")
    result = discover([], Config(root=tmp_path), cwd=tmp_path)
    assert files(result) == ["a/b/c.py", "a/z.py", "a.py", "b.py"]  # Path order: by component
    assert result.files == sorted(result.files)
    assert all(not p.is_absolute() for p in result.files)


def test_paths_outside_cwd_are_absolute(tmp_path):
    touch(tmp_path, "proj/a.py", "elsewhere/b.py")
    result = discover([Path("../elsewhere"), Path("a.py")], Config(root=tmp_path / "proj"), cwd=tmp_path / "proj")
    assert set(result.files) == {Path("a.py"), tmp_path / "elsewhere" / "b.py"}
    assert result.files == sorted(result.files)


def test_deduplicated(tmp_path):
    touch(tmp_path, "pkg/a.py")
    result = discover(
        [Path("pkg"), Path("pkg/a.py"), Path("./pkg/a.py"), tmp_path / "pkg" / "a.py"],
        Config(root=tmp_path),
        cwd=tmp_path,
    )
    assert files(result) == ["pkg/a.py"]


def test_cwd_defaults_to_process_cwd(tmp_path, monkeypatch):
    touch(tmp_path, "a.py")
    monkeypatch.chdir(tmp_path)
    assert files(discover([], Config(root=tmp_path))) == ["a.py"]


def test_iter_python_files_matches_discover(tmp_path):
    root = repo(tmp_path)
    write(root / ".gitignore", "ignored/\n")
    touch(root, "a.py", "b/c.pyi", "ignored/x.py", "build/y.py", "d/e.txt")
    cfg = Config(root=root)
    listed = list(iter_python_files(root, cfg))
    assert all(p.is_absolute() for p in listed)
    assert (
        sorted(p.relative_to(root).as_posix() for p in listed)
        == files(discover([], cfg, cwd=root))
        == ["a.py", "b/c.pyi"]
    )


def test_iter_python_files_collects_errors(tmp_path):
    os.symlink(tmp_path / "none.py", tmp_path / "x.py")
    errors: list[DiscoveryError] = []
    assert list(iter_python_files(tmp_path, Config(root=tmp_path), errors=errors)) == []
    assert errors == [DiscoveryError(tmp_path / "x.py", "broken symbolic link")]


def test_is_python_path():
    assert is_python_path("a.py") and is_python_path(Path("x/b.pyi"))
    assert not is_python_path("a.pyc") and not is_python_path("py") and not is_python_path("a.txt")


def test_many_files_walk_quickly(tmp_path):
    # A smoke test of the walker's shape (one scandir per directory, no per-file stat): 3,000 files.
    for d in range(60):
        sub = tmp_path / f"pkg{d}" / "inner"
        sub.mkdir(parents=True)
        for f in range(50):
            (sub / f"m{f}.py").write_text("")
    write(tmp_path / ".gitignore", "*_tmp.py\n/pkg1/\n!keep.py\n")
    (tmp_path / ".git").mkdir()
    result = run(tmp_path)
    assert len(result.files) == 59 * 50


# --------------------------------------------------------------------------------------------
# git itself as the oracle


GIT_TREE_IGNORES = {
    ".gitignore": """
        # build products
        *.py[cod]
        *_gen.py
        !keep_gen.py
        /top.py
        build*/
        docs/**/_auto
        **/cache/*.py
        !**/cache/keep.py
        sub/x.py
        [ab]_*.py
        weird\\ name.py
        trailing.py{three_spaces}
        lit\\#.py
        """.format(three_spaces="   "),
    "pkg/.gitignore": """
        /local.py
        *.py
        !*_kept.py
        !mod*.py
        nested/deeper/
        """,
    "pkg/nested/.gitignore": """
        !local.py
        mod_b.py
        """,
    "other/.gitignore": """
        *
        !*/
        !*.pyi
        """,
}

GIT_TREE_FILES = [
    "top.py",
    "a/top.py",
    "main.py",
    "x_gen.py",
    "keep_gen.py",
    "a/keep_gen.py",
    "a/y_gen.py",
    "build/a.py",
    "build2/b.py",
    "a/builder.py",
    "a/build3/c.py",
    "docs/_auto/d.py",
    "docs/x/_auto/d.py",
    "docs/x/y/_auto/d.py",
    "docs/auto.py",
    "cache/a.py",
    "a/cache/b.py",
    "a/cache/keep.py",
    "a/cache/deep/c.py",
    "sub/x.py",
    "a/sub/x.py",
    "a_1.py",
    "b_2.py",
    "c_3.py",
    "weird name.py",
    "trailing.py",
    "lit#.py",
    "pkg/local.py",
    "pkg/a.py",
    "pkg/b_kept.py",
    "pkg/mod1.py",
    "pkg/nested/local.py",
    "pkg/nested/mod_a.py",
    "pkg/nested/mod_b.py",
    "pkg/nested/other.py",
    "pkg/nested/deeper/z_kept.py",
    "pkg/nested/deeper.py",
    "other/a.py",
    "other/b.pyi",
    "other/s/c.pyi",
    "other/s/d.py",
]


@pytest.mark.skipif(__import__("shutil").which("git") is None, reason="needs git")
def test_walker_agrees_with_git(tmp_path):
    import textwrap

    root = tmp_path / "r"
    root.mkdir()
    git("init", "-q", cwd=root)
    for name, text in GIT_TREE_IGNORES.items():
        write(root / name, textwrap.dedent(text).lstrip("\n"))
    touch(root, *GIT_TREE_FILES)
    listed = git("-c", "core.quotePath=false", "ls-files", "--others", "--exclude-standard", "-z", cwd=root).split("\0")
    expected = sorted(p for p in listed if p.endswith((".py", ".pyi")))
    got = files(discover([], Config(root=root, exclude=()), cwd=root))
    assert got == sorted(got, key=lambda p: p.split("/"))
    assert sorted(got) == expected
    assert len(expected) > 10  # the fixture keeps plenty of files on both sides
