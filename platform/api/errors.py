"""Every API error is JSON: ``{"detail": ..., "problems": [...]}``, with the web form's messages."""

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from competitions.errors import ApplicationError
from recam.submission import SubmissionError
from submissions.quotas import QuotaExceeded


def problems_json(error: SubmissionError) -> list[dict]:
    return [{"file": p.file, "line": p.line, "message": p.message, "text": str(p)} for p in error.problems]


def _flatten(detail: object, prefix: str = "") -> list[str]:
    if isinstance(detail, dict):
        return [m for key, value in detail.items() for m in _flatten(value, f"{prefix}{key}: ")]
    if isinstance(detail, list):
        return [m for value in detail for m in _flatten(value, prefix)]
    return [f"{prefix}{detail}"]


def api_exception_handler(exc: Exception, context: dict) -> Response | None:
    """Service errors -> 400 with their message; DRF's own errors -> one ``detail`` string."""
    if isinstance(exc, SubmissionError):
        count = len(exc.problems)
        body = {
            "detail": f"the upload is invalid: {count} problem{'s' if count != 1 else ''}",
            "problems": problems_json(exc),
        }
        return Response(body, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, QuotaExceeded):
        return Response({"detail": exc.message}, status=status.HTTP_429_TOO_MANY_REQUESTS)
    if isinstance(exc, ApplicationError):
        return Response({"detail": exc.message}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, DjangoValidationError):
        return Response({"detail": "; ".join(exc.messages)}, status=status.HTTP_400_BAD_REQUEST)
    response = exception_handler(exc, context)
    if response is not None and isinstance(exc, exceptions.ValidationError):
        response.data = {"detail": "; ".join(_flatten(exc.detail)), "errors": exc.detail}
    return response
