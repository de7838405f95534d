"""The client runs against a real server (pytest-django's live_server) over real HTTP."""

import pytest

from api.services import token_get_or_create
from tests.api.conftest import (  # noqa: F401  (fixtures shared with the API tests)
    _eager_celery,
    alice,
    bob,
    competition,
    example_zip,
    platform_dirs,
)


@pytest.fixture
def server(live_server, transactional_db) -> str:
    return live_server.url


@pytest.fixture
def alice_env(server, alice, monkeypatch) -> dict[str, str]:  # noqa: F811
    env = {"RECAM_URL": server, "RECAM_TOKEN": token_get_or_create(user=alice[0]).key}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


@pytest.fixture
def example_zip_path(example_zip, tmp_path):  # noqa: F811
    path = tmp_path / "predictions.zip"
    path.write_bytes(example_zip)
    return path
