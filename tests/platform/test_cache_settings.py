"""The cache that holds rate limits and lockouts: Redis by default, shared by every web process."""

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.core.cache.backends.redis import RedisCache

from accounts.ratelimit import Rate, ratelimit_hit

ROOT = Path(__file__).resolve().parents[2]
SHOW = "import json, config.settings as s; print(json.dumps(s.CACHES['default']))"


def _caches(**env: str) -> dict:
    clean = {k: v for k, v in os.environ.items() if k not in ("CACHE_URL", "REDIS_URL")}
    result = subprocess.run(
        [sys.executable, "-c", SHOW],
        cwd=ROOT / "platform",
        env={**clean, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'platform'}", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(result.stdout)


@pytest.mark.skipif((ROOT / ".env").exists(), reason="a local .env may set CACHE_URL")
@pytest.mark.parametrize("django_env", ["production", "development"])
def test_the_default_cache_is_the_projects_redis(django_env):
    """Red-team defect: the local-memory default gave each web worker its own limits and lockouts."""
    cache = _caches(DJANGO_ENV=django_env, SECRET_KEY="x" * 50, REDIS_URL="redis://10.0.0.7:6379/3")
    assert cache["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert cache["LOCATION"] == "redis://10.0.0.7:6379/3"


def test_cache_url_names_another_cache():
    cache = _caches(DJANGO_ENV="development", CACHE_URL="rediscache://127.0.0.1:6379/5")
    assert (cache["BACKEND"], cache["LOCATION"]) == (
        "django.core.cache.backends.redis.RedisCache",
        "redis://127.0.0.1:6379/5",
    )
    assert _caches(DJANGO_ENV="development", CACHE_URL="locmemcache://")["BACKEND"].endswith("LocMemCache")


@pytest.fixture
def two_redis_clients(settings):
    """Two RedisCache clients on the test Redis, as two web processes hold them (a fresh key prefix)."""
    location = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    prefix = f"test-{uuid.uuid4().hex}"
    first, second = (RedisCache(location, {"KEY_PREFIX": prefix}) for _ in range(2))
    yield first, second
    client = first._cache.get_client(write=True)
    for key in client.scan_iter(f"{prefix}:*"):
        client.delete(key)


def test_a_limit_holds_across_two_cache_clients(two_redis_clients, monkeypatch):
    first, second = two_redis_clients
    rate = Rate(count=3, seconds=60)
    decisions = []
    for hit in range(4):
        cache = (first, second)[hit % 2]  # requests alternate between the two processes
        monkeypatch.setattr("accounts.ratelimit.caches", {"default": cache})
        decisions.append(ratelimit_hit(scope="login", key="ip:1.2.3.4", rate=rate, now=600.0 + hit).allowed)
    assert decisions == [True, True, True, False]
