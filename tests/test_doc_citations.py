"""Every repository file a document or a source comment cites exists: the README, docs/*.md,
benchmarks/README.md, and the docstrings and comments of ftlint/ and rules/.

A citation is a repository-relative path under one of the project's top-level folders
(`docs/review.md`, `ftlint/core/vocabulary.py`, `tests/perf/test_cache.py`, `scripts/bootstrap-env`)
or a top-level file by name (`action.yml`, `.pre-commit-hooks.yaml`); a glob must match something.
A bare test module name (`test_cli.py`) must name a file under tests/. A test cited by name
(`` `test_x` ``, `` `test_x[*]` ``, `` `file.py::test_x` ``) must be defined under tests/, and a
`` `module.name` `` whose module is one of ftlint's (`` `textedits.combine` ``) must define that name.
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
    # the places table names the folder of example handlers (files, no __init__.py)
    ("README.md", "ftlint.examples"),
    # an example `extend-exclude` for the user's own project
    ("README.md", "tests/fixtures/**"),
    # vLLM's test paths, in the PR description template `ftlint review` checks
    ("ftlint/review/pr_checks.py", "tests/v1/fault_tolerance"),
    ("ftlint/review/pr_checks.py", "tests/v1/fault_tolerance/test_resume_evicts_tail.py"),
    # vLLM's own fault-tolerance e2e test, which docs/runtime.md shows how to verify
    ("docs/runtime.md", "tests/v1/fault_tolerance/test_fault_tolerance_e2e.py"),
    # git's `diff.external` setting, and vLLM's `engine.scheduler` (not ftlint's modules)
    ("docs/review.md", "diff.external"),
    ("ftlint/core/vocabulary.py", "engine.scheduler"),
    # git's `core.*` settings and ruff's `lint.*` table (not ftlint's core/ and lint/ packages)
    ("README.md", "lint.external"),
    ("docs/review.md", "core.fsmonitor"),
    ("docs/review.md", "core.hooksPath"),
    ("docs/review.md", "core.pager"),
    ("ftlint/review/diff.py", "core.fsmonitor"),
    # the example project's own test file (its fence names where it goes in that project)
    ("docs/local-rules.md", "tests/test_lint_rules.py"),
}

#: Stale citations in ftlint/ sources, left for the modules' owners to fix (issue 13). Exact:
#: a fixed one fails the test until its entry is deleted.
KNOWN_STALE: set[tuple[str, str]] = set()


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


TEST_NAME = re.compile(r"(?:`|::)(test_\w+)(?=[\[`(])")
FILE_SUFFIXES = frozenset({"py", "json", "toml", "ts", "md", "yml", "yaml"})
MODULE_NAME = re.compile(r"`(\w+)\.(\w+)(?:\(\))?`")


def _modules() -> dict[str, list[str]]:
    """Module stem (`textedits`, `report`) -> the sources of every ftlint module so named."""
    found: dict[str, list[str]] = {}
    for path in [*(ROOT / "ftlint").rglob("*.py"), *(ROOT / "rules").glob("*.py")]:
        stem = path.parent.name if path.name == "__init__.py" else path.stem
        found.setdefault(stem, []).append(path.read_text(encoding="utf-8"))
    return found


def missing_names(text: str, test_names: set[str], modules: dict[str, list[str]]) -> set[str]:
    """The tests and `module.name`s `text` cites that are defined nowhere."""
    missing = {name for name in TEST_NAME.findall(text) if name not in test_names}
    for module, name in MODULE_NAME.findall(text):
        if name in FILE_SUFFIXES or name in modules:  # `values.py`, `ftlint.rules`: files and packages
            continue
        definition = re.compile(rf"^\s*(?:(?:async\s+)?def|class)\s+{name}\b|^\s*{name}\s*[:=]", re.M)
        if module in modules and not any(definition.search(source) for source in modules[module]):
            missing.add(f"{module}.{name}")
    return missing


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


def test_every_cited_test_and_module_name_is_defined():
    tests = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("*.py"))
    test_names = set(re.findall(r"^\s*(?:async\s+)?def\s+(test_\w+)", tests, re.M))
    modules = _modules()
    missing = {(doc, name) for doc, text in documents() for name in missing_names(text, test_names, modules)}
    missing -= NOT_CITATIONS
    assert not missing, "cited but defined nowhere:\n" + "\n".join(map(str, sorted(missing)))


def test_cited_names_are_found():
    """The name patterns: tests in code spans, with parameters or a module; ftlint modules' names."""
    modules = {"textedits": ["def combine(text):\n"], "report": ["class R:\n    cannot_verify: list = []\n"]}
    text = "`test_a[*]`, `x.py::test_b`, `test_c`, `textedits.combine`, `textedits.gone`, `report.cannot_verify`"
    assert missing_names(text, {"test_a"}, modules) == {"test_b", "test_c", "textedits.gone"}
    assert (
        missing_names("`os.replace`, `values.py`, `ftlint.syntax.textedits`, def test_x(): and test_y", set(), modules)
        == set()
    )


def test_citations_are_found():
    """The pattern itself: paths in prose and code spans, globs, top-level files; not URLs."""
    text = "See `docs/review.md`, tests/perf/test_cache.py. and action.yml; not https://x.org/docs/a.md"
    assert cited(text) == {"docs/review.md", "tests/perf/test_cache.py", "action.yml"}
    assert cited("as test_cli.py checks") == {"tests/**/test_cli.py"} and exists("tests/**/test_cli.py")
    assert not exists("docs/no-such-page.md") and exists("tests/report/*.py")
    docs = dict(documents())
    assert "ftlint/lint/rule.py" in docs and "docs/rules.md" in cited(docs["README.md"])
