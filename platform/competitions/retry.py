"""Run a transaction again when the database aborted it for a conflict: a deadlock or a serialization failure.

PostgreSQL picks one transaction of a deadlock (SQLSTATE 40P01) or of a serialization conflict (40001)
and rolls it back whole; SQLite answers "database is locked" when its busy timeout runs out. Nothing of
that transaction was written, so running the same function again is safe when the function is the
whole transaction (it opens and commits its own ``transaction.atomic()``): never call this inside one.
"""

import logging
import random
import time
from collections.abc import Callable
from typing import TypeVar

from django.db import OperationalError, connection

logger = logging.getLogger(__name__)
CONFLICT_SQLSTATES = ("40P01", "40001")
ATTEMPTS = 4
FIRST_DELAY_S = 0.05
T = TypeVar("T")


def is_conflict(exc: BaseException) -> bool:
    """A deadlock, a serialization failure or SQLite's busy lock: transient, safe to retry whole."""
    cause = exc.__cause__
    sqlstate = getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None)
    return sqlstate in CONFLICT_SQLSTATES or "database is locked" in str(exc)


def retry_on_conflict(function: Callable[[], T], *, attempts: int = ATTEMPTS, what: str = "") -> T:
    """``function()``, run again after a conflict with a jittered exponential back-off (50 ms, 100 ms, ...).

    Inside an outer transaction it runs once: the conflict aborted the outer one too, whose owner retries.
    """
    if connection.in_atomic_block:
        return function()
    for attempt in range(1, attempts + 1):
        try:
            return function()
        except OperationalError as exc:
            if attempt == attempts or not is_conflict(exc):
                raise
            delay = FIRST_DELAY_S * 2 ** (attempt - 1) * (0.5 + random.random())
            logger.warning("%s: %s; retrying in %.0f ms", what or "transaction", exc, delay * 1000)
            time.sleep(delay)
    raise AssertionError("unreachable")
