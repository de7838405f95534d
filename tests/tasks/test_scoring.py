"""The scoring task: thin, idempotent, late-acked, retried only for transient infrastructure errors."""

from pathlib import Path

import pytest
from django.conf import settings
from django.db.utils import OperationalError

import submissions.scoring
from recam.submission import SubmissionError
from submissions.models import Score, Submission
from submissions.services import submission_create
from tasks.app import app
from tasks.scoring import score_submission
from tests.platform.factories import TeamFactory


@pytest.fixture
def queued(competition, practice, example_zip, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        return submission_create(
            phase=practice, team=TeamFactory(competition=competition), filename="preds.zip", data=example_zip
        )


def test_task_is_late_acked_and_rejected_on_worker_loss():
    assert score_submission.acks_late is True
    assert score_submission.reject_on_worker_lost is True
    assert OperationalError in score_submission.autoretry_for
    assert not any(issubclass(SubmissionError, e) for e in score_submission.autoretry_for)


def test_visibility_timeout_exceeds_the_task_time_limit():
    assert app.conf.broker_transport_options["visibility_timeout"] > settings.CELERY_TASK_TIME_LIMIT
    assert app.conf.task_serializer == "json"


def test_the_scoring_task_finishes_inside_the_scoring_queues_short_visibility_timeout():
    options = settings.SCORING_BROKER_TRANSPORT_OPTIONS
    assert score_submission.name == "submissions.score"
    assert score_submission.time_limit < options["visibility_timeout"] <= 60
    assert options["unacked_key"] != "unacked"  # never restores the model jobs' deliveries


@pytest.mark.parametrize(
    ("queues", "scoring_only"),
    [(["scoring"], True), ("scoring", True), (["scoring", "cpu"], False), ([], False)],
)
def test_only_a_worker_of_the_scoring_queue_alone_gets_the_short_timeout(queues, scoring_only, settings):
    from celery.signals import celeryd_init

    settings.CELERY_SCORING_QUEUE = "scoring"
    conf = type("Conf", (), {"broker_transport_options": {"visibility_timeout": 22200}})()
    celeryd_init.send(sender="w@h", instance=None, conf=conf, options={"queues": queues})
    short = conf.broker_transport_options["visibility_timeout"] == settings.SCORING_VISIBILITY_TIMEOUT
    assert short is scoring_only


def test_running_the_task_twice_leaves_the_same_score_rows(queued):
    assert score_submission.apply(args=[queued.pk]).get() == "scored"
    first = list(
        Score.objects.values_list("id", "test_subtask", "correct", "total", "accuracy", "gold_sha256")
    )
    assert score_submission.apply(args=[queued.pk]).get() == "scored"
    assert (
        list(Score.objects.values_list("id", "test_subtask", "correct", "total", "accuracy", "gold_sha256"))
        == first
    )
    assert Submission.objects.get().attempts == 1


def test_a_transient_database_error_is_retried(queued, monkeypatch):
    real, calls = submissions.scoring.submission_score, []

    def flaky(*, submission_id):
        calls.append(submission_id)
        if len(calls) == 1:
            raise OperationalError("database is locked")
        return real(submission_id=submission_id)

    monkeypatch.setattr(submissions.scoring, "submission_score", flaky)
    # Eagerly, the retry runs at once and its result is the task's result.
    assert score_submission.apply(args=[queued.pk], throw=False).get() == "scored"
    assert calls == [queued.pk, queued.pk]
    queued.refresh_from_db()
    assert queued.status == Submission.Status.SCORED


def test_a_bad_stored_file_is_a_terminal_explained_failure(queued):
    Path(queued.file.path).write_bytes(b"not a zip at all")
    assert score_submission.apply(args=[queued.pk]).get() == "failed"
    queued.refresh_from_db()
    assert queued.attempts == 1
    assert "not a valid zip archive" in queued.failure_reason


@pytest.mark.django_db(transaction=True)
def test_scoring_task_closes_an_expired_database_connection_and_no_other_tasks():
    """Around a scoring task the worker closes a connection past CONN_MAX_AGE (as Django does per request)."""
    import time

    from celery.signals import task_prerun
    from django.db import connection

    connection.ensure_connection()
    connection.close_at = time.monotonic() - 1  # expired
    task_prerun.send(sender=app.tasks["celery.group"], task_id="t", task=None)
    assert connection.connection is not None  # another task's signal: left alone
    task_prerun.send(sender=app.tasks[score_submission.name], task_id="t", task=None)
    assert connection.connection is None
