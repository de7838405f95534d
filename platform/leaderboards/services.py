"""Writes: materialise a team's leaderboard rows (called whenever a score is written), refresh a phase,
freeze its official results, publish it."""

from collections.abc import Collection

from django.db import transaction
from django.utils import timezone

from competitions.errors import ApplicationError
from competitions.models import GoldAnswers, Phase
from competitions.task_formats import phase_format
from leaderboards.counting import Candidate, counted_per_slot
from leaderboards.intervals import leaderboard_statistics_refresh
from leaderboards.models import LeaderboardEntry, OfficialResult, OfficialResultRow
from leaderboards.selectors import LeaderboardRow, leaderboard_tables, shared_row_values
from leaderboards.statistics import statistics_lock_exclusive, statistics_lock_shared, statistics_request
from submissions.models import Score, Submission
from teams.factsheets import fact_sheet_is_complete
from teams.models import Team


def leaderboard_refresh(*, phase: Phase, team: Team, statistics: bool = True) -> list[LeaderboardEntry]:
    """Rewrite the team's rows from its counted scored submissions ("Acc" and "Acc. Cross" per test set).

    The phase's policy picks the counted one per slot (``leaderboards.counting``): best (highest
    accuracy, then the earliest submission), the team's selection (default: the last) or the last.
    Only scored submissions count. The phase's intervals and ranks are not computed here: after the
    commit the statistics task recomputes them once per burst (``leaderboards.statistics``);
    ``statistics=False`` leaves even the asking to the caller (a whole-phase recount asks once).

    Lock order, the same in every writer of the board: the phase's statistics row (FOR KEY SHARE: only
    a freeze waits for it), the team's row, then its entries by test subtask. A no-op outside a
    transaction and on SQLite (writers are serialised).
    """

    statistics_lock_shared(phase_id=phase.pk)
    # The team's row lock serialises two refreshes of one team (two of its submissions scored at once),
    # so the second reads the first one's committed score. NO KEY: uploads inserting rows that point at
    # the team are not blocked.
    Team.objects.select_for_update(no_key=True).filter(pk=team.pk).exists()
    list(
        LeaderboardEntry.objects.select_for_update(no_key=True)
        .filter(phase=phase, team=team)
        .order_by("test_subtask")
        .values_list("pk", flat=True)
    )
    scores = {
        score.pk: score
        for score in Score.objects.filter(
            submission__team=team, submission__phase=phase, submission__status=Submission.Status.SCORED
        ).select_related("submission")
    }
    candidates = [
        Candidate(
            submission_id=score.pk,  # the score row stands in for its submission: one per slot
            slot=(score.test_subtask, score.is_cross),
            received_at=score.submission.received_at,
            selected_at=score.submission.selected_at,
            accuracy=score.accuracy,
        )
        for score in scores.values()
    ]
    counted = counted_per_slot(policy=phase.counted_policy, candidates=candidates)
    if phase.fact_sheet_required and not team.is_baseline and not _has_fact_sheet(team):
        counted = {}  # the phase requires a complete fact sheet before the team's result counts
    best: dict[tuple[int, bool], Score] = {slot: scores[c.submission_id] for slot, c in counted.items()}
    entries_count = len({score.submission_id for score in scores.values()})  # "Entries": scored uploads
    entries = [
        LeaderboardEntry(
            phase=phase,
            test_subtask=subtask,
            team=team,
            team_name=team.name,
            is_baseline=team.is_baseline,
            entries=entries_count,
            **_fields(best.get((subtask, False)), prefix=""),
            **_fields(best.get((subtask, True)), prefix="cross_"),
        )
        for subtask in sorted({key[0] for key in best})
    ]
    if entries:  # one upsert on the (phase, test subtask, team) constraint
        LeaderboardEntry.objects.bulk_create(
            entries,
            update_conflicts=True,
            unique_fields=["phase", "test_subtask", "team"],
            update_fields=ENTRY_FIELDS,
        )
    LeaderboardEntry.objects.filter(phase=phase, team=team).exclude(
        test_subtask__in=[e.test_subtask for e in entries]
    ).delete()
    if statistics:
        statistics_request(phase_id=phase.pk)
    return entries


def _has_fact_sheet(team: Team) -> bool:
    return fact_sheet_is_complete(team=team)


ENTRY_FIELDS = [
    "team_name",
    "is_baseline",
    "entries",
    *(
        f"{prefix}{name}"
        for prefix in ("", "cross_")
        for name in ("submission", "accuracy", "correct", "total", "submitted_at")
    ),
    "metrics",
    "updated_at",
]


def _fields(score, *, prefix: str) -> dict:
    metrics = {} if prefix else {"metrics": dict(score.metrics) if score else {}}  # CLOTH, SCDE: no cross
    return metrics | {
        f"{prefix}submission": score.submission if score else None,
        f"{prefix}accuracy": score.accuracy if score else None,
        f"{prefix}correct": score.correct if score else None,
        f"{prefix}total": score.total if score else None,
        f"{prefix}submitted_at": score.submission.received_at if score else None,
    }


def leaderboard_refresh_phase(*, phase: Phase, statistics: bool = True) -> int:
    """Rewrite every team's rows (after a policy change); returns the number of teams.

    All teams are rewritten in one transaction (readers never see a half-recounted board, in team id
    order: the lock order); the statistics task then recomputes the ranks and intervals once.
    """

    with transaction.atomic():
        team_ids = set(Submission.objects.filter(phase=phase).values_list("team_id", flat=True))
        team_ids |= set(LeaderboardEntry.objects.filter(phase=phase).values_list("team_id", flat=True))
        for team in Team.objects.filter(pk__in=team_ids).order_by("pk"):
            leaderboard_refresh(phase=phase, team=team, statistics=False)
        if statistics:
            statistics_request(phase_id=phase.pk)
    return len(team_ids)


def phase_settings_changed(*, phase: Phase, changed: Collection[str]) -> None:
    """After an organizer edits a phase: a new counted policy or fact-sheet rule rewrites the board at once."""
    if {"counted_policy", "fact_sheet_required"} & set(changed):
        leaderboard_refresh_phase(phase=phase)


def official_result_freeze(*, phase: Phase, frozen_by: str = "") -> OfficialResult:
    """Snapshot the counted submission per team with its scores, the scorer version and the gold sha256s.

    A CLOTH or SCDE row keeps every metric of its format (BA, PA, DE) and is checked against its format's
    scorer version.

    Refused if a counted score was computed by another scorer version or against other gold answers
    than the ones stored now (re-score first). Freezing again makes a new snapshot; none is ever edited.
    The board is held still meanwhile (scorings wait; uploads do not), recounted, and its statistics
    recomputed in the same transaction, so the official ranks and intervals are exact and complete.
    """

    with transaction.atomic():
        statistics_lock_exclusive(phase_id=phase.pk)
        leaderboard_refresh_phase(phase=phase, statistics=False)
        leaderboard_statistics_refresh(phase=phase)
        gold = {
            str(g.test_set.subtask): g.sha256
            for g in GoldAnswers.objects.filter(test_set__phase=phase).select_related("test_set")
        }
        subtasks = sorted(int(s) for s in gold)
        if not subtasks:
            raise ApplicationError(f"the {phase.title} phase has no gold answers yet: nothing to freeze")
        tables = leaderboard_tables(phase=phase, subtasks=subtasks, with_submissions=True)
        scorer_version = phase_format(phase=phase).scorer_version  # ReCAM's, or the CLOTH / SCDE scorer's
        stale = Score.objects.filter(submission__phase=phase, submission__status="scored").exclude(
            scorer_version=scorer_version
        )
        for subtask, sha in gold.items():
            stale = stale | Score.objects.filter(
                submission__phase=phase, submission__status="scored", test_subtask=int(subtask)
            ).exclude(gold_sha256=sha)
        if stale.exists():
            raise ApplicationError(
                f"{stale.count()} scores were computed with another scorer version or other gold answers: "
                "re-score the phase (recam_gold re-scores it) before freezing"
            )
        result = OfficialResult.objects.create(
            phase=phase,
            frozen_at=timezone.now(),
            counted_policy=phase.counted_policy,
            scorer_version=scorer_version,
            gold_sha256=gold,
            frozen_by=frozen_by,
        )
        OfficialResultRow.objects.bulk_create(
            _frozen_row(result, table.subtask, position, row)
            for table in tables
            if table.subtask in subtasks
            for position, row in enumerate(table.rows)
        )
    return result


def _frozen_row(
    result: OfficialResult, subtask: int, position: int, row: LeaderboardRow
) -> OfficialResultRow:
    return OfficialResultRow(
        result=result,
        test_subtask=subtask,
        position=position,
        rank=row.rank,
        team_name=row.team,
        **shared_row_values(row),
        system_name=row.system_name,
        submission_id_frozen=row.submission_id,
        submission_sha256=row.submission_sha256,
        cross_submission_id_frozen=row.cross_submission_id,
        rank_tied_with=list(row.rank_tied_with),
        rank_test=row.rank_test,
    )


def phase_publish(*, phase: Phase, publish: bool = True) -> Phase:
    """Show (or hide again) a phase's results: scores on pages, API and CLI, and the (frozen) board."""
    Phase.objects.filter(pk=phase.pk).update(results_hidden=not publish)
    phase.results_hidden = not publish
    return phase
