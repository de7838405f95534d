"""Phase windows are enforced server-side at one instant (UTC) on every path; organizers may --force."""

import datetime as dt

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from competitions.errors import ApplicationError
from submissions.models import Submission
from teams.services import team_create
from tests.platform.factories import TeamFactory, UserFactory
from tests.platform.ops import make_phase, predictions, submit


@pytest.fixture
def closed(db):
    now = timezone.now()
    return make_phase(starts_at=now - dt.timedelta(days=2), ends_at=now - dt.timedelta(seconds=1))


def test_service_refuses_after_the_end_and_before_the_start(closed, django_capture_on_commit_callbacks):
    team = TeamFactory(competition=closed.competition)
    with pytest.raises(ApplicationError, match=r"closed at .* UTC"):
        submit(django_capture_on_commit_callbacks, closed, team, 5)
    closed.starts_at = timezone.now() + dt.timedelta(hours=1)
    closed.ends_at = None
    closed.save()
    with pytest.raises(ApplicationError, match=r"opens at .* UTC"):
        submit(django_capture_on_commit_callbacks, closed, team, 5)
    assert not Submission.objects.exists()


def test_the_end_instant_itself_is_closed(closed, django_capture_on_commit_callbacks, monkeypatch):
    team = TeamFactory(competition=closed.competition)
    end = closed.ends_at
    monkeypatch.setattr(timezone, "now", lambda: end)
    with pytest.raises(ApplicationError, match="closed"):
        submit(django_capture_on_commit_callbacks, closed, team, 5)
    monkeypatch.setattr(timezone, "now", lambda: end - dt.timedelta(microseconds=1))
    assert submit(django_capture_on_commit_callbacks, closed, team, 5).status == Submission.Status.SCORED


def test_web_form_and_api_refuse_a_closed_phase(closed, client):
    user = UserFactory()
    team_create(competition=closed.competition, user=user, name="Owls")
    client.force_login(user)
    form = {"phase": closed.pk, "file": SimpleUploadedFile("subtask1.csv", predictions(3)), "trained_on_1": 1,
            "trained_on_2": 2, "system_name": "", "description": ""}  # fmt: skip
    response = client.post(reverse("submit", args=[closed.competition.slug]), form)
    assert b"closed at" in response.content
    api = client.post(
        f"/api/phases/{closed.kind}/submissions/?competition={closed.competition.slug}",
        {"file": SimpleUploadedFile("subtask1.csv", predictions(3))},
    )
    assert api.status_code == 400
    assert "closed at" in api.json()["detail"]
    assert not Submission.objects.exists()


def test_recam_submit_needs_force_outside_the_window(closed, tmp_path, django_capture_on_commit_callbacks):
    team = TeamFactory(competition=closed.competition, name="Late")
    path = tmp_path / "subtask1.csv"
    path.write_bytes(predictions(4))
    args = [
        "recam_submit",
        "--team",
        team.name,
        "--phase",
        closed.kind,
        "--competition",
        closed.competition.slug,
    ]
    with pytest.raises(CommandError, match="closed at"):
        call_command(*args, str(path))
    with django_capture_on_commit_callbacks(execute=True):
        call_command(*args, "--force", str(path))
    assert Submission.objects.get().status == Submission.Status.SCORED


def test_competition_page_shows_deadlines_as_utc_time_elements(closed, client):
    response = client.get(reverse("competition", args=[closed.competition.slug]))
    text = response.content.decode()
    assert (
        f'<time datetime="{closed.ends_at.isoformat()}"' in text
        or 'datetime="' + closed.ends_at.strftime("%Y-%m-%dT%H:%M:%S") in text
    )
    assert f"{closed.ends_at:%Y-%m-%d %H:%M} UTC" in text
    assert "js/localtime.js" in text
