"""Score one submission: the scoring service the ``submissions.score`` task calls (thin task in tasks/)."""

import datetime as dt
import logging
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from competitions.retry import retry_on_conflict
from competitions.selectors import gold_labels
from recam.formats import DEFAULT_FORMAT
from recam.metrics import SCORER_VERSION, Score, score_predictions
from recam.stats import answer_strings
from recam.submission import SubmissionError
from submissions.models import Score as ScoreRow
from submissions.models import Submission
from submissions.selectors import submission_predictions
from submissions.services import TERMINAL, submission_mark_failed
from submissions.signals import team_results_changed
from submissions.task_formats import format_score

logger = logging.getLogger(__name__)
Status = Submission.Status


@dataclass(frozen=True)
class _Result:
    test_subtask: int
    trained_on: int
    score: Score
    gold_sha256: str
    metrics: dict = field(default_factory=dict)  # a multi-blank format's metrics (submissions.task_formats)
    scorer_version: str = SCORER_VERSION
    # chosen options and right/wrong per question (``recam.stats.answer_strings``); for CLOTH and SCDE
    # no choices and right/wrong per blank (``submissions.task_formats.FormatScore.correct``)
    answers: tuple[str, str] | None = None


def submission_score(*, submission_id: int) -> Submission:
    """Score one submission. Idempotent: a finished submission is left as it is; a rerun rewrites the same rows.

    Two short transactions around the parse: the first (one conditional UPDATE) records "scoring" (and
    the attempt, so a file that kills its worker is failed by the reaper instead of retried for ever),
    the second writes the status, the score rows and the team's leaderboard rows at once. The phase, its
    test sets and the files are read once; only the submission row is locked, never the shared phase row.
    """
    now = timezone.now()
    # One conditional UPDATE (it takes the row lock for its own short transaction): unless finished,
    # "scoring" and one more attempt; then the row as written, with its phase and team.
    Submission.objects.filter(pk=submission_id).exclude(status__in=TERMINAL).update(
        status=Status.SCORING,
        scoring_started_at=now,
        attempts=F("attempts") + 1,
        lease_expires_at=now + dt.timedelta(seconds=settings.SCORING_TASK_TIME_LIMIT),
    )
    submission = Submission.objects.select_related("phase__competition", "team").get(pk=submission_id)
    if submission.status in TERMINAL:
        return submission
    try:
        results = _compute(submission)
    except SubmissionError as exc:
        return submission_mark_failed(
            submission=submission, reason=f"the stored file does not validate:\n{exc}"
        )
    except (ValueError, OSError):  # a missing stored file, or a gold file that fails its sha256 check
        logger.exception("submission %s could not be scored", submission_id)
        reason = "the scoring service could not read the stored file or the gold answers; the organizers will re-score it"
        return submission_mark_failed(submission=submission, reason=reason)
    return retry_on_conflict(lambda: _finish(submission, results), what=f"scoring submission {submission_id}")


def _finish(submission: Submission, results: list[_Result] | None) -> Submission:
    """Write the outcome unless another run finished first (the conditional UPDATE takes the row lock).

    One short transaction: the status, the scores, their answer vectors and the team's rows. The
    phase's statistics are recomputed after it, by their own task. Run again whole after a deadlock.
    """
    status = Status.WAITING_GOLD if results is None else Status.SCORED
    finished_at = timezone.now()
    with transaction.atomic():
        won = Submission.objects.filter(pk=submission.pk, status=Status.SCORING).update(
            status=status, finished_at=finished_at, lease_expires_at=None, failure_reason=""
        )
        if not won:  # another run finished first
            return Submission.objects.get(pk=submission.pk)
        answers = {}
        if results is not None:
            _write_scores(submission, results)
            answers = {r.test_subtask: (r.gold_sha256, *r.answers) for r in results if r.answers is not None}
        team_results_changed.send(
            sender=Submission,
            phase=submission.phase,
            team=submission.team,
            submission_id=submission.pk,
            answers=answers,
        )
    submission.status = status
    submission.finished_at = finished_at
    submission.lease_expires_at = None
    submission.failure_reason = ""
    return submission


def _compute(submission: Submission) -> list[_Result] | None:
    """Scores per file, or None when a test set has no gold answers yet."""
    phase = submission.phase
    # The labels validated at upload (stored with the file rows; the stored file parsed again without them).
    parsed = submission_predictions(submission=submission)
    if phase.competition.task_format != DEFAULT_FORMAT:
        return _format_results(phase, parsed)
    trained_on = {f.subtask: f.trained_on for f in submission.files.all()}  # prefetched by the read above
    test_sets = {ts.subtask: ts for ts in phase.test_sets.all()}
    results = []
    for prediction_file in parsed.files:
        gold = gold_labels(test_set=test_sets[prediction_file.subtask])
        if gold is None:
            return None
        labels, gold_sha256 = gold
        score = score_predictions(predictions=prediction_file.predictions, gold=labels)
        results.append(
            _Result(
                test_subtask=prediction_file.subtask,
                trained_on=trained_on.get(prediction_file.subtask, prediction_file.subtask),
                score=score,
                gold_sha256=gold_sha256,
                answers=answer_strings(predictions=prediction_file.predictions, gold=labels),
            )
        )
    return results


def _format_results(phase, parsed) -> list[_Result] | None:
    """The one score row of a CLOTH or SCDE upload, or None while its gold is not loaded."""
    result = format_score(phase=phase, parsed=parsed)
    if result is None:
        return None
    subtask = parsed.files[0].subtask
    return [
        _Result(
            test_subtask=subtask, trained_on=subtask, score=result.score, gold_sha256=result.gold_sha256,
            metrics=result.metrics, scorer_version=result.scorer_version, answers=("", result.correct),
        )
    ]  # fmt: skip


SCORE_FIELDS = ["trained_on", "correct", "total", "accuracy", "scorer_version", "gold_sha256", "scored_at"]
SCORE_FIELDS += ["metrics"]


def _write_scores(submission: Submission, results: list[_Result]) -> None:
    """One upsert for all score rows (insert, or update on the (submission, test subtask) constraint)."""
    ScoreRow.objects.filter(submission=submission).exclude(
        test_subtask__in=[r.test_subtask for r in results]
    ).delete()
    ScoreRow.objects.bulk_create(
        [
            ScoreRow(
                submission=submission,
                test_subtask=result.test_subtask,
                trained_on=result.trained_on,
                correct=result.score.correct,
                total=result.score.total,
                accuracy=result.score.accuracy,
                scorer_version=result.scorer_version,
                gold_sha256=result.gold_sha256,
                metrics=result.metrics,
            )
            for result in results
        ],
        update_conflicts=True,
        unique_fields=["submission", "test_subtask"],
        update_fields=SCORE_FIELDS,
    )
