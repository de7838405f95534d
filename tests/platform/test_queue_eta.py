"""Queue ETA: from the median of recent scoring times, the submissions ahead and the workers; in the JSON and API."""

import datetime as dt

import pytest
from django.utils import timezone

from submissions.models import Submission
from submissions.queue import (
    median_seconds_scoring,
    queue_eta_seconds,
    queue_medians_clear,
    submission_queue_info,
)
from tests.platform.factories import PhaseFactory, TeamFactory, UserFactory, member

Status = Submission.Status


def _sub(team, phase, status, **times):
    return Submission.objects.create(
        team=team,
        phase=phase,
        file="x.zip",
        original_filename="x.zip",
        sha256="0" * 64,
        size=1,
        status=status,
        received_at=times.pop("received_at", timezone.now()),
        **times,
    )


@pytest.fixture
def queued(db, settings):
    settings.SCORING_WORKERS = 2
    phase = PhaseFactory(kind="practice")
    team = TeamFactory(competition=phase.competition)
    now = timezone.now()
    for k, seconds in enumerate((2, 3, 10)):  # median 3 s
        start = now - dt.timedelta(minutes=5, seconds=k)
        _sub(
            team,
            phase,
            Status.SCORED,
            scoring_started_at=start,
            finished_at=start + dt.timedelta(seconds=seconds),
        )
    waiting = [
        _sub(team, phase, Status.QUEUED, queued_at=now - dt.timedelta(seconds=60 - k)) for k in range(4)
    ]
    return phase, team, waiting


def test_eta_rule():
    assert queue_eta_seconds(ahead=None, service_seconds=3.0, workers=2) is None
    assert queue_eta_seconds(ahead=2, service_seconds=None, workers=2) is None
    assert queue_eta_seconds(ahead=0, service_seconds=3.0, workers=2) == 3.0
    assert (
        queue_eta_seconds(ahead=2, service_seconds=3.0, workers=2) == 6.0
    )  # rounds of 2: 2 ahead + me = 2 rounds
    assert queue_eta_seconds(ahead=0, service_seconds=3.0, workers=2, elapsed_scoring=5.0) == 0.0


def test_queue_info_estimates_from_recent_scoring_times(queued):
    _, _, waiting = queued
    assert median_seconds_scoring() == 3.0
    infos = [submission_queue_info(submission=s) for s in waiting]
    assert [(i.position, i.eta_seconds) for i in infos] == [(1, 3.0), (2, 3.0), (3, 6.0), (4, 6.0)]
    Submission.objects.filter(pk=waiting[0].pk).update(status=Status.SCORED, finished_at=timezone.now())
    waiting[2].refresh_from_db()
    assert submission_queue_info(submission=waiting[2]).eta_seconds == 3.0  # one fewer ahead: first round


def test_the_medians_are_reused_for_a_few_seconds_and_the_position_is_always_counted(
    queued, settings, django_assert_num_queries
):
    _, team, waiting = queued
    settings.RECAM_QUEUE_MEDIAN_SECONDS = 60
    assert submission_queue_info(submission=waiting[3]).eta_seconds == 6.0
    start = timezone.now() - dt.timedelta(minutes=1)  # two more scorings move the median to 4 s
    for seconds in (4, 5):
        _sub(
            team,
            waiting[0].phase,
            Status.SCORED,
            scoring_started_at=start,
            finished_at=start + dt.timedelta(seconds=seconds),
        )
    with django_assert_num_queries(1):  # only the place in the queue
        assert submission_queue_info(submission=waiting[3]).eta_seconds == 6.0
    settings.RECAM_QUEUE_MEDIAN_SECONDS = 0  # kept no longer: read again
    with django_assert_num_queries(3):
        info = submission_queue_info(submission=waiting[3])
    assert (info.median_seconds_scoring, info.eta_seconds) == (4.0, 8.0)
    queue_medians_clear()


def test_status_json_and_api_carry_the_queue(queued, client):
    _, team, waiting = queued
    user = UserFactory()
    member(team, user)
    client.force_login(user)
    status = client.get(f"/submissions/{waiting[2].pk}/status.json").json()
    assert (status["queue"]["position"], status["queue"]["eta_seconds"]) == (3, 6.0)
    api = client.get(f"/api/submissions/{waiting[2].pk}/").json()
    assert (api["queue"]["position"], api["queue"]["ahead"], api["queue"]["eta_seconds"]) == (3, 2, 6.0)
    scored = Submission.objects.filter(status=Status.SCORED).first()
    assert client.get(f"/api/submissions/{scored.pk}/").json()["queue"] is None
