"""Shared fixtures: where the official data lives (RECAM_DATA_DIR, XSUM_PATH)."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _data_dir() -> Path:
    candidates = [
        os.environ.get("RECAM_DATA_DIR"),
        ROOT / "data" / "recam",
        ROOT.parent / "shared" / "data" / "recam",
    ]
    for candidate in candidates:
        if candidate and (Path(candidate) / "training_data").is_dir():
            return Path(candidate)
    return Path(candidates[1])


@pytest.fixture(scope="session")
def recam_data_dir() -> Path:
    path = _data_dir()
    if not (path / "training_data").is_dir():
        pytest.fail(
            f"the official ReCAM data is not at {path}: set RECAM_DATA_DIR (CI uses ../shared/data/recam)"
        )
    return path


@pytest.fixture(scope="session")
def xsum_path() -> Path:
    path = Path(os.environ.get("XSUM_PATH", ROOT.parent / "shared" / "data" / "xsum" / "xsum_test_1k.jsonl"))
    if not path.is_file():
        pytest.fail(f"the XSum sample is not at {path}: set XSUM_PATH")
    return path


@pytest.fixture(autouse=True)
def _fresh_cache(request):
    """Each Django test starts with an empty cache: rate-limit counters key on user ids, which a rolled-back
    test database hands out again, so counts left by one test must not throttle the next."""
    if "django_db_setup" not in request.fixturenames and not request.node.get_closest_marker("django_db"):
        yield
        return
    from django.core.cache import caches

    from submissions.queue import queue_medians_clear

    for cache in caches.all():
        cache.clear()
    queue_medians_clear()
    yield
