"""Which vLLM stale-output API the linted code targets (vocabulary.GENERATIONS).

Read from `[tool.ftlint] vllm-api` when set; else from a `Request` class the project
defines (a fork carries its own `vllm/v1/request.py`); else, per handler, from the
counter fields its own module names; else from the `vllm-source` tree's or the installed
vLLM's `v1/request.py`, located without importing vLLM. All unknown: the current API.
"""

from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from ftlint.core import vocabulary as V

_CLASS_REQUEST = re.compile(r"^class Request\b", re.M)


def from_text(text: str) -> V.Generation | None:
    """The generation a `Request` class's source shows, or None."""
    if V.NUM_STALE_OUTPUT_TOKENS in text:
        return V.CURRENT
    if V.ASYNC_DISCARD_FIELD in text or V.NUM_OUTPUT_PLACEHOLDERS in text:
        return V.LEGACY if V.NUM_IN_FLIGHT_TOKENS in text else V.EARLY
    return None


def from_usage(text: str) -> V.Generation | None:
    """The generation fault-path code writes for: a fork handler that resets
    num_output_placeholders and never names num_stale_output_tokens is on the old API."""
    if V.NUM_STALE_OUTPUT_TOKENS in text or V.DROP_STALE_OUTPUT in text:
        return V.CURRENT
    if V.ASYNC_DISCARD_FIELD in text or V.NUM_OUTPUT_PLACEHOLDERS in text:
        return V.LEGACY
    return None


def installed_vllm_request(is_file: Callable[[Path], bool] = Path.is_file) -> Path | None:
    """The installed vLLM's `v1/request.py`, or None. `is_file`: the project's FileProbe
    when linting (a cached result depends on what it found)."""
    try:
        spec = importlib.util.find_spec("vllm")  # locates the package; vLLM is not imported
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    path = Path(spec.origin).parent / "v1" / "request.py"
    return path if is_file(path) else None


def detect(
    setting: str, root: Path, texts: Iterable[str] = (), is_file: Callable[[Path], bool] = Path.is_file
) -> tuple[V.Generation | None, str]:
    """(generation, where it was read from) from the configuration or the project's
    `Request` class; (None, "") when neither says (then each handler's own code, see
    from_usage, and last `fallback()`)."""
    if setting in V.GENERATIONS:
        return V.GENERATIONS[setting], "[tool.ftlint] vllm-api"
    texts = list(texts)
    for text in texts:
        if _CLASS_REQUEST.search(text):
            found = from_text(text)
            if found is not None:
                return found, "the project's Request class"
    for relative in ("vllm/v1/request.py", "v1/request.py"):
        candidate = root / relative
        if is_file(candidate):
            found = from_text(_read(candidate))
            if found is not None:
                return found, os.fspath(candidate)
    return None, ""


def fallback(is_file: Callable[[Path], bool] = Path.is_file, source: Path | None = None) -> tuple[V.Generation, str]:
    """The generation of `source`'s vLLM (`[tool.ftlint] vllm-source`, the directory holding
    the `vllm` package) when set, else the installed vLLM's, else the current API."""
    configured = source / "vllm" / "v1" / "request.py" if source is not None else None
    installed = configured if configured is not None and is_file(configured) else installed_vllm_request(is_file)
    if installed is not None:
        found = from_text(_read(installed))
        if found is not None:
            return found, f"the installed vLLM ({installed})"
    return V.CURRENT, "default (no Request class found)"


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
