"""`python -m benchscore` is the `benchscore` command."""

import sys

from benchscore.cli import main

sys.exit(main())
