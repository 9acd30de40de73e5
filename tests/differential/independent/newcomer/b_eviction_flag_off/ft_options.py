# Options for the fault handler, read once from the environment.
import os

# evict the blocks of the failed step from the prefix cache (experimental)
EVICT_DIRTY_BLOCKS = os.environ.get("FT_EVICT_DIRTY_BLOCKS", "0") == "1"
# print what the handler does
DEBUG = os.environ.get("FT_DEBUG", "1") == "1"
