"""A small cache-backed rate limiter for login, sign-up and upload (web and API): a clear 429 when over.

Each limited view counts its POSTs per client in a fixed window (``RATELIMIT_<SCOPE>`` = "count/seconds")
in the cache ``RATELIMIT_CACHE``. With several server processes that cache must be shared (Redis or
Memcached); the default local-memory cache limits per process. GETs (showing the form) are never counted.
"""

import functools
import hashlib
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from accounts.names import name_key


@dataclass(frozen=True)
class Rate:
    count: int
    seconds: int


@dataclass(frozen=True)
class Decision:
    allowed: bool
    used: int  # requests counted in this window, this one included
    retry_after: int  # seconds until the window ends


def parse_rate(*, text: str, setting: str = "rate") -> Rate:
    """ "10/300" -> Rate(count=10, seconds=300)."""
    count, sep, seconds = text.partition("/")
    try:
        rate = Rate(count=int(count), seconds=int(seconds))
    except ValueError:
        rate = None
    if not sep or rate is None or rate.count < 1 or rate.seconds < 1:
        raise ValueError(f"{setting}={text!r}: write it as COUNT/SECONDS with both at least 1, e.g. 10/300")
    return rate


def ratelimit_hit(*, scope: str, key: str, rate: Rate, now: float | None = None) -> Decision:
    """Count one request of ``key`` in ``scope``; allowed while the window's count stays within the rate."""
    now = time.time() if now is None else now
    window = math.floor(now / rate.seconds)
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]  # any key text makes a valid cache key
    cache_key = f"ratelimit:{scope}:{digest}:{window}"
    cache = caches[settings.RATELIMIT_CACHE]
    cache.add(cache_key, 0, timeout=rate.seconds + 1)
    try:
        used = cache.incr(cache_key)
    except ValueError:  # expired between add and incr
        cache.set(cache_key, 1, timeout=rate.seconds + 1)
        used = 1
    retry_after = max(1, math.ceil((window + 1) * rate.seconds - now))
    return Decision(allowed=used <= rate.count, used=used, retry_after=retry_after)


def client_ip(request: HttpRequest) -> str:
    # REMOTE_ADDR only: X-Forwarded-For is client-controlled unless a proxy rewrites it.
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def key_ip(request: HttpRequest) -> str:
    return f"ip:{client_ip(request)}"


def normalise_username(username: str) -> str:
    """The name as Django authenticates it (NFKC, ``AbstractBaseUser.normalize_username``), casefolded.

    Look-alikes that log in as one account (fullwidth U+FF43 U+FF11 and ``c1``) share one bucket; the casefold
    makes the bucket coarser still (``Ada`` and ``ada``, invisible characters dropped: accounts.names),
    which only ever limits more, never less.
    """
    return name_key(username)


def posted_username(request: HttpRequest) -> str:
    """The ``username`` of a form POST or of a JSON body (the token API takes both)."""
    if request.content_type == "application/json":
        try:
            body = json.loads(request.body or b"{}")
        except (ValueError, UnicodeDecodeError):
            return ""
        value = body.get("username", "") if isinstance(body, dict) else ""
        return value if isinstance(value, str) else ""
    return request.POST.get("username", "")


def key_ip_username(request: HttpRequest) -> str:
    return f"ip:{client_ip(request)}|user:{normalise_username(posted_username(request))}"


def key_user(request: HttpRequest) -> str:
    """The logged-in user, else the API token's user, else the token itself (hashed), else the address.

    The token is read as DRF reads it (scheme in any case, any whitespace): ``Token k``, ``token k`` and
    ``TOKEN  k`` are one client, and one with the user's browser session.
    """
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    parts = request.META.get("HTTP_AUTHORIZATION", "").split()
    if len(parts) == 2 and parts[0].lower() == "token":
        from rest_framework.authtoken.models import Token  # accounts does not depend on the API app

        user_id = Token.objects.filter(key=parts[1]).values_list("user_id", flat=True).first()
        if user_id is not None:
            return f"user:{user_id}"
        return f"token:{hashlib.sha256(parts[1].encode()).hexdigest()}"
    if parts:
        return f"auth:{hashlib.sha256(' '.join(parts).lower().encode()).hexdigest()}"
    return key_ip(request)


MESSAGES = {
    "login": "Too many login attempts",
    "signup": "Too many sign-ups from your address",
    "upload": "Too many uploads",
}


def too_many_requests(request: HttpRequest, *, scope: str, decision: Decision) -> HttpResponse:
    message = (
        f"{MESSAGES.get(scope, 'Too many requests')}: please wait {decision.retry_after} s and try again."
    )
    wants_json = request.path.startswith("/api/") or "application/json" in request.headers.get("Accept", "")
    if wants_json:
        response = JsonResponse({"detail": message, "retry_after": decision.retry_after}, status=429)
    else:
        context = {"message": message, "retry_after": decision.retry_after}
        response = render(request, "ratelimited.html", context, status=429)
    response["Retry-After"] = str(decision.retry_after)
    return response


def ratelimit(*, scope: str, key: Callable[[HttpRequest], str]) -> Callable:
    """Limit a view's POSTs by ``RATELIMIT_<SCOPE>`` per ``key(request)``; over it, a 429 page or JSON."""
    setting = f"RATELIMIT_{scope.upper()}"

    def decorator(view: Callable) -> Callable:
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs):
            if request.method == "POST" and settings.RATELIMIT_ENABLED:
                rate = parse_rate(text=getattr(settings, setting), setting=setting)
                decision = ratelimit_hit(scope=scope, key=key(request), rate=rate)
                if not decision.allowed:
                    return too_many_requests(request, scope=scope, decision=decision)
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
