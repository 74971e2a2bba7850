"""`python -m service` runs the command line."""

from service.cli import console

raise SystemExit(console())
