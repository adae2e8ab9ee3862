"""Run `python -m smart_table` as `smart-table`."""

import sys

from smart_table.main import main

sys.exit(main())
