"""Only a team's members and organizers see its submissions; another team's id is a 404."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from submissions.scoring import submission_score
from tests.api.conftest import token_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice_submission(alice, example_zip) -> int:
    user, _ = alice
    response = token_client(user).post(
        "/api/phases/practice/submissions/",
        {"file": SimpleUploadedFile("p.zip", example_zip)},
        format="multipart",
    )
    assert response.status_code == 201
    return response.json()["id"]


def test_another_teams_submission_is_404(alice_submission, bob):
    user, _ = bob
    response = token_client(user).get(f"/api/submissions/{alice_submission}/")
    assert response.status_code == 404
    assert set(response.json()) == {"detail"}


def test_a_missing_submission_is_the_same_404(alice_submission, bob):
    user, _ = bob
    missing = token_client(user).get(f"/api/submissions/{alice_submission + 1000}/")
    theirs = token_client(user).get(f"/api/submissions/{alice_submission}/")
    assert missing.status_code == theirs.status_code == 404
    assert missing.json() == theirs.json()


def test_list_holds_only_the_teams_own_submissions(alice_submission, alice, bob):
    assert [s["id"] for s in token_client(alice[0]).get("/api/submissions/").json()] == [alice_submission]
    assert token_client(bob[0]).get("/api/submissions/").json() == []


def test_list_filters_by_phase(alice_submission, alice):
    client = token_client(alice[0])
    assert len(client.get("/api/submissions/", {"phase": "practice"}).json()) == 1
    assert client.get("/api/submissions/", {"phase": "evaluation"}).json() == []


def test_a_team_mate_sees_the_submission(alice_submission, alice, django_user_model):
    from teams.services import team_join

    mate = django_user_model.objects.create_user(username="carol", password="carol-pass-1234")
    team_join(team=alice[1], user=mate)
    assert token_client(mate).get(f"/api/submissions/{alice_submission}/").status_code == 200


def test_an_organizer_sees_every_teams_submission(alice_submission, django_user_model):
    organizer = django_user_model.objects.create_user(username="org", password="org-pass-1234", is_staff=True)
    client = token_client(organizer)
    assert client.get(f"/api/submissions/{alice_submission}/").status_code == 200
    assert [s["id"] for s in client.get("/api/submissions/").json()] == [alice_submission]


def test_hidden_results_show_validity_but_no_score(alice_submission, alice, practice):
    submission_score(submission_id=alice_submission)
    practice.results_hidden = True
    practice.save(update_fields=["results_hidden"])
    body = token_client(alice[0]).get(f"/api/submissions/{alice_submission}/").json()
    assert body["status"] == "scored"
    assert body["results_hidden"] is True
    assert body["scores"] == []
    assert body["best_accuracy"] is None
    assert "subtask1.csv: 837 predictions" in body["validity"]
