"""Every repository file a document or a source comment cites exists: the README, docs/*.md,
benchmarks/README.md, and the docstrings and comments of ftlint/ and rules/.

A citation is a repository-relative path under one of the project's top-level folders
(`docs/review.md`, `ftlint/vocabulary.py`, `tests/perf/test_cache.py`, `scripts/bootstrap-env`)
or a top-level file by name (`action.yml`, `.pre-commit-hooks.yaml`); a glob must match something.
A bare test module name (`test_cli.py`) must name a file under tests/.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterator

from tests.helpers import ROOT

FOLDERS = ("docs", "ftlint", "rules", "tests", "benchmarks", "scripts", "requirements", "tools", "action", ".ci")
TOP_FILES = ("action.yml", ".pre-commit-hooks.yaml", "pyproject.toml", "Makefile", "LICENSE", "MANIFEST.in")
CITATION = re.compile(
    r"(?<![\w/.-])((?:" + "|".join(re.escape(f) for f in FOLDERS) + r")/[\w./*-]*[\w*]"
    r"|(?:" + "|".join(re.escape(f) for f in TOP_FILES) + r")(?![\w-]))"
)

#: Path-shaped text that names no file of this repository (document -> text, and why).
NOT_CITATIONS = {
    # an example `extend-exclude` for the user's own project
    ("README.md", "tests/fixtures/**"),
    # vLLM's test paths, in the PR description template `ftlint review` checks
    ("ftlint/review/pr_checks.py", "tests/v1/fault_tolerance"),
    ("ftlint/review/pr_checks.py", "tests/v1/fault_tolerance/test_resume_evicts_tail.py"),
}

#: Stale citations in ftlint/ sources, left for the modules' owners to fix (issue 13). Exact:
#: a fixed one fails the test until its entry is deleted.
KNOWN_STALE = {
    ("ftlint/positions.py", "tests/perf/test_positions.py"),
}


def documents() -> Iterator[tuple[str, str]]:
    """(repository path, the text in it that may cite files)."""
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "benchmarks" / "README.md"]:
        yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")
    for top in ("ftlint", "rules"):
        for path in sorted((ROOT / top).rglob("*.py")):
            tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
            prose = [t.string for t in tokens if t.type in (tokenize.COMMENT, tokenize.STRING)]
            yield path.relative_to(ROOT).as_posix(), "\n".join(prose)


TEST_MODULE = re.compile(r"(?<![\w/.-])(test_\w+\.py)\b")


def cited(text: str) -> set[str]:
    found = {match.rstrip(".") for match in CITATION.findall(text)}
    return found | {f"tests/**/{name}" for name in TEST_MODULE.findall(text)}


def exists(citation: str) -> bool:
    return any(ROOT.glob(citation)) if "*" in citation else (ROOT / citation).exists()


def test_every_cited_file_exists():
    missing = {
        (doc, citation)
        for doc, text in documents()
        for citation in cited(text)
        if (doc, citation) not in NOT_CITATIONS and not exists(citation)
    }
    assert not (missing - KNOWN_STALE), "cited files that do not exist:\n" + "\n".join(
        sorted(map(str, missing - KNOWN_STALE))
    )
    fixed = KNOWN_STALE - missing
    assert not fixed, "fixed, delete from KNOWN_STALE: " + str(sorted(fixed))


def test_citations_are_found():
    """The pattern itself: paths in prose and code spans, globs, top-level files; not URLs."""
    text = "See `docs/review.md`, tests/perf/test_cache.py. and action.yml; not https://x.org/docs/a.md"
    assert cited(text) == {"docs/review.md", "tests/perf/test_cache.py", "action.yml"}
    assert cited("as test_cli.py checks") == {"tests/**/test_cli.py"} and exists("tests/**/test_cli.py")
    assert not exists("docs/no-such-page.md") and exists("tests/report/*.py")
    docs = dict(documents())
    assert "ftlint/rule.py" in docs and "docs/rules.md" in cited(docs["README.md"])
