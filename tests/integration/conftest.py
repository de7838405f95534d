"""A real Celery worker process on the local Redis, scoring into the test database.

The worker gets its own Redis database number and queue name (env RECAM_IT_REDIS_DB, default 11; the
queue carries this process's pid), so other engineers' workers never take these tasks and ours never
takes theirs. It opens the same test database: a file on SQLite, the per-run test database on PostgreSQL.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
REDIS_DB = int(os.environ.get("RECAM_IT_REDIS_DB", "11"))
BROKER_URL = f"redis://127.0.0.1:6379/{REDIS_DB}"
QUEUE = f"recam-it-{os.getpid()}"


def _worker_database_url() -> str:
    name = connection.settings_dict["NAME"]  # the test database, once pytest-django created it
    if connection.vendor == "sqlite":
        return f"sqlite:///{name}"
    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(parts._replace(path=f"/{name}"))


@pytest.fixture(scope="session")
def scoring_worker(django_db_setup, django_db_blocker, tmp_path_factory):
    """Start `celery -A tasks.app worker` once per session; yield its storage folders."""
    try:
        redis.Redis.from_url(BROKER_URL).ping()
    except redis.exceptions.ConnectionError:
        pytest.fail(f"no Redis at {BROKER_URL}: run scripts/ensure_redis.sh (make test does)")
    storage = tmp_path_factory.mktemp("worker-storage")
    log = storage / "worker.log"
    with django_db_blocker.unblock():
        database_url = _worker_database_url()
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": BROKER_URL,
        "CELERY_RESULT_BACKEND": BROKER_URL,
        "CELERY_SCORING_QUEUE": QUEUE,
        "MEDIA_ROOT": str(storage / "media"),
        "GOLD_ROOT": str(storage / "gold"),
        "DATASETS_ROOT": str(storage / "datasets"),
        "CELERY_CPU_QUEUE": QUEUE,
        "CELERY_TASK_ALWAYS_EAGER": "false",
    }
    command = [sys.executable, "-m", "celery", "-A", "tasks.app", "worker", "-Q", QUEUE, "--pool", "solo"]
    command += [
        "-l",
        "info",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "-n",
        f"{QUEUE}@%h",
    ]
    with log.open("wb") as handle:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT)
    try:
        _wait_ready(process, log)
        yield storage
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        redis.Redis.from_url(BROKER_URL).delete(QUEUE)
        with django_db_blocker.unblock():
            _end_other_sessions(this_process_too=True)


def _reconnect_if_ended() -> None:
    """An earlier test's ``_end_other_sessions`` (PostgreSQL) can end a session this process still holds;
    Django would raise on its next query instead of reconnecting, so drop a dead connection first."""
    if connection.connection is not None and not connection.is_usable():
        connection.close()


def _end_other_sessions(attempts: int = 20, *, this_process_too: bool = False) -> None:
    """End the sessions other processes (stopped or killed workers) hold on this run's own test database.

    Mid-run, this process's own sessions (its live server's request threads) are left alone: ending them
    broke the next test's queries. At the end of the run (``this_process_too``) every other session is
    ended, so that the test database can be dropped."""
    if connection.vendor != "postgresql":
        return
    others = "FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
    if not this_process_too:
        others += " AND application_name <> current_setting('application_name')"
    with connection.cursor() as cursor:
        for _ in range(attempts):
            cursor.execute(f"SELECT count(*) {others}")
            if cursor.fetchone()[0] == 0:
                return
            time.sleep(0.1)
        cursor.execute(f"SELECT pg_terminate_backend(pid) {others}")


def _wait_ready(process: subprocess.Popen, log: Path, attempts: int = 240) -> None:
    for _ in range(attempts):  # up to a minute on a busy machine
        if process.poll() is not None:
            pytest.fail(f"the celery worker exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        if b" ready." in log.read_bytes():
            return
        time.sleep(0.25)
    pytest.fail(f"the celery worker did not get ready:\n{log.read_text()[-3000:]}")


@pytest.fixture
def worker(scoring_worker, transactional_db, settings):
    """Point this process's producer and storage at the worker's broker, queue and folders."""
    from tasks.app import app

    settings.CELERY_SCORING_QUEUE = QUEUE
    settings.MEDIA_ROOT = scoring_worker / "media"
    settings.GOLD_ROOT = scoring_worker / "gold"
    settings.DATASETS_ROOT = scoring_worker / "datasets"
    settings.CELERY_CPU_QUEUE = QUEUE  # console generation jobs go to this test's worker too
    saved = app.conf.broker_url, app.conf.result_backend, app.conf.task_always_eager
    app.conf.broker_url = app.conf.result_backend = BROKER_URL
    app.conf.task_always_eager = False
    _drop_producer_pools(app)  # pools made for another broker must not be reused
    _reconnect_if_ended()
    yield scoring_worker
    app.conf.broker_url, app.conf.result_backend, app.conf.task_always_eager = saved
    _drop_producer_pools(app)


def _drop_producer_pools(app) -> None:
    app._pool = None
    app.amqp._producer_pool = None


def wait_for_status(submission, statuses: set[str], attempts: int = 240):
    """Poll the database until the worker has moved the submission to one of ``statuses``."""
    for _ in range(attempts):
        submission.refresh_from_db()
        if submission.status in statuses:
            return submission
        time.sleep(0.25)
    keys = redis.Redis.from_url(BROKER_URL).keys(f"{QUEUE}*")
    pytest.fail(
        f"submission {submission.pk} still {submission.status!r} (waited for {statuses}); broker keys {keys}"
    )


@pytest.fixture
def example_zip_bytes(recam_data_dir) -> bytes:
    from recam.submission import make_zip

    folder = recam_data_dir / "submission_example"
    return make_zip({name: (folder / name).read_bytes() for name in ("subtask1.csv", "subtask2.csv")})


@pytest.fixture
def chromium(monkeypatch):
    """A headless Chromium browser (pages are opened by the test, with its own viewport)."""
    from tests.integration.test_browser import CHROMIUM, CHROMIUM_ARGS

    sync_api = pytest.importorskip("playwright.sync_api")
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
