"""A transaction aborted for a conflict (deadlock, serialization failure, SQLite's lock) is run again whole."""

import pytest
from django.db import OperationalError

from competitions import retry


class _Cause(Exception):
    def __init__(self, sqlstate: str) -> None:
        super().__init__(sqlstate)
        self.sqlstate = sqlstate


def _error(sqlstate: str = "", message: str = "") -> OperationalError:
    error = OperationalError(message or f"sqlstate {sqlstate}")
    error.__cause__ = _Cause(sqlstate)
    return error


@pytest.mark.parametrize(
    ("error", "conflict"),
    [
        (_error("40P01"), True),  # deadlock detected
        (_error("40001"), True),  # could not serialize access
        (_error(message="database is locked"), True),
        (_error("08006"), False),  # the connection failed: not this helper's to retry
    ],
)
def test_conflicts_are_told_apart_from_other_database_errors(error, conflict):
    assert retry.is_conflict(error) is conflict


def test_a_deadlocked_transaction_is_run_again_and_other_errors_are_not(monkeypatch):
    monkeypatch.setattr(retry, "FIRST_DELAY_S", 0.0)
    calls = []

    def deadlocks_twice() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise _error("40P01")
        return "committed"

    assert retry.retry_on_conflict(deadlocks_twice) == "committed"
    assert len(calls) == 3

    def unreachable() -> None:
        calls.append(1)
        raise _error("08006")

    calls.clear()
    with pytest.raises(OperationalError):
        retry.retry_on_conflict(unreachable)
    assert len(calls) == 1

    def always() -> None:
        raise _error("40001")

    with pytest.raises(OperationalError):
        retry.retry_on_conflict(always, attempts=2)
