"""`verl-week migrate`: bring the database schema up to date (every process also does it on
start), or with `--to REVISION` take it back to an older revision; then exit."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

from service import operator_text
from service.errors import EXIT_OK

if TYPE_CHECKING:
    from service.cli.common import Subparsers
    from service.settings import Settings


def register(sub: Subparsers) -> None:
    parser = sub.add_parser("migrate", help="bring the database schema up to date, then exit")
    parser.add_argument(
        "--to", metavar="REVISION", help="instead, take the schema back to an older revision"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from service.store.repository import Store

    store = Store.open(settings.database_url, migrate=False)
    if args.to is not None:
        from service.store.schema import downgrade_schema

        went = downgrade_schema(store.engine, args.to)
        back = _revisions(went.after) or operator_text.NO_REVISION
        sys.stdout.write(operator_text.schema_taken_back(_revisions(went.before), back) + "\n")
        return EXIT_OK
    before, after = store.migrate()
    now = _revisions(after)
    if before == after:
        sys.stdout.write(operator_text.schema_up_to_date(now) + "\n")
    else:
        was = _revisions(before) or operator_text.NO_REVISION
        sys.stdout.write(operator_text.schema_upgraded(was, now) + "\n")
    return EXIT_OK


def _revisions(heads: Iterable[str]) -> str:
    return ", ".join(sorted(heads))
