"""Digests and stat signatures: the keys everything that remembers a file or a setting
is built from (the result cache, directory listings, `Config.hash`). Standard library
only, and imports nothing of ftlint: the lowest layer, so configuration and discovery
need not import the cache."""

from __future__ import annotations

import json
import os

try:  # hashlib's blake2b without hashlib's OpenSSL start-up (~4 ms of a pre-commit run)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python without the builtin module
    from hashlib import blake2b

__all__ = ["blake2b", "content_hash", "digest", "stat_signature"]


def content_hash(data: bytes) -> str:
    return blake2b(data, digest_size=16).hexdigest()


def digest(*parts: object) -> str:
    blob = json.dumps(parts, sort_keys=True, default=str, separators=(",", ":"))
    return blake2b(blob.encode("utf-8", "surrogateescape"), digest_size=20).hexdigest()


def stat_signature(st: os.stat_result) -> list[int]:
    return [st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns]
