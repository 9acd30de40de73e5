"""Directory listings in the cache (ftlint/index/listing.py): a warm walk reuses what the last
walk kept of a directory only while nothing that decided it changed. Each test walks,
changes one thing, walks again, and compares with a walk that has no cache."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

import ftlint.index.discovery as discovery
from ftlint.core.cache import Cache
from ftlint.core.config import load_config
from ftlint.index.discovery import iter_python_paths
from ftlint.index.listing import DirListings
from ftlint.lint.engine import lint_paths
from ftlint.lint.registry import known_codes


def age(root: Path, seconds: int = 60) -> None:
    """Move every mtime into the past, so listings are not racy and get stored."""
    then = time.time_ns() - seconds * 1_000_000_000
    for directory, dirs, files in os.walk(root):
        for name in files + dirs:
            os.utime(os.path.join(directory, name), ns=(then, then), follow_symlinks=False)
        os.utime(directory, ns=(then, then))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for sub in ("pkg", "pkg/deep", "other", "build_out"):
        (root / sub).mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("build_out/\n")
    (root / "pyproject.toml").write_text("[tool.ftlint]\n")
    for rel in ("pkg/a.py", "pkg/deep/b.py", "other/c.py", "build_out/gen.py", "top.py"):
        (root / rel).write_text("x = 1\n")
    age(root)
    return root


class Walks:
    """Walk the project with the listings of one cache directory, counting scandir calls."""

    def __init__(self, root: Path, cache_dir: Path, monkeypatch) -> None:
        self.root = root
        self.cache_dir = cache_dir
        self.scans: list[str] = []
        self.counting = True
        real = os.scandir

        def counting(path="."):
            if self.counting:
                self.scans.append(os.fspath(path))
            return real(path)

        monkeypatch.setattr(discovery.os, "scandir", counting)

    def walk(self, top: Path | None = None) -> list[str]:
        config = load_config(self.root)
        self.scans.clear()
        listings = DirListings.for_walk(Cache(self.cache_dir), config)
        files = sorted(iter_python_paths(top or self.root, config, listings=listings))
        listings.save()
        return files

    def truth(self, top: Path | None = None) -> list[str]:
        """The same walk without listings (its directory scans are not counted)."""
        self.counting = False
        try:
            return sorted(iter_python_paths(top or self.root, load_config(self.root)))
        finally:
            self.counting = True


def rel(root: Path, files: list[str]) -> list[str]:
    return [Path(f).relative_to(root).as_posix() for f in files]


def test_a_warm_walk_lists_no_directory_and_finds_the_same_files(project, tmp_path, monkeypatch):
    walks = Walks(project, tmp_path / "cache", monkeypatch)
    first = walks.walk()
    assert len(walks.scans) == 4  # root, pkg, pkg/deep, other (build_out is ignored)
    assert rel(project, first) == ["other/c.py", "pkg/a.py", "pkg/deep/b.py", "top.py"]
    assert walks.walk() == first == walks.truth()
    assert walks.scans == []


def test_a_new_file_and_a_deleted_file_are_seen(project, tmp_path, monkeypatch):
    walks = Walks(project, tmp_path / "cache", monkeypatch)
    walks.walk()
    (project / "pkg" / "deep" / "new.py").write_text("y = 2\n")
    (project / "other" / "c.py").unlink()
    got = walks.walk()
    assert got == walks.truth()
    assert rel(project, got) == ["pkg/a.py", "pkg/deep/b.py", "pkg/deep/new.py", "top.py"]
    assert sorted(walks.scans) == sorted([str(project / "other"), str(project / "pkg" / "deep")])


def test_an_edited_gitignore_applies_to_listings_below_it(project, tmp_path, monkeypatch):
    walks = Walks(project, tmp_path / "cache", monkeypatch)
    walks.walk()
    (project / ".gitignore").write_text("build_out/\npkg/deep/\n")  # same directory entries
    got = walks.walk()
    assert got == walks.truth()
    assert "pkg/deep/b.py" not in rel(project, got)
    (project / ".gitignore").write_text("other/\n")
    assert rel(project, walks.walk()) == ["build_out/gen.py", "pkg/a.py", "pkg/deep/b.py", "top.py"]


def test_a_gitignore_above_the_walk_top_is_checked(project, tmp_path, monkeypatch):
    walks = Walks(project, tmp_path / "cache", monkeypatch)
    top = project / "pkg"
    assert rel(project, walks.walk(top)) == ["pkg/a.py", "pkg/deep/b.py"]
    (project / ".gitignore").write_text("deep/\n")
    assert rel(project, walks.walk(top)) == ["pkg/a.py"] and walks.walk(top) == walks.truth(top)
    (project / ".git" / "info").mkdir(exist_ok=True)
    (project / ".git" / "info" / "exclude").write_text("a.py\n")
    assert walks.walk(top) == walks.truth(top) == []


def test_symlinks_are_checked_on_every_walk(project, tmp_path, monkeypatch):
    target = tmp_path / "outside.py"
    target.write_text("z = 3\n")
    (project / "pkg" / "link.py").symlink_to(target)
    age(project)
    walks = Walks(project, tmp_path / "cache", monkeypatch)
    assert "pkg/link.py" in rel(project, walks.walk())
    target.unlink()  # now a broken link: the directory itself did not change
    assert "pkg/link.py" not in rel(project, walks.walk())


def test_a_directory_changed_just_now_is_not_stored(project, tmp_path, monkeypatch):
    (project / "other" / "fresh.py").write_text("w = 4\n")  # other/ modified now: racy
    walks = Walks(project, tmp_path / "cache", monkeypatch)
    walks.walk()
    walks.walk()
    assert walks.scans == [str(project / "other")]


def test_lint_results_with_listings_match_a_run_without_cache(project, tmp_path):
    (project / "pkg" / "sentinel.py").write_text(
        "class S:\n    def on_fault(self, exc):\n        self.scheduler.reset_prefix_cache()\n"
    )
    age(project)
    config = load_config(project)
    codes = known_codes()

    def findings(**kwargs):
        result = lint_paths([], config, codes, cwd=project, **kwargs)
        return sorted((f.path, f.line, f.code) for f in result.findings)

    cache_dir = tmp_path / "cache"
    assert findings(cache_dir=cache_dir) == findings() == [("pkg/sentinel.py", 3, "FT005")]
    (project / "other" / "handler.py").write_text(
        "class T:\n    def on_fault(self, exc):\n        self.scheduler.reset_prefix_cache()\n"
    )
    assert findings(cache_dir=cache_dir) == findings()
    assert ("other/handler.py", 3, "FT005") in findings(cache_dir=cache_dir)
