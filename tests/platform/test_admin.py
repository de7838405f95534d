"""Admin actions: re-score, mark failed, download submitted files."""

import io
import zipfile

import pytest
from django.urls import reverse

from submissions.models import Submission
from submissions.services import submission_create
from tests.platform.factories import TeamFactory, UserFactory


@pytest.fixture
def scored(competition, practice, example_zip, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        submission = submission_create(
            phase=practice, team=TeamFactory(competition=competition), filename="preds.zip", data=example_zip
        )
    return submission


@pytest.fixture
def admin(db, client):
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


def _action(admin, action, submission):
    url = reverse("admin:submissions_submission_changelist")
    return admin.post(url, {"action": action, "_selected_action": [submission.pk]})


def test_rescore_action_scores_again(admin, scored, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        _action(admin, "rescore", scored)
    scored.refresh_from_db()
    assert scored.status == Submission.Status.SCORED
    assert scored.attempts == 2


def test_mark_failed_action(admin, scored):
    _action(admin, "mark_failed", scored)
    scored.refresh_from_db()
    assert scored.status == Submission.Status.FAILED
    assert scored.failure_reason == "marked failed by the organizers"


def test_download_action_returns_the_files(admin, scored, example_zip):
    response = _action(admin, "download_files", scored)
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    (name,) = archive.namelist()
    assert archive.read(name) == example_zip


@pytest.mark.parametrize(
    "model",
    ["competition", "phase", "testset", "goldanswers", "team", "submission", "score", "leaderboardentry"],
)
def test_every_admin_list_renders(admin, scored, model):
    app = {"competition": "competitions", "phase": "competitions", "testset": "competitions"}
    app |= {
        "goldanswers": "competitions",
        "team": "teams",
        "submission": "submissions",
        "score": "submissions",
    }
    app |= {"leaderboardentry": "leaderboards"}
    assert admin.get(reverse(f"admin:{app[model]}_{model}_changelist")).status_code == 200


def test_the_labels_stored_for_scoring_are_neither_shown_nor_editable(admin, scored):
    file_row = scored.files.first()
    assert len(file_row.choices) == file_row.num_predictions  # stored at upload
    pages = [
        admin.get(reverse("admin:submissions_submission_change", args=[scored.pk])),
        admin.get(reverse("admin:submissions_submissionfile_change", args=[file_row.pk])),
    ]
    for page in pages:
        assert page.status_code == 200
        html = page.content.decode()
        assert file_row.sha256 in html or file_row.name in html
        assert "choices" not in html
        assert "ids_sha256" not in html
        assert file_row.choices[:40] not in html
