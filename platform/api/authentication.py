"""How the API knows who calls: a token (``Authorization: Token <key>``) or the site's session.

Wrong tokens are counted per address (``RATELIMIT_API_TOKEN``); over the limit the API answers 429
whatever the token, so keys cannot be guessed at request speed. HTTP Basic is deliberately absent
(settings.REST_FRAMEWORK): it would check a password on every request, outside the login rate limit.
"""

from django.conf import settings
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed, Throttled

from accounts.ratelimit import key_ip, parse_rate, ratelimit_hit


class RateLimitedTokenAuthentication(TokenAuthentication):
    def authenticate(self, request):
        try:
            return super().authenticate(request)
        except AuthenticationFailed:
            if settings.RATELIMIT_ENABLED:
                rate = parse_rate(text=settings.RATELIMIT_API_TOKEN, setting="RATELIMIT_API_TOKEN")
                decision = ratelimit_hit(scope="api-token", key=key_ip(request), rate=rate)
                if not decision.allowed:
                    raise Throttled(wait=decision.retry_after) from None
            raise
