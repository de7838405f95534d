"""An upload is parsed once, in its request: scoring reads the labels validated then (stored with the file
rows) and parses the stored file again only where those cannot be trusted."""

from pathlib import Path
from unittest import mock

import pytest

from recam.submission import make_zip, parse_submission
from submissions.models import Submission, SubmissionFile
from submissions.scoring import submission_score
from submissions.services import submission_create
from tests.platform.factories import TeamFactory, member
from tests.platform.helpers import independent_count

pytestmark = pytest.mark.django_db


@pytest.fixture
def team(competition):
    team = TeamFactory(competition=competition)
    member(team)
    return team


def _queued(practice, team, data, capture) -> Submission:
    with capture(execute=False):  # queued, not scored: each test scores it itself
        return submission_create(phase=practice, team=team, filename="preds.zip", data=data)


def _scores(submission: Submission) -> dict[int, tuple[int, int]]:
    return {s.test_subtask: (s.correct, s.total) for s in submission.scores.all()}


def _expected(example_files, recam_data_dir) -> dict[int, tuple[int, int]]:
    return {
        subtask: independent_count(
            predictions_csv=example_files[f"subtask{subtask}.csv"],
            gold_jsonl=recam_data_dir / "training_data" / f"Task_{subtask}_dev.jsonl",
        )
        for subtask in (1, 2)
    }


def test_the_upload_stores_its_validated_labels_and_scoring_does_not_parse_again(
    practice, team, example_zip, example_files, recam_data_dir, django_capture_on_commit_callbacks
):
    submission = _queued(practice, team, example_zip, django_capture_on_commit_callbacks)
    stored = {f.subtask: f for f in SubmissionFile.objects.filter(submission=submission)}
    ids = {ts.subtask: sorted(ts.question_ids) for ts in practice.test_sets.all()}
    for subtask, row in stored.items():
        assert len(row.choices) == len(ids[subtask]) == row.num_predictions
        assert set(row.choices) <= set("01234")
    with mock.patch("submissions.selectors.parse_submission", wraps=parse_submission) as parse:
        scored = submission_score(submission_id=submission.pk)
    assert parse.call_count == 0
    assert scored.status == Submission.Status.SCORED
    assert _scores(scored) == _expected(example_files, recam_data_dir)


@pytest.mark.parametrize("change", ["older row without labels", "test ids changed", "stored file changed"])
def test_scoring_parses_the_stored_file_where_the_stored_labels_cannot_be_trusted(
    change, practice, team, example_zip, example_files, recam_data_dir, django_capture_on_commit_callbacks
):
    submission = _queued(practice, team, example_zip, django_capture_on_commit_callbacks)
    if change == "older row without labels":
        SubmissionFile.objects.filter(submission=submission).update(choices="", ids_sha256="")
    elif change == "test ids changed":  # the labels were validated against other ids
        SubmissionFile.objects.filter(submission=submission).update(ids_sha256="0" * 64)
    else:  # the bytes on disk are not those the sha256 names (here: subtask1.csv alone)
        Path(submission.file.path).write_bytes(make_zip({"subtask1.csv": example_files["subtask1.csv"]}))
    with mock.patch("submissions.selectors.parse_submission", wraps=parse_submission) as parse:
        scored = submission_score(submission_id=submission.pk)
    assert parse.call_count == 1
    assert scored.status == Submission.Status.SCORED
    expected = _expected(example_files, recam_data_dir)
    if change == "stored file changed":
        expected = {1: expected[1]}  # what the bytes on disk hold, not the labels stored at upload
    assert _scores(scored) == expected
