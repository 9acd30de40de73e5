import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("FTLINT_NO_CACHE", "1")
