"""Production is safe by default (red-team defect 4): the settings read in a fresh interpreter per case."""

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHOW = (
    "import json, config.settings as s; print(json.dumps({k: getattr(s, k) for k in "
    "['DEBUG', 'SESSION_COOKIE_SECURE', 'CSRF_COOKIE_SECURE', 'SECURE_SSL_REDIRECT', 'SECURE_HSTS_SECONDS']}))"
)
NAMES = ("DJANGO_ENV", "DEBUG", "SECRET_KEY", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS")


def _settings(**env: str) -> subprocess.CompletedProcess:
    clean = {
        k: v for k, v in os.environ.items() if k not in NAMES and not k.startswith(("SESSION_", "CSRF_"))
    }
    return subprocess.run(
        [sys.executable, "-c", SHOW],
        cwd=ROOT / "platform",
        # ENV_FILE: not the checkout's own .env (scripts/setup.sh writes one with DJANGO_ENV=development)
        env={**clean, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'platform'}", "ENV_FILE": os.devnull, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("key", [None, "dev-only-insecure-key-change-me"])
def test_production_refuses_a_missing_or_default_secret_key(key):
    result = _settings(DJANGO_ENV="production", **({"SECRET_KEY": key} if key else {}))
    assert result.returncode != 0
    assert "ImproperlyConfigured: SECRET_KEY is unset or the development default" in result.stderr


def test_production_has_debug_off_and_secure_cookies_hsts_and_https_redirect():
    result = _settings(DJANGO_ENV="production", SECRET_KEY="x" * 50)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        '{"DEBUG": false, "SESSION_COOKIE_SECURE": true, "CSRF_COOKIE_SECURE": true, '
        '"SECURE_SSL_REDIRECT": true, "SECURE_HSTS_SECONDS": 31536000}'
    )


def test_without_a_switch_the_settings_are_production():
    assert _settings().returncode != 0  # no SECRET_KEY: refused, i.e. not the development defaults
    result = _settings(SECRET_KEY="x" * 50)
    assert '"DEBUG": false' in result.stdout


def test_development_is_only_on_when_asked_for():
    result = _settings(DJANGO_ENV="development")
    assert result.returncode == 0, result.stderr
    assert '"DEBUG": true' in result.stdout
    assert '"SESSION_COOKIE_SECURE": false' in result.stdout
    assert "DJANGO_ENV='staging'" in _settings(DJANGO_ENV="staging").stderr


PROBES = [
    "/static/../../manage.py",
    "/static/..%2f..%2fmanage.py",
    "/static/%2e%2e/%2e%2e/etc/passwd",
    "/static/..%5c..%5cmanage.py",
    "/static/%00",
    "/static/css/../../../config/settings.py",
]


@pytest.mark.integration
def test_static_path_traversal_probes_are_404_from_the_server_make_run_uses(tmp_path):
    """scripts/run.sh serves with gunicorn + WhiteNoise; runserver answered these probes with a 500."""
    assert "-m gunicorn config.wsgi:application" in (ROOT / "scripts" / "run.sh").read_text()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "DEBUG": "False", "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    command = [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--pythonpath", "platform"]
    command += ["--bind", f"127.0.0.1:{port}", "--workers", "1"]
    log = (tmp_path / "gunicorn.log").open("wb")
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        statuses = {path: _status(f"http://127.0.0.1:{port}{path}") for path in PROBES}
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert statuses == dict.fromkeys(PROBES, 404), (tmp_path / "gunicorn.log").read_text()


def _status(url: str, attempts: int = 100) -> int:
    for _ in range(attempts):
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.2)
    raise AssertionError(f"gunicorn did not answer {url}")
