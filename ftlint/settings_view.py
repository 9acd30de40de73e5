"""``ftlint check --show-settings``: the configuration a run would use, as text.

Every ``[tool.ftlint]`` key with its resolved value (defaults included) in TOML syntax, the
file it came from, the project root, the cache directory and the rule codes selected after
the command line's ``--select``/``--extend-select``/``--ignore``."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import fields

from ftlint.core.config import CONFIG_KEYS, Config


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {_toml_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)


def _setting_values(config: Config) -> dict[str, object]:
    names = {f.name for f in fields(config)}
    values: dict[str, object] = {}
    for key in CONFIG_KEYS:
        attr = key.replace("-", "_")
        if attr not in names:
            continue
        value = getattr(config, attr)
        if key == "per-file-ignores":
            value = {glob: list(codes) for glob, codes in value}
        values[key] = value
    return values


def render_settings(config: Config, selected: Iterable[str]) -> str:
    source = os.fspath(config.path) if config.path is not None else "none (built-in defaults)"
    table = f"[{config.table}]" if config.table else "(top level)"
    lines = [
        f"# Settings file: {source}",
        f"# Table: {table}",
        f"# Project root: {os.fspath(config.root)}",
        f"# Cache directory: {os.fspath(config.cache_path)}",
        f"# Selected rules: {', '.join(sorted(selected)) or '(none)'}",
    ]
    for key, value in _setting_values(config).items():
        lines.append(f"{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"
