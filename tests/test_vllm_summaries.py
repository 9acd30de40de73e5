"""vLLM's own methods summarised without vLLM installed (issue 21 item 0).

A handler subclassing vLLM's `EngineCoreSentinel` and calling `super().on_fault(exc)` gets
the same findings where vLLM is installed (its source walked) and where it is not
(pre-commit's isolated environment: the summaries ftlint ships, or a `vllm-source` tree).
The static environment is scripts/bootstrap-env --static (libcst and the test tools, no vLLM).
"""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ftlint.analysis import vllm_summaries, vllm_summarise
from tests.helpers import ROOT, ftlint_env, run_ftlint, write_project

SUBCLASS = """
from vllm.v1.fault_tolerance.engine_core_sentinel import EngineCoreSentinel


class MySentinel(EngineCoreSentinel):
    def on_fault(self, exc):
        self.faults = getattr(self, "faults", 0) + 1
        super().on_fault(exc)
"""
# The same class imported from the package that re-exports it.
REEXPORTED = SUBCLASS.replace("vllm.v1.fault_tolerance.engine_core_sentinel", "vllm.v1.fault_tolerance")
# Evicts every dirty tail first: vLLM's abort then frees nothing left dirty.
EVICTS_FIRST = """
from vllm.v1.fault_tolerance.engine_core_sentinel import EngineCoreSentinel


class MySentinel(EngineCoreSentinel):
    def on_fault(self, exc):
        self._evict_unconfirmed_tails(self.engine.scheduler)
        super().on_fault(exc)

    def _evict_unconfirmed_tails(self, scheduler):
        for req in scheduler.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            if confirmed == req.num_computed_tokens:
                continue
            kv = scheduler.kv_cache_manager
            scheduler.kv_cache_manager.evict_blocks(
                {
                    b.block_id
                    for m in kv.coordinator.single_type_managers
                    for b in m.req_to_blocks[req.request_id][confirmed // m.block_size :]
                    if not b.is_null
                }
            )
"""
# Overrides a method vLLM's on_fault does not call on self: the summary still holds.
OVERRIDES_INIT = SUBCLASS.replace(
    "    def on_fault(self, exc):",
    "    def __init__(self, engine):\n        super().__init__(engine, engine.parallel_config)\n\n    def on_fault(self, exc):",
)
# vLLM's on_fault calls self._push_status(): an override makes the shipped summary not hold.
OVERRIDES_HELPER = (
    SUBCLASS
    + """
    def _push_status(self, mask=None):
        self.engine.scheduler.finish_requests(None, 5)
"""
)


@pytest.fixture(scope="module")
def static_python() -> str:
    """The static environment's python (no vLLM), as pre-commit's hook environment."""
    proc = subprocess.run(
        ["bash", str(ROOT / "scripts" / "bootstrap-env"), "--static"], capture_output=True, text=True, timeout=900
    )
    assert proc.returncode == 0, proc.stderr
    python = str(Path(proc.stdout.strip()) / "bin" / "python")
    probe = subprocess.run(
        [python, "-c", "import importlib.util as u; print(u.find_spec('vllm'))"], capture_output=True, text=True
    )
    assert probe.stdout.strip() == "None", "the static environment must not have vLLM"
    return python


def _findings(python: str, project: Path, *args: str) -> tuple[int, list]:
    proc = subprocess.run(
        [python, "-m", "ftlint", "check", "--format", "json", *args, "sentinel.py"],
        cwd=project,
        env=ftlint_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, [(f["line"], f["column"], f["code"], f["message"]) for f in json.loads(proc.stdout)]


def _installed_root() -> Path:
    spec = importlib.util.find_spec("vllm")
    assert spec is not None and spec.origin, "vLLM must be installed in the test environment"
    return Path(spec.origin).parent.parent


@pytest.mark.vllm
def test_shipped_summaries_are_what_the_installed_vllm_gives():
    """The data file is generated, never hand-written: regenerate it and compare."""
    from importlib.metadata import version

    installed = version("vllm")
    shipped = ROOT / "ftlint" / "analysis" / "vllm_data" / vllm_summaries.data_file(installed)
    assert shipped.is_file(), f"no summaries ship for vLLM {installed}: run scripts/vllm_summaries.py"
    regenerated = vllm_summaries.dump(installed, vllm_summarise.generate(_installed_root()))
    assert regenerated == shipped.read_text(encoding="utf-8")
    on_fault = vllm_summaries.lookup(
        json.loads(regenerated), "vllm.v1.fault_tolerance.engine_core_sentinel", "EngineCoreSentinel", "on_fault"
    )
    assert on_fault == [{"freed": ["*"], "evicted": [], "zeroed": [], "pending": []}]  # aborts all, evicts nothing


@pytest.mark.vllm
@pytest.mark.parametrize(
    "text, expected",
    [
        (SUBCLASS, [(7, 9, "FT007")]),
        (REEXPORTED, [(7, 9, "FT007")]),
        (EVICTS_FIRST, []),
        (OVERRIDES_INIT, [(10, 9, "FT007")]),
    ],
    ids=["subclass", "re-exported", "evicts-first", "overrides-init"],
)
def test_same_findings_with_and_without_vllm(tmp_path, static_python, text, expected):
    project = write_project(tmp_path / "p", {"sentinel.py": text})
    with_vllm = _findings(sys.executable, project)
    without = _findings(static_python, project)
    assert with_vllm == without
    assert [f[:3] for f in without[1]] == expected
    if expected:
        assert "`super().on_fault()` frees requests (inside the helper, in another file)" in without[1][0][3]


@pytest.mark.vllm
def test_vllm_source_setting_reads_the_tree(tmp_path, static_python):
    """`vllm-source` (the directory holding the `vllm` package, or the package): vLLM's
    method is walked from that tree, as from the installed one, also where a summary
    does not hold (the subclass overrides a helper vLLM's on_fault calls on self)."""
    plain = write_project(tmp_path / "plain", {"sentinel.py": OVERRIDES_HELPER})
    configured = write_project(
        tmp_path / "configured",
        {"sentinel.py": OVERRIDES_HELPER},
        config=f"vllm-source = {json.dumps(str(_installed_root() / 'vllm'))}\n",
    )
    with_vllm = _findings(sys.executable, plain)
    assert with_vllm[1] and {f[2] for f in with_vllm[1]} == {"FT007"}
    assert _findings(static_python, configured) == with_vllm
    # Without vLLM and without the setting, the summary is not applied: no finding, and -v says why.
    proc = subprocess.run(
        [static_python, "-m", "ftlint", "check", "-v", "sentinel.py"],
        cwd=plain,
        env=ftlint_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "summary does not hold where _push_status is overridden; set vllm-source" in proc.stderr


def test_vllm_source_must_hold_a_vllm_package(tmp_path):
    project = write_project(tmp_path / "p", {"sentinel.py": SUBCLASS}, config='vllm-source = "no-such-dir"\n')
    proc = run_ftlint("check", "sentinel.py", cwd=project)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert (
        f"{project / 'pyproject.toml'}: [tool.ftlint] vllm-source: no vllm package (vllm/__init__.py) under "
        in proc.stderr
    )


@pytest.mark.vllm
@pytest.mark.ftlint_verify(False)  # runs a bad handler on purpose
@pytest.mark.parametrize("text, ftr", [(SUBCLASS, ["FTR01"]), (EVICTS_FIRST, [])], ids=["subclass", "evicts-first"])
def test_the_static_verdicts_hold_on_the_runtime_harness(tmp_path, text, ftr):
    """The handlers above, run on vLLM 0.34.0's real scheduler (CPU) after a failed decode
    step: the FT007 subclass leaves the dirty tail hashed (FTR01), the silent one does not."""
    from ftlint.runtime import check_fault_handling, vllm_cpu

    vllm_cpu.setup()
    namespace: dict = {}
    exec(compile(text, str(tmp_path / "sentinel.py"), "exec"), namespace)  # the linted module's own code
    sched = vllm_cpu.build_scheduler()
    prompt = vllm_cpu.prompt_tokens(1, 47)
    vllm_cpu.decode_fault(sched, {"r0": prompt, "r1": vllm_cpu.prompt_tokens(2, 47)})
    sentinel = namespace["MySentinel"](vllm_cpu.StandInEngine(sched), sched.vllm_config.parallel_config)
    report = check_fault_handling(sched, sentinel.on_fault, RuntimeError("collective failed"))
    assert sorted({v.code for v in report.violations}) == ftr
    assert sentinel.engine.aborted == ["r0", "r1"]  # vLLM's on_fault ran: every request aborted
    assert (report.dirty_total, report.dirty_evicted) == (2, 0 if ftr else 2)


@pytest.mark.vllm
def test_the_vllm_tree_from_the_static_environment(tmp_path, static_python):
    """The installed vLLM 0.34.0 package linted where vLLM is not importable (its files read
    as any project's): the same single finding as tests/test_vllm_tree.py's run."""
    vllm_dir = _installed_root() / "vllm"
    runs = []
    for python in (sys.executable, static_python):
        proc = subprocess.run(
            [python, "-m", "ftlint", "check", "--format", "json", str(vllm_dir)],
            cwd=tmp_path,
            env=ftlint_env(),
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
        runs.append([(f["path"], f["line"], f["code"], f["message"]) for f in json.loads(proc.stdout)])
    assert runs[0] == runs[1]
    assert [(Path(p).relative_to(vllm_dir).as_posix(), code) for p, _, code, _ in runs[1]] == [
        ("v1/fault_tolerance/engine_core_sentinel.py", "FT007")
    ]


def test_vllm_source_gives_the_api_generation(tmp_path):
    """With no `Request` class in the project and none named by the handler, the
    `vllm-source` tree's `vllm/v1/request.py` says the generation (here a small sample of
    the older API's fields), as the installed vLLM's does."""
    write_project(
        tmp_path / "src",
        {
            "vllm/__init__.py": "",
            "vllm/v1/request.py": """
            class Request:
                def __init__(self):
                    self.num_in_flight_tokens = 0
                    self.num_output_placeholders = 0
                    self.async_tokens_to_discard = 0
            """,
        },
    )
    handler = """
    class Sentinel:
        def on_fault(self, exc):
            for req in list(self.scheduler.running):
                self.scheduler._preempt_request(req, 0.0)
    """
    project = write_project(tmp_path / "p", {"sentinel.py": handler}, config='vllm-source = "../src"\n')
    proc = run_ftlint("check", "--select", "FT008", "sentinel.py", cwd=project)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "`req.num_in_flight_tokens` and `req.num_output_placeholders` are not both reset" in proc.stdout
