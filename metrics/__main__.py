"""`python -m benchscore` is the `benchscore` command."""

from benchscore.cli import main

raise SystemExit(main())
