"""`python -m service` runs the command line."""

from service.cli import main

raise SystemExit(main())
