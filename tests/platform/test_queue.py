"""The submission page and its status JSON show the place in the queue and the median time to score."""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from submissions.models import Submission
from submissions.queue import (
    phase_median_seconds_to_score,
    submission_queue_info,
    submission_queue_position,
)
from submissions.services import submission_create
from teams.services import team_create
from tests.platform.factories import TeamFactory, UserFactory

Status = Submission.Status


@pytest.fixture
def make_queued(competition, practice, example_zip, django_capture_on_commit_callbacks):
    """Valid submissions left in the queue (their tasks are not run), each with a given queued_at."""
    start = timezone.now() - dt.timedelta(minutes=1)

    def make(seconds: float, team=None) -> Submission:
        with django_capture_on_commit_callbacks(execute=False):
            submission = submission_create(
                phase=practice,
                team=team or TeamFactory(competition=competition),
                filename="preds.zip",
                data=example_zip,
            )
        Submission.objects.filter(pk=submission.pk).update(queued_at=start + dt.timedelta(seconds=seconds))
        submission.refresh_from_db()
        return submission

    return make


def _finish(submission: Submission, *, seconds: float) -> None:
    Submission.objects.filter(pk=submission.pk).update(
        status=Status.SCORED,
        finished_at=submission.received_at + dt.timedelta(seconds=seconds),
    )


def test_positions_follow_the_queue_order(make_queued):
    third, first, second = make_queued(30), make_queued(10), make_queued(20)
    assert [submission_queue_position(submission=s) for s in (first, second, third)] == [
        (1, 0),
        (2, 1),
        (3, 2),
    ]
    Submission.objects.filter(pk=first.pk).update(status=Status.SCORING)  # being scored: still ahead
    assert submission_queue_position(submission=third) == (3, 2)
    _finish(first, seconds=1)
    assert submission_queue_position(submission=third) == (2, 1)


def test_a_finished_submission_has_no_position(make_queued):
    submission = make_queued(0)
    _finish(submission, seconds=2)
    submission.refresh_from_db()
    assert submission_queue_position(submission=submission) == (None, None)


def test_the_median_is_over_the_phases_recent_scored_submissions(make_queued, practice, competition):
    assert phase_median_seconds_to_score(phase_id=practice.pk) == (None, 0)
    durations = [4.0, 1.0, 100.0, 2.0]
    for index, seconds in enumerate(durations):
        _finish(make_queued(index), seconds=seconds)
    make_queued(10)  # still queued: not in the median
    assert phase_median_seconds_to_score(phase_id=practice.pk) == (3.0, 4)
    other_phase = competition.phases.exclude(pk=practice.pk).first()
    assert phase_median_seconds_to_score(phase_id=other_phase.pk) == (None, 0)


def test_the_median_takes_only_the_most_recent(make_queued, practice):
    now = timezone.now()  # one clock reading: two readings differ by milliseconds on a loaded machine
    for index, seconds in enumerate([50.0, 50.0, 1.0, 3.0]):  # the two slow ones finished first
        submission = make_queued(index)
        Submission.objects.filter(pk=submission.pk).update(
            status=Status.SCORED,
            received_at=now - dt.timedelta(hours=4 - index, seconds=seconds),
            finished_at=now - dt.timedelta(hours=4 - index),
        )
    assert phase_median_seconds_to_score(phase_id=practice.pk, recent=2) == (2.0, 2)


def test_page_and_status_json_show_position_and_median(make_queued, competition, client):
    user = UserFactory()
    team = team_create(competition=competition, user=user, name="Owls")
    client.force_login(user)
    _finish(make_queued(0), seconds=2.5)
    make_queued(5)
    mine = make_queued(9, team=team)
    page = client.get(reverse("submission_detail", args=[mine.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Place in the scoring queue: 2 (1 ahead)" in text
    assert "Median time to score in this phase: 2.5 s (last 1 scored)" in text
    body = client.get(reverse("submission_status", args=[mine.pk])).json()
    assert body["queue"] == submission_queue_info(submission=mine).as_dict()
    assert body["queue"] == {
        "position": 2,
        "ahead": 1,
        "median_seconds_to_score": 2.5,
        "median_over": 1,
        "eta_seconds": None,  # the scored one has no scoring start: no scoring time to estimate from
        "median_seconds_scoring": None,
    }
