"""Reads: the public leaderboard of a phase, one table per test set (the task paper's Tables 6 and 7)."""

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from competitions.models import Phase, Subtask
from leaderboards.counting import Candidate, counted_per_slot
from leaderboards.models import LeaderboardEntry, PhaseStatistics
from recam.stats import TEST_NAME as RANK_TEST
from submissions.models import Submission, SubmissionFile
from teams.models import Team


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int | None  # None: a baseline, or a team with only a cross result
    team: str
    is_baseline: bool
    accuracy: float | None
    correct: int | None
    total: int | None
    submitted_at: dt.datetime | None
    cross_accuracy: float | None
    cross_correct: int | None
    cross_total: int | None
    entries: int | None = None  # the team's scored submissions in the phase (None: not recorded)
    # Filled for the freeze and the organizers' exports (``with_submissions=True``).
    system_name: str = ""
    submission_id: int | None = None
    submission_sha256: str = ""
    cross_submission_id: int | None = None
    # Statistics (``leaderboards.intervals``): 95% bootstrap intervals and who shares the rank.
    accuracy_lo: float | None = None
    accuracy_hi: float | None = None
    cross_accuracy_lo: float | None = None
    cross_accuracy_hi: float | None = None
    drop_lo: float | None = None
    drop_hi: float | None = None
    rank_tied_with: tuple[str, ...] = ()
    rank_test: str = ""  # the test behind the rank; empty: ranked by accuracy
    # A CLOTH or SCDE row: every metric of its format (``Score.metrics``); empty for ReCAM.
    metrics: Mapping[str, float] = field(default_factory=dict, hash=False)

    @property
    def accuracy_half_width(self) -> float | None:
        return None if self.accuracy_lo is None else (self.accuracy_hi - self.accuracy_lo) / 2

    @property
    def cross_half_width(self) -> float | None:
        return (
            None if self.cross_accuracy_lo is None else (self.cross_accuracy_hi - self.cross_accuracy_lo) / 2
        )

    @property
    def drop(self) -> float | None:
        """Acc minus Acc. Cross, in accuracy units (the paper prints it in points with a down arrow)."""
        if self.accuracy is None or self.cross_accuracy is None:
            return None
        return self.accuracy - self.cross_accuracy


# The statistics of a row (``leaderboards.intervals``), named alike on the board row and the stored rows.
INTERVAL_FIELDS = (
    "accuracy_lo",
    "accuracy_hi",
    "cross_accuracy_lo",
    "cross_accuracy_hi",
    "drop_lo",
    "drop_hi",
)
# The fields a LeaderboardRow shares, by name, with the stored rows (LeaderboardEntry, OfficialResultRow).
SHARED_ROW_FIELDS = (
    "is_baseline",
    "accuracy",
    "correct",
    "total",
    "submitted_at",
    "cross_accuracy",
    "cross_correct",
    "cross_total",
    "entries",
    *INTERVAL_FIELDS,
    "metrics",
)


def shared_row_values(row: object) -> dict:
    """The SHARED_ROW_FIELDS of a board row, a stored entry or a frozen row, by name."""
    return {name: getattr(row, name) for name in SHARED_ROW_FIELDS}


@dataclass(frozen=True)
class LeaderboardTable:
    subtask: int
    title: str
    cross_from: int
    rows: tuple[LeaderboardRow, ...]


def leaderboard_tables(
    *, phase: Phase, subtasks: Iterable[int] = (), with_submissions: bool = False
) -> list[LeaderboardTable]:
    """One table per test set of the phase, in one query: baselines on top (unranked), then teams by Acc.

    Ties share a rank ("1, 1, 3") and the earlier submission is listed first; a team with only a cross
    result is listed after the ranked teams, unranked.
    """
    queryset = LeaderboardEntry.objects.filter(phase=phase).order_by("test_subtask", "team_name")
    if with_submissions:
        queryset = queryset.select_related("submission", "cross_submission")
    entries = list(queryset)
    every = sorted({e.test_subtask for e in entries} | set(subtasks))
    return [
        _table(subtask, [e for e in entries if e.test_subtask == subtask], with_submissions)
        for subtask in every
    ]


def _table(subtask: int, entries: list[LeaderboardEntry], with_submissions: bool = False) -> LeaderboardTable:
    baselines = sorted((e for e in entries if e.is_baseline), key=lambda e: -(e.accuracy or 0.0))
    teams = [e for e in entries if not e.is_baseline]
    ranked = sorted(
        (e for e in teams if e.accuracy is not None), key=lambda e: (-e.accuracy, e.submitted_at, e.id)
    )
    cross_only = [e for e in teams if e.accuracy is None]
    rows = [_row(e, None, with_submissions) for e in baselines]
    if ranked and all(e.stat_rank is not None for e in ranked):  # ranked by the paired test (stored)
        ranked.sort(key=lambda e: e.stat_rank)  # stable: accuracy order within a rank
        sharing: dict[int, list[str]] = {}  # who shares a rank, derived here: never stored per row
        for entry in ranked:
            sharing.setdefault(entry.stat_rank, []).append(entry.team_name)
        rows.extend(
            _row(
                e,
                e.stat_rank,
                with_submissions,
                tied=tuple(sorted(n for n in sharing[e.stat_rank] if n != e.team_name)),
            )
            for e in ranked
        )
    else:
        rank, previous = 0, None
        for position, entry in enumerate(ranked, start=1):
            if entry.accuracy != previous:
                rank, previous = position, entry.accuracy
            rows.append(_row(entry, rank, with_submissions))
    rows.extend(_row(e, None, with_submissions) for e in cross_only)
    return LeaderboardTable(
        subtask=subtask, title=Subtask(subtask).label, cross_from=3 - subtask, rows=tuple(rows)
    )


def _row(
    entry: LeaderboardEntry, rank: int | None, with_submissions: bool = False, tied: tuple[str, ...] = ()
) -> LeaderboardRow:
    extra = {}
    if with_submissions:
        submission = entry.submission
        named = submission or entry.cross_submission  # a row with only a cross result names that system
        extra = {
            "system_name": named.system_name if named else "",
            "submission_id": entry.submission_id,
            "submission_sha256": submission.sha256 if submission else "",
            "cross_submission_id": entry.cross_submission_id,
        }
    return LeaderboardRow(
        rank=rank,
        team=entry.team_name,
        **shared_row_values(entry),
        rank_tied_with=tied,
        rank_test=RANK_TEST if entry.stat_rank is not None and rank is not None else "",
        **extra,
    )


def counted_submission_ids(*, phase: Phase, team: Team) -> set[int]:
    """The team's submissions that count in the phase (one per leaderboard slot, see leaderboards.counting).

    ``best``: the ones on the leaderboard (needs scores). ``last``/``selected``: decided among the valid,
    non-failed submissions from their files, so a submission waiting for gold or for scoring already
    shows "counted" (the board itself shows the counted one among the scored).
    """
    if phase.counted_policy == Phase.CountedPolicy.BEST:
        pairs = LeaderboardEntry.objects.filter(phase=phase, team=team).values_list(
            "submission_id", "cross_submission_id"
        )
        return {pk for pair in pairs for pk in pair if pk is not None}
    files = SubmissionFile.objects.filter(submission__team=team, submission__phase=phase).exclude(
        submission__status=Submission.Status.FAILED
    )
    candidates = [
        Candidate(
            submission_id=sid, slot=(subtask, subtask != trained), received_at=received, selected_at=sel
        )
        for sid, subtask, trained, received, sel in files.values_list(
            "submission_id", "subtask", "trained_on", "submission__received_at", "submission__selected_at"
        )
    ]
    return {
        c.submission_id for c in counted_per_slot(policy=phase.counted_policy, candidates=candidates).values()
    }


def counted_note(*, submission: Submission, counted_ids: set[int], hidden: bool) -> str:
    """The sentence about counting shown next to a submission (never reveals a hidden ranking)."""
    phase = submission.phase
    if phase.counted_policy == "best" and hidden:
        return "your best-scoring submission counts (results are hidden)"
    if submission.pk in counted_ids:
        subtasks = sorted({f.subtask for f in submission.files.all()})
        which = " and ".join(f"Subtask {n}" for n in subtasks)
        return f"this is your counted submission for {which}" if which else "this is your counted submission"
    return ""


def phase_counted_submission_ids(*, phase: Phase) -> set[int]:
    """Every team's counted submissions in the phase (the organizers' download marks them)."""
    team_ids = Submission.objects.filter(phase=phase).values_list("team_id", flat=True).distinct()
    counted: set[int] = set()
    for team in Team.objects.filter(pk__in=team_ids):
        counted |= counted_submission_ids(phase=phase, team=team)
    return counted


def phase_statistics_state(*, phase: Phase) -> dict:
    """Which statistics version the board shows, and whether a recompute is pending (one query)."""
    state = PhaseStatistics.objects.filter(phase=phase).first()
    if state is None:
        return {"statistics_version": 0, "statistics_updating": False}
    return {"statistics_version": state.recomputes, "statistics_updating": state.updating}
