"""The database unreachable (down, restarting, out of connections): a clear 503, never a traceback page.

Whatever the view was doing ran inside its transaction, which the database error rolled back, and an
upload's stored file is removed by ``submission_create`` when its rows cannot be written: nothing is
half stored, so "try again in a minute" is the whole truth.
"""

import logging

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse

logger = logging.getLogger(__name__)

MESSAGE = (
    "The database is unreachable right now, so nothing you sent was stored or counted. "
    "Please try again in a minute."
)
PAGE = (
    "<!doctype html><html lang=en><head><meta charset=utf-8><title>Service unavailable · ReCAM</title>"
    "</head><body><h1>Service unavailable</h1><p>{message}</p></body></html>"
)
RETRY_AFTER_SECONDS = 30


class DatabaseUnavailableMiddleware:
    """Turn a lost database connection in a view into a 503 page (or JSON under /api/)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        logger.error("database unreachable during %s %s: %s", request.method, request.path, exception)
        wants_json = request.path.startswith("/api/") or "application/json" in request.headers.get(
            "Accept", ""
        )
        if wants_json:
            response = JsonResponse({"detail": MESSAGE}, status=503)
        else:  # no template: rendering one may need the database (context processors, the session)
            response = HttpResponse(PAGE.format(message=MESSAGE), status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
