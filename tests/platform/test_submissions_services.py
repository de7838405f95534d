import datetime as dt
import hashlib
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from competitions.errors import ApplicationError
from leaderboards.models import LeaderboardEntry
from recam.metrics import SCORER_VERSION
from recam.submission import SubmissionError, make_zip
from submissions.models import Score, Submission
from submissions.scoring import submission_score
from submissions.services import submission_create, submission_mark_failed
from tests.platform.factories import TeamFactory, UserFactory, member
from tests.platform.helpers import independent_count


@pytest.fixture
def team(competition):
    team = TeamFactory(competition=competition)
    member(team)
    return team


def _create(practice, team, data, filename="preds.zip", capture=None, **kwargs):
    with capture(execute=True):
        submission = submission_create(phase=practice, team=team, filename=filename, data=data, **kwargs)
    submission.refresh_from_db()
    return submission


def test_valid_upload_is_stored_with_its_sha256_then_queued(
    practice, team, example_zip, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        submission = submission_create(phase=practice, team=team, filename="preds.zip", data=example_zip)
    assert len(callbacks) == 1  # the scoring task is sent only when the transaction commits
    submission.refresh_from_db()
    assert submission.status == Submission.Status.QUEUED
    assert submission.received_at <= submission.queued_at
    assert submission.sha256 == hashlib.sha256(example_zip).hexdigest()
    assert Path(submission.file.path).read_bytes() == example_zip
    assert list(submission.files.values_list("name", "subtask", "trained_on")) == [
        ("subtask1.csv", 1, 1),
        ("subtask2.csv", 2, 2),
    ]


def test_invalid_upload_leaves_nothing_behind(practice, team, settings, django_capture_on_commit_callbacks):
    with (
        django_capture_on_commit_callbacks(execute=False) as callbacks,
        pytest.raises(SubmissionError) as info,
    ):
        submission_create(phase=practice, team=team, filename="subtask1.csv", data=b"id,label\n0,word\n")
    assert len(info.value.problems) >= 2
    assert not callbacks
    assert not Submission.objects.exists()
    media = Path(settings.MEDIA_ROOT)
    assert not media.exists() or not any(p.is_file() for p in media.rglob("*"))


def test_score_equals_an_independent_count(
    practice, team, example_zip, example_files, recam_data_dir, django_capture_on_commit_callbacks
):
    submission = _create(practice, team, example_zip, capture=django_capture_on_commit_callbacks)
    assert submission.status == Submission.Status.SCORED
    for subtask in (1, 2):
        score = submission.scores.get(test_subtask=subtask)
        correct, total = independent_count(
            predictions_csv=example_files[f"subtask{subtask}.csv"],
            gold_jsonl=recam_data_dir / f"training_data/Task_{subtask}_dev.jsonl",
        )
        assert (score.correct, score.total, score.trained_on) == (correct, total, subtask)
        assert score.accuracy == pytest.approx(correct / total)
        assert score.scorer_version == SCORER_VERSION
        assert score.gold_sha256 == practice.test_sets.get(subtask=subtask).gold.sha256


def test_scoring_twice_leaves_the_same_rows(practice, team, example_zip, django_capture_on_commit_callbacks):
    submission = _create(practice, team, example_zip, capture=django_capture_on_commit_callbacks)
    before = list(Score.objects.values_list("id", "test_subtask", "correct", "total", "accuracy"))
    # a redelivered task (e.g. the worker died after writing) finds the submission mid-scoring
    Submission.objects.filter(pk=submission.pk).update(status=Submission.Status.SCORING)
    submission_score(submission_id=submission.pk)
    submission_score(submission_id=submission.pk)
    assert list(Score.objects.values_list("id", "test_subtask", "correct", "total", "accuracy")) == before
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORED


def test_scoring_queries_do_not_grow_with_the_teams_submissions(
    practice, team, example_zip, django_capture_on_commit_callbacks
):
    def queries_to_score() -> int:
        with django_capture_on_commit_callbacks(execute=False):
            submission = submission_create(phase=practice, team=team, filename="preds.zip", data=example_zip)
        with CaptureQueriesContext(connection) as captured:
            submission_score(submission_id=submission.pk)
        assert Submission.objects.get(pk=submission.pk).status == Submission.Status.SCORED
        return len(captured.captured_queries)

    queries_to_score()  # the first one also builds the counted scores' answer vectors (leaderboards.intervals)
    first = queries_to_score()
    for _ in range(3):
        queries_to_score()
    assert queries_to_score() == first  # the phase, test sets and gold are read once per scoring, not per row


def test_rescoring_upserts_in_place_and_drops_rows_the_file_no_longer_has(
    practice, team, example_zip, example_files, django_capture_on_commit_callbacks
):
    submission = _create(practice, team, example_zip, capture=django_capture_on_commit_callbacks)
    kept = submission.scores.get(test_subtask=1).pk
    assert set(LeaderboardEntry.objects.filter(team=team).values_list("test_subtask", flat=True)) == {1, 2}
    Path(submission.file.path).write_bytes(make_zip({"subtask1.csv": example_files["subtask1.csv"]}))
    Submission.objects.filter(pk=submission.pk).update(status=Submission.Status.SCORING)
    assert submission_score(submission_id=submission.pk).status == Submission.Status.SCORED
    assert list(submission.scores.values_list("pk", "test_subtask")) == [(kept, 1)]
    assert list(LeaderboardEntry.objects.filter(team=team).values_list("test_subtask", flat=True)) == [1]


def test_trained_on_the_other_subtask_is_a_cross_score(
    practice, team, example_files, django_capture_on_commit_callbacks
):
    submission = _create(
        practice,
        team,
        example_files["subtask1.csv"],
        filename="subtask1.csv",
        trained_on={1: 2},
        capture=django_capture_on_commit_callbacks,
    )
    score = submission.scores.get()
    assert (score.test_subtask, score.trained_on, score.is_cross) == (1, 2, True)


def test_a_file_that_no_longer_validates_fails_with_a_reason(
    practice, team, example_zip, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):
        submission = submission_create(phase=practice, team=team, filename="preds.zip", data=example_zip)
    Path(submission.file.path).write_bytes(b"garbage")
    submission = submission_score(submission_id=submission.pk)
    assert submission.status == Submission.Status.FAILED
    assert "not a valid zip archive" in submission.failure_reason
    assert not submission.scores.exists()


def test_a_gold_file_that_fails_its_check_fails_the_submission_without_leaking_paths(
    practice, team, example_zip, django_capture_on_commit_callbacks, settings
):
    with django_capture_on_commit_callbacks(execute=False):
        submission = submission_create(phase=practice, team=team, filename="preds.zip", data=example_zip)
    gold = Path(settings.GOLD_ROOT) / practice.test_sets.get(subtask=1).gold.path
    gold.write_text("0,0\n")
    submission = submission_score(submission_id=submission.pk)
    assert submission.status == Submission.Status.FAILED
    assert "the organizers will re-score it" in submission.failure_reason
    assert str(settings.GOLD_ROOT) not in submission.failure_reason


def test_marking_failed_removes_scores(practice, team, example_zip, django_capture_on_commit_callbacks):
    submission = _create(practice, team, example_zip, capture=django_capture_on_commit_callbacks)
    submission = submission_mark_failed(submission=submission, reason="marked failed by the organizers")
    assert submission.status == Submission.Status.FAILED
    assert not submission.scores.exists()


def test_a_closed_phase_refuses_uploads(practice, team, example_zip):
    practice.ends_at = timezone.now() - dt.timedelta(minutes=1)
    practice.save()
    with pytest.raises(ApplicationError, match="not open"):
        submission_create(phase=practice, team=team, filename="preds.zip", data=example_zip)
    assert not Submission.objects.exists()


def test_a_team_of_another_competition_is_refused(practice, example_zip):
    stranger = TeamFactory()
    member(stranger, UserFactory())
    with pytest.raises(ApplicationError, match="not in this competition"):
        submission_create(phase=practice, team=stranger, filename="preds.zip", data=example_zip)


def test_over_the_size_limit_is_refused_from_the_size(practice, team, settings):
    settings.SUBMISSION_MAX_BYTES = 1000
    with pytest.raises(SubmissionError, match="over the limit"):
        submission_create(phase=practice, team=team, filename="preds.zip", data=b"", size=5000)
