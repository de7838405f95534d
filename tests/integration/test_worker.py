"""End to end with real processes: an upload is scored by a real Celery worker over the local Redis."""

import pytest
from django.conf import settings

from competitions.services import competition_load_recam
from leaderboards.models import LeaderboardEntry
from recam.submission import make_zip
from submissions.models import Score, Submission
from submissions.services import submission_create
from tasks.scoring import score_submission
from tests.integration.conftest import wait_for_status
from tests.platform.factories import TeamFactory
from tests.platform.helpers import independent_count

pytestmark = pytest.mark.integration


def test_a_real_worker_scores_an_upload_as_an_independent_count(worker, recam_data_dir):
    competition = competition_load_recam(data_dir=recam_data_dir, slug="recam-it").competition
    practice = competition.phases.get(kind="practice")
    folder = recam_data_dir / "submission_example"
    files = {name: (folder / name).read_bytes() for name in ("subtask1.csv", "subtask2.csv")}
    team = TeamFactory(competition=competition, name="Owls")
    submission = submission_create(phase=practice, team=team, filename="preds.zip", data=make_zip(files))
    submission = wait_for_status(submission, {"scored", "failed"})
    assert submission.status == Submission.Status.SCORED, submission.failure_reason
    assert submission.attempts == 1
    for subtask in (1, 2):
        correct, total = independent_count(
            predictions_csv=files[f"subtask{subtask}.csv"],
            gold_jsonl=recam_data_dir / f"training_data/Task_{subtask}_dev.jsonl",
        )
        score = submission.scores.get(test_subtask=subtask)
        assert (score.correct, score.total) == (correct, total)
        entry = LeaderboardEntry.objects.get(phase=practice, team=team, test_subtask=subtask)
        assert (entry.correct, entry.total) == (correct, total)

    # A redelivered task finds the submission finished and leaves the same rows.
    before = list(Score.objects.order_by("id").values_list("id", "correct", "total", "accuracy"))
    result = score_submission.apply_async(args=[submission.pk], queue=settings.CELERY_SCORING_QUEUE)
    assert result.get(timeout=60) == "scored"
    assert list(Score.objects.order_by("id").values_list("id", "correct", "total", "accuracy")) == before
