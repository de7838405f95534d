"""The reaper re-queues submissions stuck in queued or scoring, and fails them after too many tries."""

import datetime as dt
import importlib
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from leaderboards.models import LeaderboardEntry
from submissions.models import Score, Submission
from submissions.reaper import INFRASTRUCTURE_FAILURE, is_infrastructure_failure
from submissions.services import submission_create, submissions_reap
from tasks.app import TASK_MODULES, app
from tests.platform.factories import TeamFactory

Status = Submission.Status


@pytest.fixture
def lost(competition, practice, example_zip, django_capture_on_commit_callbacks):
    """A valid submission whose scoring task never reached a worker (the on-commit send is dropped)."""
    with django_capture_on_commit_callbacks(execute=False):
        return submission_create(
            phase=practice, team=TeamFactory(competition=competition), filename="preds.zip", data=example_zip
        )


def _age(submission: Submission, *, minutes: float, **fields) -> None:
    past = timezone.now() - dt.timedelta(minutes=minutes)
    values = {"queued_at": past, **fields}
    if fields.get("status") == Status.SCORING:
        values.update(scoring_started_at=past, lease_expires_at=past + dt.timedelta(seconds=300))
    Submission.objects.filter(pk=submission.pk).update(**values)


def test_a_recently_queued_submission_is_left_alone(lost, django_capture_on_commit_callbacks):
    _age(lost, minutes=1)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        report = submissions_reap(stuck_minutes=5, max_attempts=3)
    assert (report.requeued, report.failed, callbacks) == ((), (), [])
    assert Submission.objects.get(pk=lost.pk).status == Status.QUEUED


def _scoring_sends(callbacks: list) -> list:
    """The on-commit callbacks that send a scoring task (a changed board also asks for its statistics)."""
    return [c for c in callbacks if "statistics_request" not in getattr(c, "__qualname__", "")]


def test_a_lost_queued_submission_is_requeued_and_scored(lost, django_capture_on_commit_callbacks):
    _age(lost, minutes=6)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        report = submissions_reap(stuck_minutes=5, max_attempts=3)
    assert report.requeued == (lost.pk,)
    assert len(_scoring_sends(callbacks)) == 1  # one task sent, on commit
    lost.refresh_from_db()
    assert lost.status == Status.SCORED
    assert lost.attempts == 2  # the lost delivery, then the run that scored it
    assert Score.objects.filter(submission=lost).count() == 2


def test_a_submission_stuck_in_scoring_is_scored_once(lost, practice, django_capture_on_commit_callbacks):
    _age(lost, minutes=6, status=Status.SCORING, attempts=1)
    with django_capture_on_commit_callbacks(execute=True):
        report = submissions_reap(stuck_minutes=5, max_attempts=3)
    assert report.requeued == (lost.pk,)
    lost.refresh_from_db()
    assert (lost.status, lost.attempts, lost.failure_reason) == (Status.SCORED, 2, "")
    assert sorted(Score.objects.filter(submission=lost).values_list("test_subtask", flat=True)) == [1, 2]
    assert LeaderboardEntry.objects.filter(phase=practice, team=lost.team).count() == 2


def test_scoring_past_its_lease_is_stuck_even_if_recent(lost, django_capture_on_commit_callbacks):
    now = timezone.now()
    Submission.objects.filter(pk=lost.pk).update(
        status=Status.SCORING,
        attempts=1,
        scoring_started_at=now,
        lease_expires_at=now - dt.timedelta(seconds=1),
    )
    with django_capture_on_commit_callbacks(execute=False):
        report = submissions_reap(stuck_minutes=60, max_attempts=3)
    assert report.requeued == (lost.pk,)
    assert Submission.objects.get(pk=lost.pk).status == Status.QUEUED


def test_after_the_last_attempt_it_fails_as_an_infrastructure_failure(
    lost, practice, django_capture_on_commit_callbacks
):
    _age(lost, minutes=6, status=Status.SCORING, attempts=3)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        report = submissions_reap(stuck_minutes=5, max_attempts=3)
    assert (report.requeued, report.failed, _scoring_sends(callbacks)) == ((), (lost.pk,), [])
    lost.refresh_from_db()
    assert lost.status == Status.FAILED
    assert lost.failure_reason.startswith(INFRASTRUCTURE_FAILURE)
    assert "3 attempts" in lost.failure_reason
    assert "does not count against your team's quota" in lost.failure_reason
    assert is_infrastructure_failure(submission=lost)
    assert not Score.objects.filter(submission=lost).exists()
    assert not LeaderboardEntry.objects.filter(phase=practice, team=lost.team).exists()


def test_a_queue_that_keeps_losing_it_fails_it_too(lost, django_capture_on_commit_callbacks):
    outcomes = []
    for _ in range(3):
        _age(lost, minutes=6)
        with django_capture_on_commit_callbacks(execute=False):
            report = submissions_reap(stuck_minutes=5, max_attempts=3)
        outcomes.append((report.requeued, report.failed))
    assert outcomes == [((lost.pk,), ()), ((lost.pk,), ()), ((), (lost.pk,))]
    assert Submission.objects.get(pk=lost.pk).status == Status.FAILED


@pytest.mark.parametrize("status", [Status.SCORED, Status.FAILED, Status.WAITING_GOLD])
def test_finished_submissions_are_never_touched(lost, status, django_capture_on_commit_callbacks):
    _age(lost, minutes=600, status=status, attempts=1)
    with django_capture_on_commit_callbacks(execute=True):
        report = submissions_reap(stuck_minutes=5, max_attempts=3)
    assert (report.requeued, report.failed) == ((), ())
    assert Submission.objects.get(pk=lost.pk).status == status


def test_settings_are_the_defaults(lost, settings, django_capture_on_commit_callbacks):
    settings.STUCK_SUBMISSION_MINUTES = 30
    _age(lost, minutes=20)
    with django_capture_on_commit_callbacks(execute=False):
        assert submissions_reap().requeued == ()
        settings.STUCK_SUBMISSION_MINUTES = 10
        assert submissions_reap().requeued == (lost.pk,)


def test_max_attempts_below_one_is_refused(db):
    with pytest.raises(ValueError, match="SCORING_MAX_ATTEMPTS must be at least 1, not 0"):
        submissions_reap(max_attempts=0)


def test_beat_runs_the_registered_reaper_task(lost, django_capture_on_commit_callbacks):
    entry = settings.CELERY_BEAT_SCHEDULE["reap-stuck-submissions"]
    for module in TASK_MODULES:  # what every worker (and beat) imports
        importlib.import_module(module)
    assert entry["task"] in app.tasks
    assert entry["schedule"] <= 60 * settings.STUCK_SUBMISSION_MINUTES
    _age(lost, minutes=6)
    with django_capture_on_commit_callbacks(execute=True):
        result = app.tasks[entry["task"]].apply().get()
    assert result == {"requeued": [lost.pk], "failed": []}
    assert Submission.objects.get(pk=lost.pk).status == Status.SCORED


def test_the_reaper_has_a_queue_that_the_scoring_worker_does_not_serve():
    """Red-team defect: the reaper was sent to the scoring queue, so a dead scoring worker took it down too."""
    entry = settings.CELERY_BEAT_SCHEDULE["reap-stuck-submissions"]
    assert entry["options"]["queue"] == settings.CELERY_MAINTENANCE_QUEUE
    assert settings.CELERY_MAINTENANCE_QUEUE != settings.CELERY_SCORING_QUEUE
    run_sh = (Path(__file__).resolve().parents[2] / "scripts" / "run.sh").read_text()
    assert '-Q "${CELERY_MAINTENANCE_QUEUE:-maintenance}"' in run_sh  # served by a worker of its own


def test_scoring_retries_outlast_a_burst_without_jitter():
    """Red-team defect: 5 retries with full jitter (waits drawn from 0 up) gave up within seconds."""
    import tasks.scoring

    task = tasks.scoring.score_submission
    assert task.retry_jitter is False
    waits = [min(task.retry_backoff * 2**n, task.retry_backoff_max) for n in range(task.max_retries)]
    assert sum(waits) >= 180  # minutes of tries, not seconds
    assert max(waits) < settings.SCORING_VISIBILITY_TIMEOUT  # a waiting retry is never handed out twice
