"""`verl-week backup FILE` and `verl-week restore FILE`: the SQLite database copied online to a
new file, or replaced by such a copy."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from service import operator_text
from service.errors import EXIT_OK

if TYPE_CHECKING:
    from service.cli.common import Subparsers
    from service.settings import Settings


BACKUP_HELP = """\
Copy the SQLite database of DATABASE_URL to FILE with SQLite's online backup API: a
consistent copy while the service runs and writes (a `cp` of the live file may not be).
FILE must not exist yet. The copy holds the report-link signing key: keep it where only
the service's operators can read it. PostgreSQL: use pg_dump (README: Backups and upgrades)."""
BACKUP_EXAMPLE = """\
example (nightly, from cron or a systemd timer, with the service's settings):
  verl-week backup /backups/verl-week-$(date +%F).db"""
RESTORE_HELP = """\
Replace the SQLite database of DATABASE_URL by FILE, a copy `verl-week backup` made:
digests, deliveries, subscriptions and runs become the backup's. Stop the service first,
restore with the same DATABASE_URL, then start it again."""
RESTORE_EXAMPLE = """\
example:
  systemctl stop verl-week      # or: docker compose stop verl-week
  verl-week restore /backups/verl-week-2026-12-01.db
  systemctl start verl-week"""


def register(sub: Subparsers) -> None:
    save = sub.add_parser(
        "backup",
        help="copy the SQLite database, online, to a new FILE",
        description=BACKUP_HELP,
        epilog=BACKUP_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    save.add_argument("file", type=Path, help="the new file (refused if it exists)")
    save.set_defaults(run=run_backup)
    load = sub.add_parser(
        "restore",
        help="replace the SQLite database by a backup FILE",
        description=RESTORE_HELP,
        epilog=RESTORE_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    load.add_argument("file", type=Path, help="a file `verl-week backup` wrote")
    load.set_defaults(run=run_restore)


def run_backup(args: argparse.Namespace, settings: Settings) -> int:
    from service.ops.backup import backup

    size = backup(settings.database_url, args.file)
    sys.stdout.write(operator_text.backed_up(args.file, size) + "\n")
    return EXIT_OK


def run_restore(args: argparse.Namespace, settings: Settings) -> int:
    from service.ops.backup import restore

    tables = restore(settings.database_url, args.file)
    sys.stdout.write(operator_text.restored(args.file, tables) + "\n")
    return EXIT_OK
