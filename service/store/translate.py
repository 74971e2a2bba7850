"""Database exceptions → our errors: one line naming the database's problem (no SQL, no
parameters, no URL), so no caller ever shows a user "internal error" for a database failure."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

from sqlalchemy.exc import (
    DataError,
    DBAPIError,
    IntegrityError,
    InternalError,
    NotSupportedError,
    ProgrammingError,
    SQLAlchemyError,
)

from service.errors import StoreError, StoreUnavailableError
from service.store.outage import OUTAGE

P = ParamSpec("P")
R = TypeVar("R")
# the database refused what was asked (a constraint, a permission, a trigger); anything else
# (connect, lock, corrupt file, pool timeout) means it could not be reached or read
_REFUSED = (IntegrityError, DataError, ProgrammingError, NotSupportedError, InternalError)


def _first_line(exc: SQLAlchemyError) -> str:
    cause = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
    lines = str(cause).strip().splitlines()
    return lines[0].strip() if lines else type(cause).__name__


def database_error(exc: SQLAlchemyError) -> StoreError:
    """The StoreError for `exc`: unavailable (connect, lock, timeout) or a refused operation."""
    if isinstance(exc, _REFUSED):
        return StoreError(f"database error: {_first_line(exc)}")
    return StoreUnavailableError(f"database unavailable: {_first_line(exc)}")


@contextmanager
def translated_errors() -> Iterator[None]:
    """Raise any SQLAlchemy failure inside the block as a StoreError; an unavailable database
    is logged once per outage (OUTAGE), not once per call."""
    try:
        yield
    except SQLAlchemyError as exc:
        error = database_error(exc)
        if isinstance(error, StoreUnavailableError):
            OUTAGE.failed(error.message)
        raise error from exc
    except StoreUnavailableError as exc:  # raised by the store itself (a missing SQLite file)
        OUTAGE.failed(exc.message)
        raise
    OUTAGE.answered()


def translated(func: Callable[P, R]) -> Callable[P, R]:
    """`translated_errors` around every call of `func`."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with translated_errors():
            return func(*args, **kwargs)

    return wrapper
