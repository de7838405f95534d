"""Platform fixtures: isolated media/gold folders, eager scoring, the real ReCAM competition."""

import pytest

from recam.submission import make_zip


@pytest.fixture(autouse=True)
def isolated_storage(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.GOLD_ROOT = tmp_path / "gold"
    settings.STATIC_ROOT = tmp_path / "static"  # WhiteNoise warns when it is missing
    settings.STATIC_ROOT.mkdir()
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast; tests only


@pytest.fixture(autouse=True)
def eager_celery():
    """Run the scoring task in-process; nothing reaches a broker another worker could read."""
    # Registered here, the tasks sent by name run eagerly (else: send_task).
    import tasks.reaper
    import tasks.scoring
    import tasks.statistics  # noqa: F401
    from tasks.app import app

    saved = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager = app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = saved


@pytest.fixture
def competition(db, recam_data_dir):
    from competitions.services import competition_load_recam

    return competition_load_recam(data_dir=recam_data_dir, slug="recam-test").competition


@pytest.fixture
def practice(competition):
    return competition.phases.get(kind="practice")


@pytest.fixture
def example_files(recam_data_dir) -> dict[str, bytes]:
    folder = recam_data_dir / "submission_example"
    return {name: (folder / name).read_bytes() for name in ("subtask1.csv", "subtask2.csv")}


@pytest.fixture
def example_zip(example_files) -> bytes:
    return make_zip(example_files)
