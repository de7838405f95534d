"""A development checkout works from a plain shell: the set-up writes a .env with a generated key, and
the documented `python manage.py recam_annotator alice bob` then runs without make's environment."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLEARED = ("DJANGO_ENV", "DEBUG", "SECRET_KEY", "DATABASE_URL", "ENV_FILE", "VAR_DIR")


def _plain_env(**extra: str) -> dict[str, str]:
    """A shell's environment without anything make or the test configuration sets for Django."""
    return {k: v for k, v in os.environ.items() if k not in CLEARED} | extra


def _write_env(target: Path, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(ROOT / "scripts/write_env.sh"), str(target)],
        env=_plain_env(**extra),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_setup_writes_a_development_env_with_a_generated_key_once(tmp_path):
    target = tmp_path / ".env"
    assert _write_env(target, DJANGO_ENV="development").returncode == 0
    values = dict(
        line.split("=", 1) for line in target.read_text().splitlines() if line and not line.startswith("#")
    )
    assert values["DJANGO_ENV"] == "development"
    assert len(values["SECRET_KEY"]) >= 50
    assert values["SECRET_KEY"] != "dev-only-insecure-key-change-me"
    assert target.stat().st_mode & 0o077 == 0  # readable by its owner only
    before = target.read_text()
    _write_env(target, DJANGO_ENV="development")
    assert target.read_text() == before  # never overwritten: the key stays


def test_setup_writes_no_env_outside_development(tmp_path):
    target = tmp_path / ".env"
    assert _write_env(target, DJANGO_ENV="production").returncode == 0
    assert _write_env(target).returncode == 0
    assert not target.exists()


@pytest.mark.slow
def test_documented_commands_work_from_a_plain_shell(tmp_path):
    env_file = tmp_path / ".env"
    _write_env(env_file, DJANGO_ENV="development")
    env = _plain_env(ENV_FILE=str(env_file), VAR_DIR=str(tmp_path / "var"))
    (tmp_path / "var").mkdir()

    def manage(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    assert manage("migrate", "-v", "0").returncode == 0
    create = "from django.contrib.auth.models import User; [User.objects.create(username=n) for n in ('alice', 'bob')]"
    assert manage("shell", "-c", create).returncode == 0
    result = manage("recam_annotator", "alice", "bob")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["alice: annotator", "bob: annotator"]
    without = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=_plain_env(ENV_FILE=str(tmp_path / "missing.env")),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "SECRET_KEY is unset" in without.stderr  # production-safe without the .env
