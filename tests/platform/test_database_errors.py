"""A busy database is not an unreachable one: SQLite's write lock, PostgreSQL's deadlocks, honest 503s."""

import sqlite3
import threading

import psycopg
import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, InterfaceError, OperationalError, connection, transaction
from django.urls import reverse

from config.middleware import BUSY, ERROR, UNREACHABLE, database_outage
from tests.platform.factories import UserFactory

sqlite_only = pytest.mark.skipif(
    not settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"), reason="SQLite's locking"
)


def _wrapped(django_error: type[Exception], cause: Exception) -> Exception:
    """A Django database error as Django raises it: the driver's exception is its cause."""
    try:
        raise django_error(str(cause)) from cause
    except django_error as error:
        return error


@pytest.mark.parametrize(
    ("error", "outage"),
    [
        (_wrapped(OperationalError, sqlite3.OperationalError("database is locked")), BUSY),
        (_wrapped(OperationalError, psycopg.errors.DeadlockDetected("deadlock detected")), BUSY),
        (_wrapped(OperationalError, psycopg.errors.SerializationFailure("could not serialize")), BUSY),
        (_wrapped(OperationalError, psycopg.OperationalError("connection refused")), UNREACHABLE),
        (_wrapped(OperationalError, psycopg.errors.TooManyConnections("too many clients")), UNREACHABLE),
        (_wrapped(OperationalError, psycopg.errors.AdminShutdown("terminating connection")), UNREACHABLE),
        (_wrapped(InterfaceError, psycopg.InterfaceError("connection already closed")), UNREACHABLE),
        (_wrapped(OperationalError, sqlite3.OperationalError("unable to open database file")), UNREACHABLE),
        (_wrapped(OperationalError, psycopg.errors.QueryCanceled("statement timeout")), ERROR),
        (_wrapped(IntegrityError, psycopg.errors.UniqueViolation("duplicate key")), None),
        (ValueError("not a database error"), None),
    ],
)
def test_database_errors_are_told_apart(error, outage):
    assert database_outage(error) is outage


def _database_is_locked(execute, sql, params, many, context):
    raise OperationalError("database is locked")


def test_a_locked_database_is_a_503_busy_try_again_with_retry_after(db, client, settings):
    """Red-team defect: "database is locked" was answered "the database is unreachable"."""
    settings.DEBUG = False
    user = UserFactory()
    client.force_login(user)
    with connection.execute_wrapper(_database_is_locked):
        page = client.post(reverse("signup"), {"username": "ada"})
        api = client.get("/api/submissions/")
    assert page.status_code == api.status_code == 503
    assert "Busy, try again" in page.content.decode()
    assert "unreachable" not in page.content.decode()
    assert api.json()["detail"].startswith("The database is busy with other requests right now")
    assert page["Retry-After"] == api["Retry-After"] == "5"


@sqlite_only
def test_sqlite_runs_in_wal_mode_with_a_busy_timeout(db):
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0] == "wal"
        cursor.execute("PRAGMA busy_timeout")
        assert cursor.fetchone()[0] >= 10_000
    assert connection.transaction_mode == "IMMEDIATE"


@sqlite_only
@pytest.mark.django_db(transaction=True)
def test_a_transaction_that_reads_then_writes_is_not_refused_by_a_concurrent_writer():
    """A deferred SQLite transaction that read before another connection wrote cannot upgrade its lock:
    "database is locked" at once, whatever the timeout. Transactions that begin IMMEDIATE wait instead."""
    UserFactory(username="reader")
    have_read, other_wrote = threading.Event(), threading.Event()
    errors: list[Exception] = []

    def writer() -> None:
        try:
            have_read.wait(10)
            with transaction.atomic():
                User.objects.create(username="writer")
            other_wrote.set()
        except Exception as error:  # reported by the assertion below
            errors.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        with transaction.atomic():
            reader = User.objects.get(username="reader")
            have_read.set()
            other_wrote.wait(2)  # IMMEDIATE: the writer waits for this transaction, so this times out
            reader.first_name = "updated"
            reader.save(update_fields=["first_name"])
    except OperationalError as error:
        errors.append(error)
    thread.join(30)
    assert errors == []
    assert set(User.objects.values_list("username", flat=True)) == {"reader", "writer"}
