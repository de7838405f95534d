"""A database error in a view: a clear 503 that says what happened, never a traceback. And a POST to an
address without its trailing slash: redirected, never a 500 (SlashRedirectMiddleware).

Two causes, two messages. The database is **busy** when a write waited for a lock past its timeout
("database is locked" on SQLite) or PostgreSQL ended a transaction to break a deadlock (SQLSTATE 40P01)
or a serialization conflict (40001): the service is up, so "busy, try again in a few seconds". It is
**unreachable** only when the connection itself failed (refused, lost, too many connections, a server
shutting down, a database file that cannot be opened). Any other database error is named as such.

Whatever the view was doing ran inside its transaction, which the error rolled back, and an upload's
stored file is removed by ``submission_create`` when its rows cannot be written: nothing is half
stored, so "nothing you sent was stored or counted" is the whole truth.
"""

import logging
from dataclasses import dataclass

from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseRedirectBase
from django.middleware.common import CommonMiddleware
from django.utils.http import escape_leading_slashes

logger = logging.getLogger(__name__)

NOTHING_STORED = "nothing you sent was stored or counted"
PAGE = (
    "<!doctype html><html lang=en><head><meta charset=utf-8><title>{title} · ReCAM</title>"
    "</head><body><h1>{title}</h1><p>{message}</p></body></html>"
)
# SQLSTATEs: a lock or transaction conflict (the server is fine) and a lost or refused connection.
BUSY_SQLSTATES = {"40P01", "40001", "55P03"}  # deadlock, serialization failure, lock not available
UNREACHABLE_SQLSTATES = {"53300", "57P01", "57P02", "57P03"}  # too many connections, shutdown, crash
SQLITE_BUSY = ("database is locked", "database table is locked", "database is busy")
SQLITE_UNREACHABLE = ("unable to open database file", "disk i/o error")


@dataclass(frozen=True)
class Outage:
    kind: str  # "busy", "unreachable" or "error"
    title: str
    message: str
    retry_after: int


BUSY = Outage(
    "busy",
    "Busy, try again",
    f"The database is busy with other requests right now, so {NOTHING_STORED}. "
    "Please try again in a few seconds.",
    5,
)
UNREACHABLE = Outage(
    "unreachable",
    "Service unavailable",
    f"The database is unreachable right now, so {NOTHING_STORED}. Please try again in a minute.",
    30,
)
ERROR = Outage(
    "error",
    "Service unavailable",
    f"The database could not complete this request, so {NOTHING_STORED}. "
    "Please try again in a minute; the organizers have the details in the server log.",
    30,
)


def _sqlstate(exception: BaseException) -> str | None:
    cause = exception.__cause__
    return getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None)


def database_outage(exception: BaseException) -> Outage | None:
    """What a database exception means for the user; None for anything that is not a database error."""
    if not isinstance(exception, DatabaseError | InterfaceError):
        return None
    text = str(exception).lower()
    state = _sqlstate(exception)
    if state in BUSY_SQLSTATES or any(phrase in text for phrase in SQLITE_BUSY):
        return BUSY
    if isinstance(exception, InterfaceError) or any(phrase in text for phrase in SQLITE_UNREACHABLE):
        return UNREACHABLE
    if isinstance(exception, OperationalError) and (
        state is None or state.startswith("08") or state in UNREACHABLE_SQLSTATES
    ):
        return UNREACHABLE  # psycopg: no SQLSTATE when the connection failed; class 08 = connection
    if isinstance(exception, OperationalError):
        return ERROR
    return None  # integrity and programming errors are bugs: the usual 500 and its report


class DatabaseUnavailableMiddleware:
    """Turn a busy or lost database in a view into a 503 page (or JSON under /api/) with Retry-After."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        outage = database_outage(exception)
        if outage is None:
            return None
        logger.error("database %s during %s %s: %s", outage.kind, request.method, request.path, exception)
        wants_json = request.path.startswith("/api/") or "application/json" in request.headers.get(
            "Accept", ""
        )
        if wants_json:
            response = JsonResponse({"detail": outage.message, "retry_after": outage.retry_after}, status=503)
        else:  # no template: rendering one may need the database (context processors, the session)
            response = HttpResponse(PAGE.format(title=outage.title, message=outage.message), status=503)
        response["Retry-After"] = str(outage.retry_after)
        return response


class PermanentRedirectKeepingMethod(HttpResponseRedirectBase):
    status_code = 308  # the client repeats the request, method and body, at the new address


class SlashRedirectMiddleware(CommonMiddleware):
    """Django's CommonMiddleware, but a POST (PUT, ...) to an address without its trailing slash is
    redirected with 308, which keeps the method and the form, in every mode.

    Django answers such a POST with 301 in production (the browser follows with a GET: the form is lost)
    and raises RuntimeError under DEBUG, a 500 page for ``POST /accounts/login``.
    """

    def get_full_path_with_slash(self, request: HttpRequest) -> str:
        return escape_leading_slashes(request.get_full_path(force_append_slash=True))

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if (
            response.status_code == 404
            and request.method not in ("GET", "HEAD")
            and self.should_redirect_with_slash(request)
        ):
            return PermanentRedirectKeepingMethod(self.get_full_path_with_slash(request))
        return super().process_response(request, response)
