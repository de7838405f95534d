"""Writes: bootstrap intervals and statistically tied ranks of a phase's board, once per score change.

Called by ``leaderboard_refresh`` (so by scoring, re-scoring, selection and policy changes), never by a
page view: the board reads the stored numbers in its one query. The statistics live in ``recam.stats``.
Per-question answers come from ``ScoreVector`` rows, built from the stored file the first time a score
needs them. A table is ranked by the test only when every ranked team has a vector; otherwise it keeps
the rank by accuracy (e.g. scores written without a file).
"""

import logging

import numpy as np
from django.conf import settings
from django.utils import timezone

from competitions.models import Phase
from competitions.selectors import gold_labels
from leaderboards.models import LeaderboardEntry, ScoreVector
from leaderboards.selectors import INTERVAL_FIELDS
from recam import stats
from submissions.models import Score
from submissions.selectors import submission_parse_stored

logger = logging.getLogger(__name__)
STAT_FIELDS = [
    *INTERVAL_FIELDS,
    "stat_rank",
    "rank_tied_with",
    "stats_key",
    "updated_at",
]


def _settings() -> tuple[int, int]:
    return (
        getattr(settings, "RECAM_BOOTSTRAP_RESAMPLES", stats.DEFAULT_RESAMPLES),
        getattr(settings, "RECAM_BOOTSTRAP_SEED", stats.DEFAULT_SEED),
    )


def score_vector_build(*, score) -> ScoreVector:
    """The score's per-question answers, from the stored file (kept with the reason if it cannot be read)."""
    submission = score.submission
    phase = submission.phase
    choices, correct, error, gold_sha = "", "", "", score.gold_sha256
    try:
        parsed = submission_parse_stored(submission=submission)
        test_set = next(ts for ts in phase.test_sets.all() if ts.subtask == score.test_subtask)
        gold = gold_labels(test_set=test_set)
        if gold is None:
            raise ValueError("no gold answers")
        labels, gold_sha = gold
        predictions = next(f.predictions for f in parsed.files if f.subtask == score.test_subtask)
        ids = sorted(labels)
        choices = "".join(str(predictions[i]) if i in predictions else "-" for i in ids)
        correct = "".join(map(str, stats.correctness(predictions=predictions, gold=labels)))
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"[:500]
    vector, _ = ScoreVector.objects.update_or_create(
        score=score,
        defaults={"gold_sha256": gold_sha, "choices": choices, "correct": correct, "error": error},
    )
    return vector


def _vectors(phase: Phase, entries: list[LeaderboardEntry]) -> dict[tuple[int, int], np.ndarray]:
    """(submission id, test subtask) -> 0/1 array for every counted score that has a usable vector."""
    wanted = {(e.submission_id, e.test_subtask) for e in entries if e.submission_id}
    wanted |= {(e.cross_submission_id, e.test_subtask) for e in entries if e.cross_submission_id}
    scores = Score.objects.filter(
        submission_id__in={s for s, _ in wanted}, submission__phase=phase
    ).select_related("vector", "submission__phase")
    found = {}
    for score in scores:
        if (score.submission_id, score.test_subtask) not in wanted:
            continue
        vector = getattr(score, "vector", None)
        if vector is None or vector.gold_sha256 != score.gold_sha256:
            vector = score_vector_build(score=score)
        if not vector.error and vector.correct:
            found[(score.submission_id, score.test_subtask)] = np.frombuffer(
                vector.correct.encode(), dtype=np.uint8
            ) - ord("0")
    return found


def _intervals(entry: LeaderboardEntry, vectors: dict, resamples: int, seed: int) -> None:
    same = vectors.get((entry.submission_id, entry.test_subtask))
    cross = vectors.get((entry.cross_submission_id, entry.test_subtask))
    key = f"{entry.submission_id}:{same is not None}:{entry.cross_submission_id}:{cross is not None}:{resamples}:{seed}"
    if key == entry.stats_key:
        return
    entry.stats_key = key
    lo_hi = {}
    if same is not None:
        interval = stats.accuracy_interval(correct=same, resamples=resamples, seed=seed)
        lo_hi["accuracy"] = (interval.lo, interval.hi)
    if cross is not None:
        interval = stats.accuracy_interval(correct=cross, resamples=resamples, seed=seed)
        lo_hi["cross_accuracy"] = (interval.lo, interval.hi)
    if same is not None and cross is not None and same.shape == cross.shape:
        interval = stats.difference_interval(correct=same, other=cross, resamples=resamples, seed=seed)
        lo_hi["drop"] = (interval.lo, interval.hi)
    for name in ("accuracy", "cross_accuracy", "drop"):
        setattr(entry, f"{name}_lo", lo_hi.get(name, (None, None))[0])
        setattr(entry, f"{name}_hi", lo_hi.get(name, (None, None))[1])


def _ranks(entries: list[LeaderboardEntry], vectors: dict) -> None:
    ranked = [e for e in entries if not e.is_baseline and e.accuracy is not None]
    for entry in entries:
        entry.stat_rank, entry.rank_tied_with = None, []
    rows = [vectors.get((e.submission_id, e.test_subtask)) for e in ranked]
    if not ranked or any(r is None for r in rows) or len({r.shape for r in rows}) != 1:
        return  # not every ranked team has answers per question: the table keeps the rank by accuracy
    ranking = stats.rank_entries(matrix=np.stack(rows))
    for entry, rank, tied in zip(ranked, ranking.ranks, ranking.tied_with, strict=True):
        entry.stat_rank = rank
        entry.rank_tied_with = sorted(ranked[j].team_name for j in tied)


def leaderboard_statistics_refresh(*, phase: Phase) -> int:
    """Recompute the intervals (only of rows whose counted submissions changed) and the ranks; returns rows written."""
    # Serialise two refreshes of one phase so the ranks are computed from one consistent board.
    Phase.objects.select_for_update().filter(pk=phase.pk).exists()
    entries = list(LeaderboardEntry.objects.filter(phase=phase).order_by("test_subtask", "team_name"))
    if not entries:
        return 0
    before = {e.pk: tuple(getattr(e, f) for f in STAT_FIELDS[:-1]) for e in entries}
    vectors = _vectors(phase, entries)
    resamples, seed = _settings()
    for entry in entries:
        _intervals(entry, vectors, resamples, seed)
    for subtask in sorted({e.test_subtask for e in entries}):
        _ranks([e for e in entries if e.test_subtask == subtask], vectors)
    now = timezone.now()
    changed = [e for e in entries if tuple(getattr(e, f) for f in STAT_FIELDS[:-1]) != before[e.pk]]
    for entry in changed:
        entry.updated_at = now  # the board's cache version moves with it
    LeaderboardEntry.objects.bulk_update(changed, STAT_FIELDS)
    return len(changed)
