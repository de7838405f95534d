"""Fixtures for the token API: the real ReCAM competition loaded from the official files, two teams."""

import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from api.services import token_get_or_create
from competitions.services import competition_load_recam
from recam.submission import make_zip
from teams.services import team_create


@pytest.fixture
def platform_dirs(settings, tmp_path):
    # A fast hasher: the default PBKDF2 costs ~0.5 s per user on this shared 2-core machine.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.GOLD_ROOT = tmp_path / "gold"
    return tmp_path


@pytest.fixture(autouse=True)
def _eager_celery():
    """Scoring runs in-process when a transaction commits; nothing reaches a broker a worker could read."""
    import tasks.reaper
    import tasks.scoring  # noqa: F401  registered here, the tasks sent by name run eagerly (else: send_task)
    from tasks.app import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager = False


@pytest.fixture
def competition(platform_dirs, recam_data_dir):
    return competition_load_recam(data_dir=recam_data_dir).competition


@pytest.fixture
def practice(competition):
    return competition.phases.get(kind="practice")


def _member(competition, username: str, team_name: str):
    user = get_user_model().objects.create_user(username=username, password=f"{username}-pass-1234")
    team = team_create(competition=competition, user=user, name=team_name)
    return user, team


@pytest.fixture
def alice(competition):
    """(user, team) of team Alpha."""
    return _member(competition, "alice", "Alpha")


@pytest.fixture
def bob(competition):
    """(user, team) of team Beta."""
    return _member(competition, "bob", "Beta")


def token_client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_get_or_create(user=user).key}")
    return client


@pytest.fixture
def example_zip(recam_data_dir) -> bytes:
    """The official example submission (dev ids) zipped, as a participant would upload it."""
    folder = recam_data_dir / "submission_example"
    return make_zip({name: (folder / name).read_bytes() for name in ("subtask1.csv", "subtask2.csv")})


def independent_accuracy(predictions_csv: Path, gold_jsonl: Path) -> tuple[int, int]:
    """(correct, total) counted directly from the files, without the platform's code."""
    gold = [json.loads(line)["label"] for line in gold_jsonl.read_text(encoding="utf-8").splitlines() if line]
    predicted = dict(line.split(",") for line in predictions_csv.read_text(encoding="utf-8").split())
    correct = sum(int(predicted[str(i)]) == label for i, label in enumerate(gold))
    return correct, len(gold)
