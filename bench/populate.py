"""Fill a benchmark database: the ReCAM competition, N teams x M scored submissions, materialised boards.

Rows are bulk-inserted (the upload path is what (a) and (b) measure); the leaderboard rows are then
written by the platform's own service, leaderboard_refresh, exactly as scoring writes them. The bench
submissions have no files, so no answers per question: the statistics columns (interval, rank by the
test, tied teams) are then filled with synthetic values (+-2.1 points, ties in groups of 10) so the
page renders and serves them as a real board would; they are not computed (docs/statistics.md).
"""

import datetime as dt
import random
from pathlib import Path
from unittest import mock

from tqdm import tqdm

SLUG = "recam-bench"
PHASE = "practice"


def populate(*, data_dir: Path, teams: int, per_team: int, seed: int = 7) -> dict:
    """Grow the practice phase of the bench competition to ``teams`` teams (idempotent, resumable)."""
    from django.db import transaction

    from competitions.services import competition_load_recam
    from leaderboards.services import leaderboard_refresh
    from submissions.models import Score, Submission
    from teams.models import Team

    competition = competition_load_recam(data_dir=data_dir, slug=SLUG).competition
    phase = competition.phases.get(kind=PHASE)
    totals = {ts.subtask: ts.num_questions for ts in phase.test_sets.all()}
    existing = Team.objects.filter(competition=competition).count()
    rng = random.Random(seed + existing)
    start = dt.datetime(2021, 1, 10, tzinfo=dt.UTC)
    # No answers per question here, so the statistics task (leaderboards.statistics) would only find
    # nothing to compute: it is not asked for while growing, and the columns are filled at the end.
    skip_statistics = mock.patch("leaderboards.services.statistics_request")
    for index in tqdm(range(existing, teams), desc=f"teams -> {teams}", leave=False, mininterval=5):
        with transaction.atomic(), skip_statistics:
            team = Team.objects.create(competition=competition, name=f"team-{index:05d}")
            subs = Submission.objects.bulk_create(
                Submission(
                    team=team,
                    phase=phase,
                    system_name=f"system {k}",
                    file=f"bench/{index}-{k}.zip",
                    original_filename="predictions.zip",
                    sha256=f"{rng.getrandbits(256):064x}",
                    size=9000,
                    status=Submission.Status.SCORED,
                    received_at=start + dt.timedelta(minutes=index * per_team + k),
                    finished_at=start + dt.timedelta(minutes=index * per_team + k, seconds=1),
                )
                for k in range(per_team)
            )
            Score.objects.bulk_create(
                _score(sub, subtask, total, rng) for sub in subs for subtask, total in totals.items()
            )
            leaderboard_refresh(phase=phase, team=team)
    _synthetic_statistics(phase)
    return {"competition": SLUG, "phase": PHASE, "teams": teams, "submissions_per_team": per_team}


def _score(submission, subtask: int, total: int, rng: random.Random):
    from recam.metrics import SCORER_VERSION
    from submissions.models import Score

    correct = rng.randint(total // 5, total * 9 // 10)  # ties happen, as on a real board
    trained_on = subtask if rng.random() > 0.2 else 3 - subtask  # some cross results (Subtask 3)
    return Score(
        submission=submission,
        test_subtask=subtask,
        trained_on=trained_on,
        correct=correct,
        total=total,
        accuracy=correct / total,
        scorer_version=SCORER_VERSION,
        gold_sha256="0" * 64,
    )


def _synthetic_statistics(phase) -> None:
    """Interval and tie columns for the rendered page (bench rows have no answers per question)."""
    from leaderboards.models import LeaderboardEntry

    entries = list(LeaderboardEntry.objects.filter(phase=phase).order_by("test_subtask", "-accuracy", "id"))
    for subtask in {e.test_subtask for e in entries}:
        ranked = [e for e in entries if e.test_subtask == subtask and e.accuracy is not None]
        for position, entry in enumerate(ranked):
            group = ranked[position - position % 10 : position - position % 10 + 10]
            entry.stat_rank = 1 + position - position % 10
            entry.rank_tied_with = [e.team_name for e in group if e is not entry]
            entry.accuracy_lo, entry.accuracy_hi = entry.accuracy - 0.021, entry.accuracy + 0.021
    fields = ["stat_rank", "rank_tied_with", "accuracy_lo", "accuracy_hi"]
    LeaderboardEntry.objects.bulk_update(entries, fields, batch_size=500)
