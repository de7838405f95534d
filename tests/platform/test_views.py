"""Pages: sign-up, teams, upload, submission pages and their permissions, the public leaderboard."""

import io
import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from submissions.models import Submission
from teams.services import team_create
from tests.platform.factories import UserFactory
from tests.platform.helpers import independent_count


@pytest.fixture
def player(competition, client):
    user = UserFactory()
    team_create(competition=competition, user=user, name="Owls")
    client.force_login(user)
    return user


def _upload(client, competition, practice, name, data, **extra):
    form = {
        "phase": practice.pk,
        "file": SimpleUploadedFile(name, data),
        "trained_on_1": 1,
        "trained_on_2": 2,
        "system_name": "sys",
        "description": "",
        **extra,
    }
    return client.post(reverse("submit", args=[competition.slug]), form)


def test_home_redirects_to_the_only_competition_which_is_public(competition, client):
    response = client.get("/", follow=True)
    assert response.status_code == 200
    assert competition.title.encode() in response.content
    assert b"Practice (dev sets)" in response.content


def test_signup_then_the_activation_link_logs_the_new_user_in(db, client, mailoutbox):
    response = client.post(
        reverse("signup"),
        {
            "username": "ada",
            "email": "ada@example.org",
            "password1": "a-long-test-password",
            "password2": "a-long-test-password",
        },
    )
    assert response.status_code == 302
    assert get_user_model().objects.filter(username="ada").exists()
    link = re.search(r"https?://[^/\s]+(/accounts/activate/\S+)", mailoutbox[0].body).group(1)
    client.get(link)
    assert client.get("/").wsgi_request.user.username == "ada"


def test_signup_errors_are_shown_not_raised(db, client):
    response = client.post(reverse("signup"), {"username": "", "password1": "x", "password2": "y"})
    assert response.status_code == 200
    assert b"errorlist" in response.content


def test_team_create_then_join_with_the_invite_link(competition, client):
    owner, friend = UserFactory(), UserFactory()
    client.force_login(owner)
    response = client.post(
        reverse("team", args=[competition.slug]),
        {"create": "1", "name": "Owls", "accept_rules": "on"},
        follow=True,
    )
    assert b"Invite team-mates" in response.content
    invite = response.context["invite_url"]
    other = Client()
    other.force_login(friend)
    response = other.post(invite, {"accept_rules": "1"}, follow=True)
    assert friend.username.encode() in response.content
    assert response.context["team"].name == "Owls"


def test_unknown_invite_code_is_a_404(competition, client):
    client.force_login(UserFactory())
    assert client.get(reverse("team_join", args=["nope"])).status_code == 404


def test_upload_through_the_form_is_scored_and_on_the_leaderboard(
    competition,
    practice,
    player,
    client,
    example_zip,
    example_files,
    recam_data_dir,
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(client, competition, practice, "preds.zip", example_zip)
    assert response.status_code == 302
    submission = Submission.objects.get()
    status = client.get(reverse("submission_status", args=[submission.pk])).json()
    assert status["status"] == "scored"
    correct, total = independent_count(
        predictions_csv=example_files["subtask1.csv"],
        gold_jsonl=recam_data_dir / "training_data/Task_1_dev.jsonl",
    )
    assert {(s["test_subtask"], s["correct"], s["total"]) for s in status["scores"]} >= {(1, correct, total)}
    board = Client().get(reverse("leaderboard", args=[competition.slug, "practice"]))
    assert f"{100 * correct / total:.2f}".encode() in board.content
    assert b"Owls" in board.content


def test_malformed_upload_shows_every_error_and_stores_nothing(competition, practice, player, client):
    body = b"id,label\n0,economy\n1,7\n2,1\n2,3\n"
    response = _upload(client, competition, practice, "subtask1.csv", body)
    assert response.status_code == 400
    problems = response.context["problems"]
    assert any("line 1" in p and "header" in p for p in problems)
    assert any("line 2" in p and "written as a word" in p for p in problems)
    assert any("line 3" in p and "out of range" in p for p in problems)
    assert any("line 5" in p and "appears again (first on line 4)" in p for p in problems)
    assert any("have no prediction" in p for p in problems)
    assert not Submission.objects.exists()


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("preds.zip", b"PK\x03\x04" + b"\x00" * 50),
        ("subtask2.csv", "\u00e9\u00e8,\u4e2d\n".encode("utf-16")),
        ("x.exe", b"\x00\xff" * 100),
        ("subtask1.csv", b"\n\n\n"),
        ("../../etc/passwd", b"root:x:0:0"),
    ],
)
def test_garbage_uploads_are_a_form_error_never_a_500(competition, practice, player, client, name, data):
    response = _upload(client, competition, practice, name, data)
    assert response.status_code == 400
    assert response.context["problems"]
    assert not Submission.objects.exists()


def test_oversized_upload_is_refused(competition, practice, player, client, settings):
    settings.SUBMISSION_MAX_BYTES = 100
    response = _upload(client, competition, practice, "subtask1.csv", b"0,1\n" * 100)
    assert response.status_code == 400
    assert "over the limit" in response.context["problems"][0]


def test_missing_file_or_bad_phase_is_a_form_error(competition, practice, player, client):
    response = client.post(reverse("submit", args=[competition.slug]), {"phase": "999999"})
    assert response.status_code == 200
    assert response.context["form"].errors.keys() >= {"phase", "file"}


def test_upload_without_a_team_sends_you_to_the_team_page(competition, client):
    client.force_login(UserFactory())
    response = client.get(reverse("submit", args=[competition.slug]))
    assert response.status_code == 302
    assert response.url == reverse("team", args=[competition.slug])


@pytest.fixture
def owls_submission(competition, practice, player, client, example_zip, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        _upload(client, competition, practice, "preds.zip", example_zip)
    return Submission.objects.get()


@pytest.mark.parametrize("view", ["submission_detail", "submission_status", "submission_download"])
def test_another_teams_submission_is_a_404(competition, owls_submission, view):
    stranger = UserFactory()
    team_create(competition=competition, user=stranger, name="Cats")
    client = Client()
    client.force_login(stranger)
    assert client.get(reverse(view, args=[owls_submission.pk])).status_code == 404


@pytest.mark.parametrize("view", ["submission_detail", "submission_status", "submission_download"])
def test_anonymous_visitors_are_sent_to_login(owls_submission, view):
    response = Client().get(reverse(view, args=[owls_submission.pk]))
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


def test_members_and_organizers_see_the_submission_and_its_file(owls_submission, client, example_zip):
    detail = client.get(reverse("submission_detail", args=[owls_submission.pk]))
    assert detail.status_code == 200
    assert b"subtask1.csv" in detail.content
    download = client.get(reverse("submission_download", args=[owls_submission.pk]))
    assert b"".join(download.streaming_content) == example_zip
    organizer = Client()
    organizer.force_login(UserFactory(is_staff=True))
    status = organizer.get(reverse("submission_status", args=[owls_submission.pk]))
    assert json.loads(status.content)["id"] == owls_submission.pk


def test_my_submissions_lists_only_my_team(competition, owls_submission, client):
    response = client.get(reverse("my_submissions", args=[competition.slug]))
    assert list(response.context["submissions"]) == [owls_submission]


def test_csrf_is_enforced(competition, practice):
    user = UserFactory()
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    response = client.post(
        reverse("submit", args=[competition.slug]), {"phase": practice.pk, "file": io.BytesIO(b"0,1\n")}
    )
    assert response.status_code == 403


def test_gold_answers_are_not_served(competition, practice, client, settings):
    gold = practice.test_sets.get(subtask=1).gold
    assert client.get(f"/media/{gold.path}").status_code == 404
    assert client.get(f"/{gold.path}").status_code == 404
    assert not str(settings.GOLD_ROOT).startswith(str(settings.MEDIA_ROOT))


def test_unknown_phase_or_competition_is_a_404(competition, client):
    assert client.get(reverse("leaderboard", args=[competition.slug, "nope"])).status_code == 404
    assert client.get(reverse("competition", args=["nope"])).status_code == 404


def test_join_by_pasting_the_invite_link_into_the_form(competition, client):
    owner = UserFactory()
    team = team_create(competition=competition, user=owner, name="Owls")
    client.force_login(UserFactory())
    form = {"join": "1", "invite_code": f"http://testserver/teams/join/{team.invite_code}/"}
    response = client.post(reverse("team", args=[competition.slug]), form, follow=True)
    assert response.context["team"] == team
    refused = client.post(reverse("team_join", args=[team.invite_code]), follow=True)
    assert b"Accept the competition rules" in refused.content
    response = client.post(reverse("team_join", args=[team.invite_code]), {"accept_rules": "1"}, follow=True)
    assert response.context["team"] == team
    assert response.context["members"] == [owner.username, response.wsgi_request.user.username]


def test_a_closed_phase_is_a_form_error(competition, practice, player, client, example_zip):
    practice.ends_at = practice.starts_at
    practice.save()
    response = _upload(client, competition, practice, "preds.zip", example_zip)
    assert response.status_code == 200
    assert "not open for submissions" in str(response.context["form"].non_field_errors())
    assert not Submission.objects.exists()


@pytest.mark.parametrize("line", ["9" * 5000 + ",1\n", "0," + "1" * 5000 + "\n"])
def test_an_id_or_label_of_thousands_of_digits_is_a_form_error(competition, practice, player, client, line):
    """Red-team defect 1: Python's 4,300-digit int limit gave a 500 page; now a problem with file and line."""
    response = _upload(client, competition, practice, "subtask1.csv", line.encode())
    assert response.status_code == 400
    assert any(p.startswith("subtask1.csv, line 1:") for p in response.context["problems"])
    assert not Submission.objects.exists()
