import sys

from ftlint.cli import main

sys.exit(main())
