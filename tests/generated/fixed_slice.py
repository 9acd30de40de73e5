"""The fixed slice test_generated.py runs (and test_generator_static.py checks)."""

SEED = 2026
SIZE = 300
