"""Run `python -m cli` as `smart-table`."""

import sys

from cli.main import main

sys.exit(main())
