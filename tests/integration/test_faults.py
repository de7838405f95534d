"""Scoring that survives faults, with real processes: a worker killed mid-scoring, Redis restarted with
submissions queued, the database unreachable during an upload.

Redis here is a PRIVATE redis-server on a free loopback port with an append-only file in a tmp folder
(never the shared 6379 one), so it can be killed and restarted. Each test's worker listens on its own queue.
"""

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import OperationalError, connection
from django.urls import reverse

from competitions.services import competition_load_recam
from leaderboards.models import LeaderboardEntry
from recam.submission import make_zip
from submissions.models import Score, Submission, SubmissionFile
from submissions.services import submission_create
from tasks.scoring import score_submission
from teams.services import team_create
from tests.integration.conftest import (
    _drop_producer_pools,
    _end_other_sessions,
    _wait_ready,
    _worker_database_url,
)
from tests.platform.factories import TeamFactory, UserFactory
from tests.platform.helpers import independent_count

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
Status = Submission.Status


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PrivateRedis:
    """A redis-server of our own: append-only file fsynced on every write, so a crash loses nothing."""

    def __init__(self, folder: Path):
        self.folder, self.port = folder, _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder)]
        command += ["--appendonly", "yes", "--appendfsync", "always", "--save", "", "--daemonize", "no"]
        command += ["--logfile", str(self.folder / "redis.log")]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        for _ in range(100):
            try:
                if self.client().ping():
                    return
            except redis.exceptions.ConnectionError:
                time.sleep(0.1)
        pytest.fail(f"the private redis-server did not start:\n{(self.folder / 'redis.log').read_text()}")

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url, socket_connect_timeout=1)


@pytest.fixture(scope="module")
def private_redis(tmp_path_factory):
    server = PrivateRedis(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.kill()


def _drop_connections(app) -> None:
    """Producer pools and the result backend are cached per app: rebuild them for the current broker."""
    _drop_producer_pools(app)
    app._backend_cache = None
    app._local.__dict__.pop("backend", None)


@pytest.fixture
def faults(private_redis, transactional_db, settings, tmp_path, request, monkeypatch):
    """This process sends tasks to the private Redis on a queue of this test; workers share its folders."""
    from tasks.app import app

    # Celery reads these environment variables before its configuration: set (as isolated test runs set
    # them), they would send this process's tasks past the private Redis.
    monkeypatch.delenv("CELERY_BROKER_URL", raising=False)
    monkeypatch.delenv("CELERY_RESULT_BACKEND", raising=False)

    queue = f"faults-{os.getpid()}-{request.node.name[:40]}"
    settings.CELERY_SCORING_QUEUE = queue
    settings.MEDIA_ROOT, settings.GOLD_ROOT = tmp_path / "media", tmp_path / "gold"
    saved = app.conf.broker_url, app.conf.result_backend, app.conf.task_always_eager
    app.conf.broker_url = app.conf.result_backend = private_redis.url
    app.conf.task_always_eager = False
    _drop_connections(app)
    workers: list[subprocess.Popen] = []

    def start_worker(name: str, *, beat: bool = False, **env: str) -> subprocess.Popen:
        log = tmp_path / f"{name}.log"
        environment = {
            **os.environ,
            "DATABASE_URL": _worker_database_url(),
            "CELERY_BROKER_URL": private_redis.url,
            "CELERY_RESULT_BACKEND": private_redis.url,
            "CELERY_SCORING_QUEUE": queue,
            "CELERY_MAINTENANCE_QUEUE": queue,  # beat (-B) sends the reaper here, to this worker
            "MEDIA_ROOT": str(settings.MEDIA_ROOT),
            "GOLD_ROOT": str(settings.GOLD_ROOT),
            "CELERY_TASK_ALWAYS_EAGER": "false",
            **env,
        }
        app_module = "tests.integration.slow_worker" if "SCORING_TEST_DELAY_SECONDS" in env else "tasks.app"
        command = [sys.executable, "-m", "celery", "-A", app_module, "worker", "-Q", queue, "--pool", "solo"]
        command += ["-l", "info", "--without-gossip", "--without-mingle", "--without-heartbeat"]
        command += ["-n", f"{name}-{queue}@%h"]
        if beat:  # Celery beat inside the worker: it sends the reaper task every REAPER_INTERVAL_SECONDS
            command += ["-B", "-s", str(tmp_path / f"{name}-beat-schedule")]
        with log.open("wb") as handle:
            process = subprocess.Popen(
                command, cwd=ROOT, env=environment, stdout=handle, stderr=subprocess.STDOUT
            )
        workers.append(process)
        _wait_ready(process, log)
        return process

    yield start_worker
    for process in workers:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for process in workers:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    private_redis.client().flushall()
    app.conf.broker_url, app.conf.result_backend, app.conf.task_always_eager = saved
    _drop_connections(app)
    _end_other_sessions()


@pytest.fixture
def practice(recam_data_dir):
    return competition_load_recam(data_dir=recam_data_dir, slug="recam-faults").competition.phases.get(
        kind="practice"
    )


@pytest.fixture
def example_files(recam_data_dir) -> dict[str, bytes]:
    folder = recam_data_dir / "submission_example"
    return {name: (folder / name).read_bytes() for name in ("subtask1.csv", "subtask2.csv")}


def _submit(practice, example_files) -> Submission:
    team = TeamFactory(competition=practice.competition)
    return submission_create(phase=practice, team=team, filename="preds.zip", data=make_zip(example_files))


def _wait(submission: Submission, statuses: set[str], seconds: float = 60) -> Submission:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        submission.refresh_from_db()
        if submission.status in statuses:
            return submission
        time.sleep(0.2)
    pytest.fail(
        f"submission {submission.pk} still {submission.status!r} after {seconds} s (wanted {statuses})"
    )


def _assert_scored_once(submission: Submission, example_files, recam_data_dir) -> None:
    assert submission.status == Status.SCORED, submission.failure_reason
    scores = Score.objects.filter(submission=submission)
    assert sorted(scores.values_list("test_subtask", flat=True)) == [1, 2]  # one set of rows
    for score in scores:
        expected = independent_count(
            predictions_csv=example_files[f"subtask{score.test_subtask}.csv"],
            gold_jsonl=recam_data_dir / f"training_data/Task_{score.test_subtask}_dev.jsonl",
        )
        assert (score.correct, score.total) == expected
    entries = LeaderboardEntry.objects.filter(phase=submission.phase, team=submission.team)
    assert sorted(entries.values_list("test_subtask", flat=True)) == [1, 2]


def test_a_worker_killed_mid_scoring_is_replaced_and_scores_once(
    faults, private_redis, practice, example_files, recam_data_dir
):
    first = faults("first", SCORING_TEST_DELAY_SECONDS="60")
    submission = _wait(_submit(practice, example_files), {Status.SCORING})
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    submission.refresh_from_db()
    assert (submission.status, submission.attempts) == (Status.SCORING, 1)
    assert not Score.objects.filter(submission=submission).exists()
    # acks_late: the broker still holds the task, in the scoring queue's own hash of deliveries
    assert private_redis.client().hlen(settings.SCORING_BROKER_TRANSPORT_OPTIONS["unacked_key"]) == 1

    # A new worker with beat: the reaper finds the stuck submission (stuck after 1.2 s here) and re-queues it.
    faults("second", beat=True, STUCK_SUBMISSION_MINUTES="0.02", REAPER_INTERVAL_SECONDS="1")
    submission = _wait(submission, {Status.SCORED, Status.FAILED})
    _assert_scored_once(submission, example_files, recam_data_dir)
    assert submission.attempts == 2
    before = list(Score.objects.order_by("id").values_list("id", "correct", "total", "accuracy", "scored_at"))

    # The killed worker's delivery, should Redis hand it out again, finds the work done and leaves it.
    result = score_submission.apply_async(args=[submission.pk], queue=settings.CELERY_SCORING_QUEUE)
    assert result.get(timeout=60) == Status.SCORED
    after = list(Score.objects.order_by("id").values_list("id", "correct", "total", "accuracy", "scored_at"))
    assert after == before


def test_a_killed_scoring_workers_delivery_is_rerun_by_a_restarted_worker_within_a_minute(
    faults, private_redis, practice, example_files, recam_data_dir
):
    """Red-team defect 5: without the reaper, Redis itself hands the killed worker's task out again.

    The scoring queue's visibility timeout (SCORING_VISIBILITY_TIMEOUT, 45 s) replaces the 6 h 10 min of
    the model jobs; a restarted worker sweeps for expired deliveries every 5 s.
    """
    first = faults("first", SCORING_TEST_DELAY_SECONDS="120")
    submission = _wait(_submit(practice, example_files), {Status.SCORING})
    taken = time.monotonic()
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    faults("restarted")  # no beat: the reaper never runs in this test
    submission = _wait(submission, {Status.SCORED, Status.FAILED}, seconds=90)
    waited = time.monotonic() - taken
    _assert_scored_once(submission, example_files, recam_data_dir)
    assert submission.attempts == 2  # the killed run, then the redelivered one
    assert waited < settings.SCORING_VISIBILITY_TIMEOUT + 30, f"re-run after {waited:.0f} s"
    # Nothing is left unacknowledged once the phase's statistics task (sent with a countdown after the
    # score, so held by the worker until it runs) has run too.
    unacked = settings.SCORING_BROKER_TRANSPORT_OPTIONS["unacked_key"]
    deadline = time.monotonic() + 30
    while private_redis.client().hlen(unacked) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert private_redis.client().hlen(unacked) == 0


def _upload_burst(
    practice, data: bytes, teams: list, *, threads: int, pause: float
) -> tuple[list[threading.Thread], list]:
    """Upload one file per entry of ``teams`` from ``threads`` threads at once (each its own connection),
    ``pause`` seconds apart in each thread, as scripted clients do."""
    errors: list[Exception] = []

    def upload(chunk: list) -> None:
        try:
            for team in chunk:
                submission_create(phase=practice, team=team, filename="preds.zip", data=data)
                time.sleep(pause)
        except Exception as error:  # reported by the test
            errors.append(error)
        finally:
            connection.close()

    started = [threading.Thread(target=upload, args=(teams[i::threads],)) for i in range(threads)]
    for thread in started:
        thread.start()
    return started, errors


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the default set-up's database (SQLite)")
def test_a_scoring_worker_killed_during_a_burst_of_40_uploads_on_sqlite_loses_nothing(
    faults, private_redis, practice, example_files, recam_data_dir
):
    """Red-team defect: on SQLite, uploads and scorings fought over the write lock ("database is locked"),
    and after a worker kill 6 of 40 scorings gave up after 5 quick retries and waited minutes for the
    reaper. Every submission is scored within a minute of the worker's restart."""
    # 20 teams x 2 uploads (the red team's set-up was 20 x 3). The scoring worker's cost per file grows
    # with the board (its statistics); the subject here is the burst and the kill, not a big board.
    practice.max_submissions_per_day = practice.max_submissions_total = None
    practice.save(update_fields=["max_submissions_per_day", "max_submissions_total"])
    teams = [TeamFactory(competition=practice.competition) for _ in range(20)] * 2
    # Fewer bootstrap resamples for the board's intervals, for the same reason.
    fast_statistics = {"RECAM_BOOTSTRAP_RESAMPLES": "50"}
    first = faults("first", SCORING_TEST_DELAY_SECONDS="0.2", **fast_statistics)
    threads, errors = _upload_burst(practice, make_zip(example_files), teams, threads=4, pause=0.5)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and Submission.objects.filter(status=Status.SCORED).count() < 2:
        time.sleep(0.05)  # killed once it has scored a few, in the middle of another
    uploading = sum(thread.is_alive() for thread in threads)
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    for thread in threads:
        thread.join(120)
    assert errors == []
    assert uploading > 0, "the burst was over before the worker was killed"
    assert Submission.objects.count() == 40
    faults("restarted", **fast_statistics)
    restarted = time.monotonic()
    while time.monotonic() - restarted < 60:
        if Submission.objects.exclude(status=Status.SCORED).count() == 0:
            break
        time.sleep(0.5)
    late = list(Submission.objects.exclude(status=Status.SCORED).values_list("pk", "status", "attempts"))
    assert late == [], f"not scored within 60 s of the restart: {late}"
    for submission in Submission.objects.all():
        _assert_scored_once(submission, example_files, recam_data_dir)


def test_submissions_queued_across_a_redis_restart_are_all_scored(
    faults, private_redis, practice, example_files, recam_data_dir
):
    queued = [_submit(practice, example_files) for _ in range(3)]
    assert private_redis.client().llen(settings.CELERY_SCORING_QUEUE) == 3
    private_redis.kill()  # a crash, not a clean shutdown
    private_redis.start()
    assert private_redis.client().llen(settings.CELERY_SCORING_QUEUE) == 3
    queued.append(_submit(practice, example_files))  # this process's producer reconnects by itself
    faults("after-restart")
    for submission in queued:
        submission = _wait(submission, {Status.SCORED, Status.FAILED})
        _assert_scored_once(submission, example_files, recam_data_dir)
        assert submission.attempts == 1


def _database_goes_away(table: str | None):
    """An execute wrapper: every query (table None), or the first INSERT into ``table``, finds no database."""

    def wrapper(execute, sql, params, many, context):
        if table is None or (sql.lstrip().upper().startswith("INSERT") and f'"{table}"' in sql):
            raise OperationalError(
                'connection to server at "127.0.0.1", port 5432 failed: Connection refused'
            )
        return execute(sql, params, many, context)

    return wrapper


def _nothing_stored() -> None:
    assert not Submission.objects.exists()
    assert not SubmissionFile.objects.exists()
    media = Path(settings.MEDIA_ROOT)
    stored_files = [path for path in media.rglob("*") if path.is_file()] if media.exists() else []
    assert stored_files == []  # the file written before the rows was removed with them


@pytest.mark.parametrize("table", ["submissions_submission", None], ids=["mid-upload", "whole-request"])
def test_web_upload_without_a_database_is_a_clear_503(
    db, practice, example_files, client, settings, tmp_path, table, django_capture_on_commit_callbacks
):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.DEBUG = False
    user = UserFactory()
    team_create(competition=practice.competition, user=user, name="Owls")
    client.force_login(user)
    form = {"phase": practice.pk, "file": SimpleUploadedFile("preds.zip", make_zip(example_files))}
    form |= {"trained_on_1": 1, "trained_on_2": 2, "system_name": "s", "description": ""}
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        connection.execute_wrapper(_database_goes_away(table)),
    ):
        response = client.post(reverse("submit", args=[practice.competition.slug]), form)
    assert response.status_code == 503
    text = response.content.decode()
    assert "The database is unreachable right now, so nothing you sent was stored or counted" in text
    assert "Traceback" not in text
    assert response["Retry-After"]
    assert callbacks == []  # no scoring task sent
    _nothing_stored()


def test_api_upload_without_a_database_is_a_clear_503_json(db, practice, example_files, settings, tmp_path):
    from rest_framework.test import APIClient

    from api.services import token_get_or_create

    settings.MEDIA_ROOT = tmp_path / "media"
    user = UserFactory()
    team_create(competition=practice.competition, user=user, name="Owls")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_get_or_create(user=user).key}")
    url = f"/api/phases/practice/submissions/?competition={practice.competition.slug}"
    with connection.execute_wrapper(_database_goes_away("submissions_submission")):
        response = client.post(url, {"file": SimpleUploadedFile("p.zip", make_zip(example_files))})
    assert response.status_code == 503
    assert response.json()["detail"].startswith("The database is unreachable right now")
    _nothing_stored()
