"""vLLM 0.26.0's Python sources, for handlers written for the older stale-output API.

0.26 is the last release with ``async_tokens_to_discard`` and without
``num_stale_output_tokens``; forks built on it still write fault handlers
against it.  Its wheel is fetched once from PyPI (``pip download --no-deps``),
only its ``.py`` files are kept (in ``$FTLINT_VLLM_SRC_CACHE`` or
``~/.cache/ftlint/vllm-src/0.26.0``), and that directory is put ahead of the
installed vLLM 0.34.0 on ``PYTHONPATH`` in the oracle's process.  Its compiled
``vllm._C`` is absent, which the scheduler does not need (as on 0.34).

Three shims make ftlint's CPU harness (written for 0.34) drive 0.26's real
scheduler; none of them touches scheduler or KV-cache code:
- 0.26 has no ``vllm.v1.fault_tolerance`` (the harness imports the sentinel
  module eagerly; the oracle never uses it): an empty module stands in.
- ``KVCacheConfig.needs_kv_cache_zeroing`` is a read-only property there: the
  harness's assignment of the same (False) value is accepted.
- ``ModelRunnerOutput`` needs ``req_id_to_index`` there: it is derived from
  ``req_ids``, as the model runner does.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import types
import zipfile
from pathlib import Path

VERSION = "0.26.0"


def cache_dir() -> Path:
    base = os.environ.get("FTLINT_VLLM_SRC_CACHE")
    root = Path(base) if base else Path.home() / ".cache" / "ftlint" / "vllm-src"
    return root / VERSION


def python_sources(python: str = sys.executable) -> Path:
    """The directory holding 0.26.0's ``vllm`` package (.py files only);
    downloads and extracts the wheel the first time."""
    target = cache_dir()
    if (target / "vllm" / "__init__.py").is_file() and (target / ".complete").exists():
        return target
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ftlint-vllm-wheel-") as tmp:
        proc = subprocess.run(
            [python, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", f"vllm=={VERSION}", "-d", tmp],
            capture_output=True,
            text=True,
            timeout=600,
        )
        wheels = list(Path(tmp).glob("vllm-*.whl"))
        if proc.returncode != 0 or not wheels:
            raise RuntimeError(
                f"cannot fetch vllm=={VERSION} from PyPI for the older-API handlers "
                f"(pip download exit {proc.returncode}):\n{proc.stderr[-2000:]}"
            )
        with zipfile.ZipFile(wheels[0]) as wheel:
            for info in wheel.infolist():
                if info.filename.startswith("vllm/") and info.filename.endswith(".py"):
                    wheel.extract(info, target)
    (target / ".complete").write_text(VERSION + "\n")
    return target


def prepare_process() -> None:
    """Install the three shims (see the module docstring); call before the
    CPU harness imports vLLM, with 0.26's sources first on sys.path."""
    for name in ("vllm.v1.fault_tolerance", "vllm.v1.fault_tolerance.engine_core_sentinel"):
        sys.modules.setdefault(name, types.ModuleType(name))
    import vllm

    if not vllm.__version__.startswith("0.26."):
        raise RuntimeError(f"expected vLLM 0.26 first on the path, got {vllm.__version__} from {vllm.__file__}")
    import vllm.v1.kv_cache_interface as kvi
    import vllm.v1.outputs as outputs

    prop = kvi.KVCacheConfig.__dict__.get("needs_kv_cache_zeroing")
    if isinstance(prop, property) and prop.fset is None:

        def fset(self, value, _get=prop.fget):
            if bool(value) != bool(_get(self)):
                raise ValueError("vLLM 0.26 derives needs_kv_cache_zeroing; it cannot be forced")

        kvi.KVCacheConfig.needs_kv_cache_zeroing = property(prop.fget, fset)

    base = outputs.ModelRunnerOutput

    class ModelRunnerOutput(base):  # type: ignore[misc, valid-type]
        def __init__(self, req_ids, sampled_token_ids=None, **kw):
            kw.setdefault("req_id_to_index", {r: i for i, r in enumerate(req_ids)})
            super().__init__(req_ids=req_ids, sampled_token_ids=sampled_token_ids or [], **kw)

    outputs.ModelRunnerOutput = ModelRunnerOutput
