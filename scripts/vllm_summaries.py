"""Write ftlint's shipped summaries of vLLM's own methods from a vLLM source tree.

    python scripts/vllm_summaries.py                 # the installed vLLM (located, not imported)
    python scripts/vllm_summaries.py --source DIR    # DIR holds the `vllm` package

Writes ftlint/analysis/vllm_data/<version>.json (ftlint/analysis/vllm_summaries.py says what
they hold). Never edit that file by hand: tests/test_vllm_summaries.py regenerates it from
the installed vLLM and compares.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from ftlint.analysis import vllm_summaries, vllm_summarise  # noqa: E402

_VERSION = re.compile(r"""^__version__\s*=\s*(?:version\s*=\s*)?['"]([^'"]+)['"]""", re.M)


def installed_source() -> Path:
    spec = importlib.util.find_spec("vllm")
    if spec is None or not spec.origin:
        raise SystemExit("vllm is not installed here; pass --source DIR")
    return Path(spec.origin).parent.parent


def version_of(root: Path) -> str:
    """The release a tree is, from its metadata (never guessed)."""
    for name in ("_version.py",):
        path = root / "vllm" / name
        if path.is_file():
            found = _VERSION.search(path.read_text(encoding="utf-8"))
            if found:
                return found.group(1)
    pkg_info = root / "PKG-INFO"
    if pkg_info.is_file():
        found = re.search(r"^Version: (.+)$", pkg_info.read_text(encoding="utf-8"), re.M)
        if found:
            return found.group(1).strip()
    raise SystemExit(f"{root}: cannot tell the vLLM version (no vllm/_version.py, no PKG-INFO)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, help="directory holding the vllm package (default: the installed vLLM)")
    parser.add_argument("--out", type=Path, help="output file (default: ftlint/analysis/vllm_data/<version>.json)")
    args = parser.parse_args(argv)
    root = (args.source or installed_source()).resolve()
    version = version_of(root)
    text = vllm_summaries.dump(version, vllm_summarise.generate(root))
    out = args.out or REPO / "ftlint" / "analysis" / "vllm_data" / vllm_summaries.data_file(version)
    out.write_text(text, encoding="utf-8")
    print(f"{out}: vLLM {version}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
