"""Scores of the multi-blank task formats (CLOTH, SCDE) through ``recam.formats``, and loading their test sets.

The scoring service (``submissions.scoring``) calls ``format_score`` for a CLOTH or SCDE competition;
ReCAM competitions keep ``recam.metrics``. Uploads: ``submissions.format_uploads``.
"""

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from django.db import transaction

from competitions.models import Phase
from competitions.task_formats import (
    format_gold_records,
    format_test_set_get,
    format_test_set_load,
    phase_format,
)
from recam.metrics import Score
from recam.submission import ParsedSubmission
from submissions.models import Submission
from submissions.services import submission_requeue


@dataclass(frozen=True)
class FormatScore:
    score: Score  # the headline metric, and the blanks right of all blanks
    metrics: dict[str, float]
    scorer_version: str
    gold_sha256: str
    # "1"/"0" per blank (passages in id order, blanks in reading order): the ScoreVector of the
    # board's intervals and tied ranks (``leaderboards.intervals``)
    correct: str = ""


def format_score(*, phase: Phase, parsed: ParsedSubmission) -> FormatScore | None:
    """Score a parsed multi-blank upload with its format's scorer; None while the gold is not loaded."""
    fmt = phase_format(phase=phase)
    test_set = format_test_set_get(phase=phase)
    gold = None if test_set is None else format_gold_records(test_set=test_set)
    if gold is None:
        return None
    records, gold_sha256 = gold
    predictions = parsed.files[0].predictions
    metrics = fmt.score(predictions=predictions, records=records)
    right = fmt.rank_vector(predictions=predictions, records=records)
    score = Score(correct=int(right.sum()), total=int(right.size), accuracy=metrics[fmt.metrics[0].key])
    return FormatScore(
        score=score,
        metrics=metrics,
        scorer_version=fmt.scorer_version,
        gold_sha256=gold_sha256,
        correct=bits_text(right),
    )


def bits_text(right) -> str:
    """A 0/1 vector as the ScoreVector's text: one "1" or "0" per item."""
    return (np.asarray(right, dtype=np.uint8) + ord("0")).astype(np.uint8).tobytes().decode()


def format_test_set_load_and_rescore(*, phase: Phase, path: Path, official: bool = False) -> str:
    """Load a CLOTH or SCDE test set (and its gold) and re-queue the phase's scored and waiting submissions."""
    with transaction.atomic():
        message = format_test_set_load(phase=phase, path=path, official=official)
        statuses = [Submission.Status.WAITING_GOLD, Submission.Status.SCORED]
        for submission in Submission.objects.filter(phase=phase, status__in=statuses):
            submission_requeue(submission=submission)
    return message
