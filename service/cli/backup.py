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


def register(sub: Subparsers) -> None:
    save = sub.add_parser("backup", help="copy the SQLite database, online, to a new FILE")
    save.add_argument("file", type=Path)
    save.set_defaults(run=run_backup)
    load = sub.add_parser("restore", help="replace the SQLite database by a backup FILE")
    load.add_argument("file", type=Path)
    load.set_defaults(run=run_restore)


def run_backup(args: argparse.Namespace, settings: Settings) -> int:
    from service.backup import backup

    size = backup(settings.database_url, args.file)
    sys.stdout.write(operator_text.backed_up(args.file, size) + "\n")
    return EXIT_OK


def run_restore(args: argparse.Namespace, settings: Settings) -> int:
    from service.backup import restore

    tables = restore(settings.database_url, args.file)
    sys.stdout.write(operator_text.restored(args.file, tables) + "\n")
    return EXIT_OK
