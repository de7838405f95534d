"""The newcomer path: Data page and public files (never a label), starting kit, rules, e-mail and
password reset, the API token page, duplicate warning, own-row highlight."""

import io
import json
import re
import subprocess
import sys
import zipfile

import pytest
from django.core import mail
from django.urls import reverse
from rest_framework.authtoken.models import Token

from competitions.selectors import phase_expected_ids
from recam.submission import parse_submission
from submissions.services import submission_create
from teams.services import team_create
from tests.platform.factories import UserFactory


def test_data_page_lists_the_files_and_spells_out_the_format(practice, client):
    page = client.get(reverse("phase_data", args=[practice.competition.slug, "practice"])).content.decode()
    for needle in ("subtask1.jsonl", "subtask2.jsonl", "example-practice.zip", "recam-starting-kit.zip"):
        assert needle in page
    assert "0-based line number" in page
    assert "Every question needs exactly one line" in page
    assert "accuracy" in page
    assert "aclanthology.org" in page


def test_the_data_link_opens_the_first_phase(practice, client):
    response = client.get(reverse("data_index", args=[practice.competition.slug]))
    assert response.status_code == 302
    assert response.url == reverse("phase_data", args=[practice.competition.slug, "practice"])


def test_public_questions_never_carry_labels(practice, client, recam_data_dir):
    url = reverse("phase_questions", args=[practice.competition.slug, "practice", 1])
    lines = client.get(url).content.decode().splitlines()
    source = (recam_data_dir / "training_data" / "Task_1_dev.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(source)
    records = [json.loads(line) for line in lines]
    assert all("label" not in r for r in records)
    assert [r["id"] for r in records] == list(range(len(source)))
    assert records[0]["option_4"] == json.loads(source[0])["option_4"]


def test_example_submission_is_valid_for_the_phase(practice, client):
    body = client.get(reverse("phase_example", args=[practice.competition.slug, "practice"])).content
    parsed = parse_submission(
        data=body, filename="example.zip", expected_ids=phase_expected_ids(phase=practice)
    )
    assert sorted(f.subtask for f in parsed.files) == [1, 2]


def test_starting_kit_writes_a_valid_zip_from_its_baseline(practice, client, tmp_path):
    kit = zipfile.ZipFile(io.BytesIO(client.get(reverse("starting_kit")).content))
    kit.extractall(tmp_path)
    script = tmp_path / "recam-starting-kit" / "make_submission.py"
    questions = tmp_path / "subtask1.jsonl"
    questions.write_bytes(
        client.get(reverse("phase_questions", args=[practice.competition.slug, "practice", 1])).content
    )
    out = tmp_path / "submission.zip"
    run = subprocess.run(
        [sys.executable, str(script), str(questions), "--out", str(out)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    parsed = parse_submission(
        data=out.read_bytes(), filename="submission.zip", expected_ids=phase_expected_ids(phase=practice)
    )
    assert [f.subtask for f in parsed.files] == [1]


def test_rules_must_be_accepted_to_create_a_team(competition, client):
    client.force_login(UserFactory())
    refused = client.post(reverse("team", args=[competition.slug]), {"create": "1", "name": "Owls"})
    assert refused.status_code == 200
    assert b"This field is required" in refused.content
    assert client.get(reverse("rules", args=[competition.slug])).status_code == 200


def test_signup_needs_an_email_and_reset_sends_a_link_that_works(db, client):
    form = {"username": "ada", "password1": "a-long-test-password", "password2": "a-long-test-password"}
    assert client.post(reverse("signup"), form).status_code == 200  # no e-mail: the form again
    assert client.post(reverse("signup"), {**form, "email": "ada@example.org"}).status_code == 302
    client.get(re.search(r"https?://[^/\s]+(/accounts/activate/\S+)", mail.outbox[0].body).group(1))
    client.logout()
    client.post(reverse("password_reset"), {"email": "ada@example.org"})
    assert len(mail.outbox) == 2  # the activation link, then the reset link
    assert mail.outbox[1].to == ["ada@example.org"]
    link = re.search(r"https?://[^/]+(/accounts/reset/\S+/)", mail.outbox[1].body).group(1)
    page = client.get(link, follow=True)
    new = {"new_password1": "another-long-password-9", "new_password2": "another-long-password-9"}
    done = client.post(page.redirect_chain[-1][0], new, follow=True)
    assert b"Password changed" in done.content
    assert client.login(username="ada", password="another-long-password-9")


def test_token_page_shows_the_key_once_and_regenerates(db, client):
    user = UserFactory()
    client.force_login(user)
    assert b"no API token yet" in client.get(reverse("api_token")).content
    first = client.post(reverse("api_token")).content.decode()
    key = Token.objects.get(user=user).key
    assert key in first
    assert key not in client.get(reverse("api_token")).content.decode()
    client.post(reverse("api_token"))
    assert Token.objects.get(user=user).key != key


@pytest.fixture
def two_teams(practice, example_zip, django_capture_on_commit_callbacks):
    made = []
    for name in ("Owls", "Larks"):
        user = UserFactory()
        team = team_create(competition=practice.competition, user=user, name=name)
        with django_capture_on_commit_callbacks(execute=True):
            made.append(
                (
                    user,
                    submission_create(
                        phase=practice,
                        team=team,
                        submitted_by=user,
                        filename="p.zip",
                        data=example_zip,
                        system_name=f"sys-{name}",
                    ),
                )
            )
    return made


def test_a_byte_identical_file_of_another_team_is_flagged(two_teams, client):
    (first_user, first), (second_user, second) = two_teams
    client.force_login(second_user)
    assert b"duplicate-warning" in client.get(reverse("submission_detail", args=[second.pk])).content
    client.force_login(first_user)
    assert b"duplicate-warning" not in client.get(reverse("submission_detail", args=[first.pk])).content


def test_counted_note_names_the_subtask_and_own_row_is_marked(two_teams, client, practice):
    user, _submission = two_teams[0]
    client.force_login(user)
    page = client.get(reverse("my_submissions", args=[practice.competition.slug])).content.decode()
    assert "counted submission for Subtask 1 and Subtask 2" in page
    board = client.get(reverse("leaderboard", args=[practice.competition.slug, "practice"])).content.decode()
    assert '<td class="system">sys-Owls</td>' in board
    assert 'data-team="Owls"' in board
    assert '"Owls"' in board.split('id="my-team"')[1][:40]


def test_the_token_page_cli_hints_parse_and_it_claims_nothing_false(db, client, tmp_path):
    """Each command the page shows is accepted by the real CLI's parser (--url, not --server), and it
    does not say the token is shown only once (the API's token endpoint returns it again)."""
    import html
    import shlex

    from click.testing import CliRunner

    from client.cli import main

    client.force_login(UserFactory())
    client.post(reverse("api_token"))
    page = client.get(reverse("api_token")).content.decode()
    assert "not shown again" not in page
    assert "shown <strong>once</strong>" not in client.post(reverse("api_token")).content.decode()
    (tmp_path / "predictions.zip").write_bytes(b"")
    for name in ("cli-data", "cli-submit", "cli-board"):
        command = html.unescape(re.search(rf'<code id="{name}">([^<]+)</code>', page).group(1))
        args = shlex.split(command)[1:]
        args = [str(tmp_path / a) if a.endswith(".zip") else a for a in args]
        assert args[:2] == ["--url", "http://testserver"]
        # --help stops before any request, after every option was parsed: a wrong one fails here.
        result = CliRunner().invoke(main, [*args, "--help"])
        assert result.exit_code == 0, result.output
