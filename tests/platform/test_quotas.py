"""Quotas per team per phase (per UTC day and in total), reserved atomically; failures give the slot back."""

import datetime as dt
import threading

import pytest
from django.db import connection
from django.urls import reverse

from competitions.errors import ApplicationError
from recam.submission import SubmissionError
from submissions.models import Submission
from submissions.quotas import QuotaExceeded, quota_status
from submissions.services import submission_create, submission_mark_failed
from teams.services import team_create
from tests.platform.factories import TeamFactory, UserFactory
from tests.platform.ops import make_phase, predictions, submit


def test_total_quota_refuses_clearly_and_failures_give_the_slot_back(db, django_capture_on_commit_callbacks):
    phase = make_phase(max_submissions_total=2)
    team = TeamFactory(competition=phase.competition)
    first = submit(django_capture_on_commit_callbacks, phase, team, 3)
    submit(django_capture_on_commit_callbacks, phase, team, 4)
    with pytest.raises(QuotaExceeded, match="used all 2 submissions"):
        submit(django_capture_on_commit_callbacks, phase, team, 5)
    submission_mark_failed(submission=first, reason="the scoring service could not read the stored file")
    assert quota_status(team=team, phase=phase, at=first.received_at).total_left == 1
    assert submit(django_capture_on_commit_callbacks, phase, team, 5).status == Submission.Status.SCORED
    other = TeamFactory(competition=phase.competition)  # per team, not per phase
    assert submit(django_capture_on_commit_callbacks, phase, other, 1).status == Submission.Status.SCORED


def test_invalid_uploads_do_not_count(db):
    phase = make_phase(max_submissions_total=1)
    team = TeamFactory(competition=phase.competition)
    for _ in range(3):
        with pytest.raises(SubmissionError):
            submission_create(phase=phase, team=team, filename="subtask1.csv", data=b"id,label\n0,word\n")
    status = quota_status(team=team, phase=phase, at=phase.starts_at + dt.timedelta(days=1))
    assert (status.total_used, status.left) == (0, 1)


def test_daily_quota_resets_at_utc_midnight(db, django_capture_on_commit_callbacks, monkeypatch):
    from django.utils import timezone

    phase = make_phase(max_submissions_per_day=1, starts_at=dt.datetime(2021, 1, 1, tzinfo=dt.UTC))
    team = TeamFactory(competition=phase.competition)
    late = dt.datetime(2021, 1, 10, 23, 59, 59, tzinfo=dt.UTC)
    monkeypatch.setattr(timezone, "now", lambda: late)
    submit(django_capture_on_commit_callbacks, phase, team, 3)
    with pytest.raises(QuotaExceeded, match="resets at 2021-01-11 00:00 UTC"):
        submit(django_capture_on_commit_callbacks, phase, team, 3)
    monkeypatch.setattr(timezone, "now", lambda: late + dt.timedelta(seconds=1))
    assert submit(django_capture_on_commit_callbacks, phase, team, 3).status == Submission.Status.SCORED


def test_upload_page_and_api_show_what_is_left_and_the_reset(db, client, django_capture_on_commit_callbacks):
    phase = make_phase(max_submissions_per_day=3, max_submissions_total=5)
    user = UserFactory()
    team = team_create(competition=phase.competition, user=user, name="Owls")
    submit(django_capture_on_commit_callbacks, phase, team, 2)
    client.force_login(user)
    page = client.get(reverse("submit", args=[phase.competition.slug])).content.decode()
    assert "2 of 3" in page
    assert "4 of 5" in page
    assert "00:00 UTC" in page
    body = client.get(f"/api/phases/{phase.kind}/quota/?competition={phase.competition.slug}").json()
    assert (body["left"], body["daily_left"], body["total_left"]) == (2, 2, 4)
    assert body["resets_at"].endswith("T00:00:00+00:00")


@pytest.mark.django_db(transaction=True)
def test_twenty_simultaneous_uploads_with_five_left_give_five(settings):
    """Real threads, each with its own database connection (PostgreSQL: row lock; SQLite: write lock)."""
    from tasks.app import app

    app.conf.task_always_eager = False  # nothing is scored here; the queue is never reached
    phase = make_phase(max_submissions_total=7)
    team = TeamFactory(competition=phase.competition)
    for _ in range(2):  # 5 left
        Submission.objects.create(
            team=team, phase=phase, original_filename="x", sha256="0" * 64, size=1,
            received_at=phase.starts_at, status=Submission.Status.SCORED,
        )  # fmt: skip
    barrier = threading.Barrier(20)
    outcomes: list[str] = []
    lock = threading.Lock()

    def upload(i: int) -> None:
        try:
            barrier.wait()
            submission_create(phase=phase, team=team, filename="subtask1.csv", data=predictions(i % 10))
            result = "accepted"
        except QuotaExceeded as exc:
            result = "refused: " + exc.message
        except ApplicationError as exc:  # any other refusal would be a bug here
            result = "other: " + exc.message
        finally:
            connection.close()
        with lock:
            outcomes.append(result)

    from unittest import mock

    with mock.patch("submissions.services._send"):  # no broker in this test
        threads = [threading.Thread(target=upload, args=(i,)) for i in range(20)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    app.conf.task_always_eager = True
    assert outcomes.count("accepted") == 5, outcomes
    refused = [o for o in outcomes if o.startswith("refused: ")]
    assert len(refused) == 15
    assert all("used all 7 submissions" in o for o in refused)
    assert Submission.objects.filter(team=team).count() == 7


def test_api_and_form_refuse_over_quota_with_the_same_message(db, client, django_capture_on_commit_callbacks):
    from django.core.files.uploadedfile import SimpleUploadedFile

    phase = make_phase(max_submissions_total=1)
    user = UserFactory()
    team = team_create(competition=phase.competition, user=user, name="Owls")
    submit(django_capture_on_commit_callbacks, phase, team, 2)
    client.force_login(user)
    api = client.post(
        f"/api/phases/{phase.kind}/submissions/?competition={phase.competition.slug}",
        {"file": SimpleUploadedFile("subtask1.csv", predictions(3))},
    )
    assert api.status_code == 429
    assert "used all 1 submissions" in api.json()["detail"]
    form = {"phase": phase.pk, "file": SimpleUploadedFile("subtask1.csv", predictions(3)), "trained_on_1": 1,
            "trained_on_2": 2, "system_name": "", "description": ""}  # fmt: skip
    page = client.post(reverse("submit", args=[phase.competition.slug]), form).content.decode()
    assert "used all 1 submissions" in page
    assert Submission.objects.filter(team=team).count() == 1
