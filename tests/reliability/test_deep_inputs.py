"""Issue 16 item 13: input whose size sets the depth of ftlint's own walks (a handler with
hundreds of `elif`s, a helper chain through hundreds of modules) gives its findings, not a
RecursionError. Run through the real command line (`python -m ftlint`)."""

from __future__ import annotations

import json

import pytest

from tests.helpers import run_ftlint

FREE = "engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)"
EVICT = "engine.scheduler.kv_cache_manager.evict_blocks(engine.dirty_blocks())"


def _check(cwd) -> tuple[int, list[tuple[str, int, str]], str]:
    proc = run_ftlint("check", "--no-cache", "--format", "json", ".", cwd=cwd)
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert "internal error" not in proc.stderr, proc.stderr[-2000:]
    found = sorted((f["path"], f["line"], f["code"]) for f in json.loads(proc.stdout or "[]"))
    return proc.returncode, found, proc.stderr


def _elif_handler(branches: int, test: str) -> str:
    lines = ["def on_fault(engine, x):", f"    if {test} == 0:", "        pass"]
    for i in range(1, branches):
        lines += [f"    elif {test} == {i}:", "        pass"]
    lines += ["    else:", f"        {FREE}", ""]
    return "\n".join(lines)


@pytest.mark.parametrize("branches", [400, 1000])
@pytest.mark.parametrize("test", ["x", "engine.probe(x)"], ids=["plain-tests", "tests-with-calls"])
def test_long_elif_chain_is_analysed(tmp_path, branches, test):
    (tmp_path / "handler.py").write_text(_elif_handler(branches, test))
    code, found, _ = _check(tmp_path)
    free_line = 2 * branches + 3  # the `else:` body
    assert (code, found) == (1, [("handler.py", free_line, "FT007")])


def _helper_chain(root, modules: int, last_body: list[str]) -> None:
    pkg = root / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mod0.py").write_text("from pkg import mod1\n\n\ndef on_fault(engine, exc):\n    mod1.f(engine)\n")
    for i in range(1, modules):
        (pkg / f"mod{i}.py").write_text(f"from pkg import mod{i + 1}\n\n\ndef f(engine):\n    mod{i + 1}.f(engine)\n")
    (pkg / f"mod{modules}.py").write_text("def f(engine):\n" + "".join(f"    {line}\n" for line in last_body))


@pytest.mark.parametrize("modules", [150, 300])
def test_helper_chain_through_many_modules_reports_the_free(tmp_path, modules):
    _helper_chain(tmp_path, modules, [FREE])
    code, found, _ = _check(tmp_path)
    # reported at the handler's call: the free lies in another file
    assert (code, found) == (1, [("pkg/mod0.py", 5, "FT007")])


def test_helper_chain_that_evicts_first_is_clean(tmp_path):
    _helper_chain(tmp_path, 150, [EVICT, FREE])
    code, found, _ = _check(tmp_path)
    assert (code, found) == (0, [])


def test_elif_chain_past_the_limit_is_ft000_not_a_crash(tmp_path):
    # 10,000 elifs crash LibCST's native parser (SIGSEGV); the pre-check refuses the file first
    (tmp_path / "handler.py").write_text(_elif_handler(10_000, "x"))
    (tmp_path / "other.py").write_text(f"def on_fault(engine):\n    {FREE}\n")
    code, found, _ = _check(tmp_path)
    first_elif_past_limit = 2 * 2001 + 2
    assert (code, found) == (1, [("handler.py", first_elif_past_limit, "FT000"), ("other.py", 2, "FT007")])
