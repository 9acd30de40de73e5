"""Parsing `git diff` output and reading it from real repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

from ftlint.review.diff import GitError, parse_unified_diff, read_diff
from tests.review.review_helpers import Repo, git

MODIFIED = """\
diff --git a/pkg/s.py b/pkg/s.py
index 1111111..2222222 100644
--- a/pkg/s.py
+++ b/pkg/s.py
@@ -2,4 +2,5 @@ class S:
     def on_fault(self, exc):
-        self.a()
+        self.b()
+        self.c()
         self.d()
@@ -20 +21,0 @@ def other():
-    gone = 1
"""


def test_modified_lines_context_and_deletions():
    (fd,) = parse_unified_diff(MODIFIED)
    assert (fd.path, fd.old_path) == ("pkg/s.py", "pkg/s.py")
    assert fd.added == {3: "        self.b()", 4: "        self.c()"}
    assert fd.context == {2, 5}
    assert fd.deleted == {3: "        self.a()", 20: "    gone = 1"}
    assert fd.lines_for("added") == frozenset({3, 4})
    assert fd.lines_for("diff-context") == frozenset({2, 3, 4, 5})


def test_deleted_line_that_looks_like_a_header():
    text = """\
diff --git a/x.py b/x.py
--- a/x.py
+++ b/x.py
@@ -1,2 +1,1 @@
--- a/comment
 keep
"""
    (fd,) = parse_unified_diff(text)
    assert fd.deleted == {1: "-- a/comment"}
    assert fd.path == "x.py" and fd.context == {1}


def test_new_deleted_renamed_binary_and_quoted_paths():
    text = """\
diff --git a/new.py b/new.py
new file mode 100644
--- /dev/null
+++ b/new.py
@@ -0,0 +1,2 @@
+a = 1
+b = 2
diff --git a/old.py b/old.py
deleted file mode 100644
--- a/old.py
+++ /dev/null
@@ -1 +0,0 @@
-x = 1
diff --git a/a.py b/b.py
similarity index 90%
rename from a.py
rename to b.py
--- a/a.py
+++ b/b.py
@@ -1 +1 @@
-y = 1
+y = 2
diff --git a/img.png b/img.png
Binary files a/img.png and b/img.png differ
diff --git a/empty.py b/empty.py
new file mode 100644
index 0000000..e69de29
diff --git "a/t\\303\\251st \\"q\\".py" "b/t\\303\\251st \\"q\\".py"
--- "a/t\\303\\251st \\"q\\".py"
+++ "b/t\\303\\251st \\"q\\".py"
@@ -1 +1 @@
-s = "é"
+s = "è"
\\ No newline at end of file
"""
    files = {f.display: f for f in parse_unified_diff(text)}
    assert files["new.py"].is_new and files["new.py"].added == {1: "a = 1", 2: "b = 2"}
    assert files["old.py"].is_deleted and files["old.py"].deleted == {1: "x = 1"}
    assert (files["b.py"].old_path, files["b.py"].added) == ("a.py", {1: "y = 2"})
    assert files["img.png"].binary
    assert files["empty.py"].is_new and files["empty.py"].added == {}
    quoted = files['tést "q".py']
    assert quoted.added == {1: 's = "è"'} and quoted.deleted == {1: 's = "é"'}


def test_read_diff_from_a_real_repository(repo: Repo):
    repo.write("keep.py", "a = 1\nb = 2\nc = 3\n")
    repo.write("gone.py", "x = 1\n")
    repo.write("données/名前.py", "n = 1\n")
    base = repo.commit("base")
    repo.write("keep.py", "a = 1\nb = 20\nc = 3\nd = 4\n")
    repo.remove("gone.py")
    repo.write("données/名前.py", "n = 2\n")
    repo.write("new_untracked.py", "u = 1\n")
    repo.write(".gitignore", "ignored.py\n")
    repo.write("ignored.py", "i = 1\n")
    diff = read_diff(base, repo.path)
    assert diff.base_commit == base
    files = {f.display: f for f in diff.files}
    assert set(files) == {"keep.py", "gone.py", "données/名前.py", "new_untracked.py", ".gitignore"}
    assert files["keep.py"].added == {2: "b = 20", 4: "d = 4"}
    assert files["keep.py"].deleted == {2: "b = 2"}
    assert files["gone.py"].is_deleted
    assert files["données/名前.py"].added == {1: "n = 2"}
    assert files["new_untracked.py"].is_new and files["new_untracked.py"].added == {1: "u = 1"}
    # From a subdirectory the paths are still repo-relative.
    sub = repo.path / "données"
    assert {f.display for f in read_diff(base, sub).files} == set(files)


def test_read_diff_errors(repo: Repo, tmp_path: Path):
    repo.write("a.py", "a = 1\n")
    repo.commit("base")
    with pytest.raises(GitError, match="unknown revision"):
        read_diff("does-not-exist", repo.path)
    with pytest.raises(GitError, match="not a revision"):
        read_diff("--help", repo.path)
    outside = tmp_path / "outside"
    outside.mkdir()
    with pytest.raises(GitError, match="not inside a git repository"):
        read_diff("HEAD", outside)


def test_empty_repository_has_no_head(repo: Repo):
    with pytest.raises(GitError) as err:
        read_diff("HEAD", repo.path)
    assert "\n" not in str(err.value)


def test_merge_base_option(repo: Repo):
    repo.write("a.py", "a = 1\n")
    base = repo.commit("base")
    git(repo.path, "checkout", "-q", "-b", "topic")
    repo.write("a.py", "a = 2\n")
    repo.commit("topic")
    git(repo.path, "checkout", "-q", "main")
    repo.write("b.py", "b = 1\n")
    main_tip = repo.commit("main")
    git(repo.path, "checkout", "-q", "topic")
    plain = {f.display for f in read_diff(main_tip, repo.path).files}
    assert plain == {"a.py", "b.py"}  # b.py "deleted" relative to main's tip
    merged = read_diff(main_tip, repo.path, use_merge_base=True)
    assert merged.base_commit == base
    assert {f.display for f in merged.files} == {"a.py"}
