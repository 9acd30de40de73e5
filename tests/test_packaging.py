"""The sdist as a pip user gets it: `python -m build`, then installed from the sdist into a
fresh venv, where `ftlint check`, `ftlint rule` and `ftlint verify --demo` (without vLLM) work."""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
import venv
from pathlib import Path

import pytest

from tests.helpers import ROOT, copy_checkout

BAD = """class EngineCoreSentinel:
    def on_fault(self, exc):
        self.engine.scheduler.reset_prefix_cache()
"""

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sdist(tmp_path_factory) -> Path:
    """The sdist built from the tracked files (a copy: the build writes egg-info beside them)."""
    src = copy_checkout(tmp_path_factory.mktemp("src"))
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(out), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (archive,) = out.glob("ftlint-*.tar.gz")
    return archive


def members(archive: Path) -> list[str]:
    with tarfile.open(archive) as tar:
        return [m.name.split("/", 1)[1] for m in tar.getmembers() if m.isfile()]


def test_sdist_ships_licence_docs_and_no_partial_test_suite(sdist: Path):
    names = members(sdist)
    assert "LICENSE" in names and "README.md" in names and "pyproject.toml" in names
    with tarfile.open(sdist) as tar:
        licence = tar.extractfile(next(m for m in tar.getmembers() if m.name.endswith("/LICENSE")))
        text = licence.read().decode()
    assert "Apache License" in text and "Version 2.0, January 2004" in text and "END OF TERMS AND CONDITIONS" in text
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = {m for m in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme) if "://" not in m}
    assert linked and linked <= set(names), linked - set(names)
    # Either the whole test suite with its helpers or none of it: none (it needs the checkout's set-up).
    assert [n for n in names if n.startswith("tests/")] == []
    assert {"requirements/vllm-pins.txt", "requirements/vllm-cpu.txt", "requirements/vllm-cpu-constraints.txt"} <= set(
        names
    )


def test_install_from_sdist_into_a_fresh_venv(sdist: Path, tmp_path: Path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    proc = subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(sdist)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ftlint = env_dir / "bin" / "ftlint"
    (tmp_path / "sample.py").write_text(BAD, encoding="utf-8")
    check = subprocess.run(
        [str(ftlint), "check", "--no-cache", "sample.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert check.returncode == 1 and "sample.py:3:9: FT005" in check.stdout, check.stdout + check.stderr
    rule = subprocess.run([str(ftlint), "rule", "FT007"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert rule.returncode == 0 and rule.stdout.startswith("# missing-dirty-eviction (FT007)")
    demo = subprocess.run([str(ftlint), "verify", "--demo"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert demo.returncode == 2 and "Traceback" not in demo.stderr
    assert "(from a checkout of ftlint, `V=$(bash scripts/bootstrap-env)` builds such a venv)" in demo.stderr
    commands = [line.strip() for line in demo.stderr.splitlines() if line.startswith("    ")]
    assert commands[0] == f"{py} -m pip install 'torch==2.13.0' --index-url https://download.pytorch.org/whl/cpu"
    assert commands[2] == f"{py} -m pip install --no-deps vllm==0.34.0 xgrammar==0.2.8 apache-tvm-ffi==0.1.11"
    listed = re.findall(r"(/\S+\.txt)", commands[1])
    assert len(listed) == 2 and all(Path(p).is_file() and str(env_dir) in p for p in listed)  # shipped in the wheel
