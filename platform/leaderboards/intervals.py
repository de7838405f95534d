"""Writes: the bootstrap intervals and statistically tied ranks of a phase's board, from one snapshot.

Never inside a scoring transaction: a score change asks for a recompute (``statistics.py``), and the
statistics task calls ``leaderboard_statistics_refresh`` once per burst. It reads the board and the
answer vectors in one snapshot, computes outside any transaction, and writes the changed rows and the
phase's statistics version in one short transaction (optimistic: a newer write wins). The freeze calls
it inside its own transaction, with the board held still, so the frozen statistics are exact.

Per-question answers come from ``ScoreVector`` rows, which scoring writes from the predictions it has
just parsed (``score_vector_values``); a score without one (written before vectors existed) gets it
built from the stored file here, once. A CLOTH or SCDE score's vector is right/wrong per blank (its
format's ``rank_vector``): the tied ranks test blanks; the intervals resample the headline's items
(``TaskFormat.interval_items``: blanks for CLOTH, passages for SCDE's blank accuracy). A table is
ranked by the test only when every ranked team has a vector; otherwise it keeps the rank by accuracy. Who shares a rank is derived from the stored ranks
when the board is read (``selectors``), so a change never rewrites other teams' tie lists.
"""

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from competitions.models import Phase
from competitions.selectors import gold_labels
from competitions.task_formats import format_test_set_get
from leaderboards.models import LeaderboardEntry, PhaseStatistics, ScoreVector
from leaderboards.selectors import INTERVAL_FIELDS
from recam import stats
from recam.formats import DEFAULT_FORMAT, get_format
from submissions.models import Score
from submissions.selectors import submission_parse_stored
from submissions.task_formats import format_score

logger = logging.getLogger(__name__)
STAT_FIELDS = [*INTERVAL_FIELDS, "stat_rank", "rank_tied_with", "stats_key", "updated_at"]
# (phase id, test subtask) -> the pair counts of the last board this process ranked (``stats.PairwiseCounts``).
_PAIRWISE: dict[tuple[int, int], stats.PairwiseCounts] = {}


def _settings() -> tuple[int, int]:
    return (
        getattr(settings, "RECAM_BOOTSTRAP_RESAMPLES", stats.DEFAULT_RESAMPLES),
        getattr(settings, "RECAM_BOOTSTRAP_SEED", stats.DEFAULT_SEED),
    )


def score_vector_values(*, predictions: Mapping[int, int], gold: Mapping[int, int]) -> dict[str, str]:
    """The ``ScoreVector`` strings of one prediction file: chosen option and right/wrong per gold id, sorted."""
    choices, correct = stats.answer_strings(predictions=predictions, gold=gold)
    return {"choices": choices, "correct": correct}


def score_vectors_store(*, submission_id: int, answers: Mapping[int, tuple[str, str, str]]) -> None:
    """Store the vectors scoring built from the predictions it parsed: test subtask -> (gold sha, choices, correct)."""
    scores = Score.objects.filter(submission_id=submission_id, test_subtask__in=list(answers))
    vectors = [
        ScoreVector(
            score_id=pk,
            gold_sha256=answers[subtask][0],
            choices=answers[subtask][1],
            correct=answers[subtask][2],
            error="",
        )
        for pk, subtask in scores.values_list("pk", "test_subtask")
    ]
    ScoreVector.objects.bulk_create(
        vectors,
        update_conflicts=True,
        unique_fields=["score"],
        update_fields=["gold_sha256", "choices", "correct", "error", "built_at"],
    )


def score_vector_build(*, score) -> ScoreVector:
    """The score's per-question (per-blank) answers from the stored file, for scores written without them."""
    values, error, gold_sha = {"choices": "", "correct": ""}, "", score.gold_sha256
    try:
        values, gold_sha = _vector_values(score)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"[:500]
    vector, _ = ScoreVector.objects.update_or_create(
        score=score, defaults={"gold_sha256": gold_sha, **values, "error": error}
    )
    return vector


def _vector_values(score) -> tuple[dict[str, str], str]:
    submission = score.submission
    phase = submission.phase
    parsed = submission_parse_stored(submission=submission)
    if phase.competition.task_format != DEFAULT_FORMAT:  # CLOTH, SCDE: right/wrong per blank
        result = format_score(phase=phase, parsed=parsed)
        if result is None:
            raise ValueError("no gold answers")
        return {"choices": "", "correct": result.correct}, result.gold_sha256
    test_set = next(ts for ts in phase.test_sets.all() if ts.subtask == score.test_subtask)
    gold = gold_labels(test_set=test_set)
    if gold is None:
        raise ValueError("no gold answers")
    labels, gold_sha = gold
    predictions = next(f.predictions for f in parsed.files if f.subtask == score.test_subtask)
    return score_vector_values(predictions=predictions, gold=labels), gold_sha


@dataclass(frozen=True)
class _Snapshot:
    requested: int
    version: int
    entries: list[LeaderboardEntry]
    vectors: dict[tuple[int, int], tuple[str, np.ndarray]]  # (submission, subtask) -> (gold sha, 0/1)


def _read(phase_id: int) -> _Snapshot:
    """The statistics row, the board and the counted answers as of one instant."""
    state = PhaseStatistics.objects.filter(phase_id=phase_id).values_list("requested", "recomputes").first()
    entries = list(LeaderboardEntry.objects.filter(phase_id=phase_id).order_by("test_subtask", "team_name"))
    wanted = {(e.submission_id, e.test_subtask) for e in entries if e.submission_id}
    wanted |= {(e.cross_submission_id, e.test_subtask) for e in entries if e.cross_submission_id}
    scores = (
        Score.objects.filter(submission_id__in={s for s, _ in wanted})
        .select_related("vector")
        .defer("vector__choices")
    )
    vectors, missing = {}, []
    for score in scores:
        if (score.submission_id, score.test_subtask) not in wanted:
            continue
        vector = getattr(score, "vector", None)
        if vector is None or vector.gold_sha256 != score.gold_sha256:
            missing.append(score.pk)
        elif not vector.error and vector.correct:
            bits = np.frombuffer(vector.correct.encode(), dtype=np.uint8) - ord("0")  # Shape: (questions,)
            vectors[(score.submission_id, score.test_subtask)] = (vector.gold_sha256, bits)
    if missing:  # rare: scores from before vectors were written at scoring; built once, then stored
        for score in Score.objects.filter(pk__in=missing).select_related("submission__phase"):
            vector = score_vector_build(score=score)
            if not vector.error and vector.correct:
                bits = np.frombuffer(vector.correct.encode(), dtype=np.uint8) - ord("0")
                vectors[(score.submission_id, score.test_subtask)] = (vector.gold_sha256, bits)
    requested, version = state or (0, 0)
    return _Snapshot(requested, version, entries, vectors)


def _snapshot(phase_id: int) -> _Snapshot:
    """``_read`` in one repeatable-read transaction on PostgreSQL (read-only: it blocks no writer)."""
    if connection.in_atomic_block:  # the freeze: its own transaction, with the board held still
        return _read(phase_id)
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        return _read(phase_id)


# A stored 0/1 vector -> the headline's bootstrap items (None: they do not fit); None: the vector itself.
Items = Callable[[np.ndarray], np.ndarray | None] | None


def _interval_items(phase_id: int) -> Items:
    """None for ReCAM (the vector is the items); for CLOTH and SCDE, their format's ``interval_items``."""
    phase = Phase.objects.select_related("competition").filter(pk=phase_id).first()
    if phase is None or phase.competition.task_format == DEFAULT_FORMAT:
        return None
    fmt = get_format(phase.competition.task_format)
    test_set = format_test_set_get(phase=phase)
    slots = test_set.slots if test_set else {}
    blanks = [slots[pid][0] for pid in sorted(slots, key=int)]  # passages in id order, as the vector

    def items(correct: np.ndarray) -> np.ndarray | None:
        try:
            return fmt.interval_items(correct=correct, blanks=blanks)
        except ValueError:  # a vector of another test set than the one loaded now: no interval
            logger.warning("phase %s: a vector does not fit the test set's slots", phase_id)
            return None

    return items


def _intervals(
    entry: LeaderboardEntry, vectors: dict, resamples: int, seed: int, items: Items = None
) -> None:
    same_sha, same = vectors.get((entry.submission_id, entry.test_subtask), (None, None))
    cross_sha, cross = vectors.get((entry.cross_submission_id, entry.test_subtask), (None, None))
    # The gold each vector was scored against is part of the key: a re-scored file gets new intervals.
    key = (
        f"{entry.submission_id}:{(same_sha or '')[:16]}:{entry.cross_submission_id}:{(cross_sha or '')[:16]}"
    )
    key += f":{resamples}:{seed}"
    if key == entry.stats_key:
        return
    entry.stats_key = key
    lo_hi = {}
    same_items = same if same is None or items is None else items(same)
    if same_items is not None:
        interval = stats.accuracy_interval(correct=same_items, resamples=resamples, seed=seed)
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


def _ranks(phase_id: int, subtask: int, entries: list[LeaderboardEntry], vectors: dict) -> None:
    ranked = [e for e in entries if not e.is_baseline and e.accuracy is not None]
    for entry in entries:
        entry.stat_rank, entry.rank_tied_with = None, []
    rows = [vectors.get((e.submission_id, e.test_subtask)) for e in ranked]
    if not ranked or any(r is None for r in rows) or len({r[1].shape for r in rows}) != 1:
        _PAIRWISE.pop((phase_id, subtask), None)
        return  # not every ranked team has answers per question: the table keeps the rank by accuracy
    matrix = np.stack([r[1] for r in rows])  # Shape: (ranked teams, questions)
    counts = _PAIRWISE.setdefault((phase_id, subtask), stats.PairwiseCounts())
    keys = [(e.submission_id, r[0]) for e, r in zip(ranked, rows, strict=True)]
    counts.update(keys=keys, matrix=matrix)
    ranking = stats.rank_entries(matrix=matrix, p_values=counts.p_values_)
    for entry, rank in zip(ranked, ranking.ranks, strict=True):
        entry.stat_rank = rank


def _values(entry: LeaderboardEntry) -> tuple:
    return tuple(getattr(entry, f) for f in STAT_FIELDS[:-1])


def leaderboard_statistics_refresh(*, phase: Phase | None = None, phase_id: int | None = None) -> int:
    """Recompute the intervals (of rows whose counted submissions changed) and the ranks; returns rows written.

    Returns -1 when another recompute wrote first (its snapshot stands; the caller asks again if needed).
    """
    phase_id = phase_id if phase_id is not None else phase.pk
    snapshot = _snapshot(phase_id)
    entries, vectors = snapshot.entries, snapshot.vectors
    before = {e.pk: _values(e) for e in entries}
    resamples, seed = _settings()
    items = _interval_items(phase_id) if entries else None
    for entry in entries:
        _intervals(entry, vectors, resamples, seed, items)
    for subtask in sorted({e.test_subtask for e in entries}):
        _ranks(phase_id, subtask, [e for e in entries if e.test_subtask == subtask], vectors)
    changed = [e for e in entries if _values(e) != before[e.pk]]
    return _write(phase_id, snapshot, changed)


def _write(phase_id: int, snapshot: _Snapshot, changed: list[LeaderboardEntry]) -> int:
    """The changed rows and the new version in one short transaction, unless a newer recompute wrote first.

    Lock order, as everywhere: the phase's statistics row, then entries by (team, test subtask). A row
    whose counted submission changed since the snapshot is left to the next recompute (already asked).
    """
    now = timezone.now()
    with transaction.atomic():
        PhaseStatistics.objects.bulk_create([PhaseStatistics(phase_id=phase_id)], ignore_conflicts=True)
        won = PhaseStatistics.objects.filter(phase_id=phase_id, recomputes=snapshot.version).update(
            computed=snapshot.requested, computed_at=now, recomputes=F("recomputes") + 1
        )
        if not won:
            return -1
        seen = {e.pk: (e.submission_id, e.cross_submission_id) for e in changed}
        current = (
            LeaderboardEntry.objects.select_for_update(no_key=True)
            .filter(pk__in=seen)
            .order_by("team_id", "test_subtask")
            .values_list("pk", "submission_id", "cross_submission_id")
        )
        still = {pk for pk, same, cross in current if seen[pk] == (same, cross)}
        rows = [e for e in changed if e.pk in still]
        for entry in rows:
            entry.updated_at = now  # the board's cache version moves with it
        LeaderboardEntry.objects.bulk_update(rows, STAT_FIELDS)
    return len(rows)
