"""Hidden results: a team sees its file is valid and counted, never a score, until the phase is published."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from teams.services import team_create
from tests.platform.factories import UserFactory
from tests.platform.ops import N, make_phase, submit


@pytest.fixture
def hidden(db, client, django_capture_on_commit_callbacks):
    phase = make_phase(kind="evaluation", results_hidden=True, counted_policy="selected")
    user = UserFactory()
    team = team_create(competition=phase.competition, user=user, name="Owls")
    submission = submit(django_capture_on_commit_callbacks, phase, team, 7)
    client.force_login(user)
    return phase, submission


def test_pages_show_validity_and_counted_but_no_score(hidden, client):
    phase, submission = hidden
    page = client.get(reverse("submission_detail", args=[submission.pk])).content.decode()
    assert f"subtask1.csv: {N} of {N} ids" in page
    assert submission.sha256 in page
    assert "this is your counted submission" in page
    assert "70.00" not in page
    assert "hidden until the organizers publish" in page
    status = client.get(reverse("submission_status", args=[submission.pk])).json()
    assert status["scores"] == []
    assert status["results_hidden"] is True
    listing = client.get(reverse("my_submissions", args=[phase.competition.slug])).content.decode()
    assert "70.00" not in listing


def test_api_hides_scores_and_board(hidden, client):
    phase, submission = hidden
    body = client.get(f"/api/submissions/{submission.pk}/").json()
    assert body["scores"] == []
    assert body["best_accuracy"] is None
    assert body["counted"] == "this is your counted submission for Subtask 1"
    board = client.get(f"/api/phases/{phase.kind}/leaderboard/?competition={phase.competition.slug}").json()
    assert board["results_hidden"] is True
    assert board["tables"] == []


def test_leaderboard_says_hidden_until_published(hidden, client):
    phase, _ = hidden
    url = reverse("leaderboard", args=[phase.competition.slug, phase.kind])
    page = client.get(url).content.decode()
    assert "are hidden until the organizers publish them" in page
    assert "70.00" not in page
    assert (
        client.get(
            reverse("leaderboard_export", args=[phase.competition.slug, phase.kind, "csv"])
        ).status_code
        == 404
    )
    call_command("recam_publish", "--phase", phase.kind, "--competition", phase.competition.slug)
    page = client.get(url).content.decode()
    assert "70.00" in page
    assert "are hidden" not in page


def test_admin_action_publishes_and_organizers_always_see_scores(hidden, client):
    from competitions.models import Phase

    phase, submission = hidden
    organizer = UserFactory(is_staff=True, is_superuser=True)
    client.force_login(organizer)
    assert client.get(reverse("submission_status", args=[submission.pk])).json()["scores"] != []
    response = client.post(
        reverse("admin:competitions_phase_changelist"),
        {"action": "publish_results", "_selected_action": [phase.pk]},
    )
    assert response.status_code == 302
    assert Phase.objects.get(pk=phase.pk).results_hidden is False


def test_admin_freeze_action_freezes_nothing_and_opens_the_confirmation_page(hidden, client):
    from leaderboards.models import OfficialResult

    phase, _submission = hidden
    organizer = UserFactory(is_staff=True, is_superuser=True)
    client.force_login(organizer)
    response = client.post(
        reverse("admin:competitions_phase_changelist"),
        {"action": "freeze_results", "_selected_action": [phase.pk]},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("console_freeze", args=[phase.competition.slug, phase.kind])
    assert not OfficialResult.objects.filter(phase=phase).exists()
    page = client.get(response["Location"])
    assert page.status_code == 200
    assert b'name="confirm"' in page.content
