"""Submitting through the API: the same validation and messages as the web form, nothing stored if invalid."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from competitions.selectors import phase_expected_ids
from recam.submission import SubmissionError, make_zip, parse_submission
from submissions.models import Submission
from submissions.scoring import submission_score
from tests.api.conftest import independent_accuracy, token_client

pytestmark = pytest.mark.django_db


def _upload(client, phase: str, data: bytes, name: str = "predictions.zip", **fields):
    payload = {"file": SimpleUploadedFile(name, data), **fields}
    return client.post(f"/api/phases/{phase}/submissions/", payload, format="multipart")


def test_valid_upload_is_stored_and_queued(alice, example_zip):
    user, team = alice
    response = _upload(
        token_client(user),
        "practice",
        example_zip,
        system_name="GloVe reader",
        description="a test",
        trained_on_2=1,
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    submission = Submission.objects.get(pk=body["id"])
    assert submission.team == team
    assert body["status"] == "queued"
    assert body["system_name"] == "GloVe reader"
    assert {f["name"]: f["trained_on"] for f in body["files"]} == {"subtask1.csv": 1, "subtask2.csv": 1}
    assert body["sha256"] == submission.sha256


def test_upload_answer_equals_the_stored_submission_read_back(alice, example_zip):
    """The 201 body is built from the rows just written, not read back: it must equal a read-back."""
    user, _ = alice
    client = token_client(user)
    _upload(client, "practice", example_zip)  # the team's lock row exists from here on
    created = _upload(client, "practice", example_zip, system_name="again", trained_on_1=2)
    assert created.status_code == 201, created.json()
    fetched = client.get(f"/api/submissions/{created.json()['id']}/").json()
    assert fetched["status"] == "queued"  # the test's transaction never commits: no task ran
    assert created.json() == fetched


def test_scores_after_scoring_equal_an_independent_count(alice, example_zip, recam_data_dir):
    user, _ = alice
    client = token_client(user)
    created = _upload(client, "practice", example_zip).json()
    submission_score(submission_id=created["id"])
    body = client.get(f"/api/submissions/{created['id']}/").json()
    assert body["status"] == "scored"
    scores = {s["test_subtask"]: s for s in body["scores"]}
    for subtask in (1, 2):
        correct, total = independent_accuracy(
            recam_data_dir / "submission_example" / f"subtask{subtask}.csv",
            recam_data_dir / "training_data" / f"Task_{subtask}_dev.jsonl",
        )
        assert (scores[subtask]["correct"], scores[subtask]["total"]) == (correct, total)
        assert scores[subtask]["accuracy"] == pytest.approx(correct / total)
        assert scores[subtask]["cross"] is False


def test_invalid_upload_lists_the_parsers_problems_and_stores_nothing(alice, practice):
    user, _ = alice
    data = make_zip({"subtask1.csv": "id,label\n0,7\n1,banana\n1,2\n", "notes.txt": "hi"})
    response = _upload(token_client(user), "practice", data, name="bad.zip")
    assert response.status_code == 400
    body = response.json()
    with pytest.raises(SubmissionError) as expected:
        parse_submission(data=data, filename="bad.zip", expected_ids=phase_expected_ids(phase=practice))
    assert [p["text"] for p in body["problems"]] == [str(p) for p in expected.value.problems]
    assert {"file": "subtask1.csv", "line": 2} in [
        {"file": p["file"], "line": p["line"]} for p in body["problems"]
    ]
    assert body["detail"].startswith(f"the upload is invalid: {len(expected.value.problems)} problems")
    assert Submission.objects.count() == 0


def test_a_bare_csv_with_a_wrong_name_is_refused(alice):
    user, _ = alice
    response = _upload(token_client(user), "practice", b"0,1\n", name="preds.csv")
    assert response.status_code == 400
    assert "must be named subtask1.csv or subtask2.csv" in response.json()["problems"][0]["message"]


def test_an_oversized_upload_is_refused_before_reading(alice, settings, example_zip):
    user, _ = alice
    settings.SUBMISSION_MAX_BYTES = len(example_zip) - 1
    response = _upload(token_client(user), "practice", example_zip)
    assert response.status_code == 400
    assert "over the limit" in response.json()["problems"][0]["message"]
    assert Submission.objects.count() == 0


def test_a_user_without_a_team_is_told_to_join_one(competition, django_user_model, example_zip):
    user = django_user_model.objects.create_user(username="solo", password="solo-pass-1234")
    response = _upload(token_client(user), "practice", example_zip)
    assert response.status_code == 400
    assert "not in a team" in response.json()["detail"]


def test_an_unknown_phase_is_404(alice, example_zip):
    user, _ = alice
    response = _upload(token_client(user), "finals", example_zip)
    assert response.status_code == 404
    assert "finals" in response.json()["detail"]


def test_a_bad_trained_on_value_is_a_json_error(alice, example_zip):
    user, _ = alice
    response = _upload(token_client(user), "practice", example_zip, trained_on_1=3)
    assert response.status_code == 400
    assert response.json()["detail"].startswith("trained_on_1:")
    assert Submission.objects.count() == 0


@pytest.mark.parametrize("line", ["9" * 5000 + ",1\n", "0," + "1" * 5000 + "\n"])
def test_an_id_or_label_of_thousands_of_digits_is_a_json_problem(alice, line):
    """Red-team defect 1 through the API: a 400 listing the problem at its line, never a 500."""
    user, _ = alice
    response = _upload(token_client(user), "practice", line.encode(), name="subtask1.csv")
    assert response.status_code == 400
    assert {"file": "subtask1.csv", "line": 1} in [
        {"file": p["file"], "line": p["line"]} for p in response.json()["problems"]
    ]
    assert Submission.objects.count() == 0
