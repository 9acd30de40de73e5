import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("FTLINT_NO_CACHE", "1")
# Colour is for terminals: FORCE_COLOR in the environment would colour the text output the
# tests parse (tests/report/test_cli_display.py sets it where it checks colour).
os.environ.pop("FORCE_COLOR", None)
