"""A burst of concurrent uploads from many teams, scored by a real worker: the statistics settle, exact.

Scoring commits only the score and the team's row; the statistics task recomputes the ranks and
intervals once per burst. Once it settles, the stored board must equal a from-scratch recount with
``recam.stats`` over the answers this test generated, with no deadlock (PostgreSQL counts them) and
no failed upload; the freeze is exact.
"""

import threading
import time

import numpy as np
import pytest
from django.conf import settings
from django.db import connection

from competitions.services import gold_store, phase_test_set_store
from leaderboards.models import PhaseStatistics
from leaderboards.official import official_tables
from leaderboards.selectors import leaderboard_tables
from leaderboards.services import official_result_freeze
from recam import stats
from recam.submission import format_predictions
from submissions.models import Submission
from submissions.services import submission_create
from tests.platform.factories import PhaseFactory, TeamFactory

pytestmark = pytest.mark.integration
Q, TEAMS, UPLOADS = 400, 12, 3


def _deadlocks() -> int:
    if connection.vendor != "postgresql":
        return 0
    with connection.cursor() as cursor:
        cursor.execute("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")
        return int(cursor.fetchone()[0])


def _answers(rng: np.random.Generator, quality: float) -> dict[int, int]:
    right = rng.random(Q) < quality
    return {i: i % 5 if right[i] else (i + 1) % 5 for i in range(Q)}


def _expected(answers: dict[str, dict[int, int]]) -> dict[str, tuple]:
    names = sorted(answers)
    gold = {i: i % 5 for i in range(Q)}
    vectors = [stats.correctness(predictions=answers[n], gold=gold) for n in names]
    ranking = stats.rank_entries(matrix=np.stack(vectors))
    out = {}
    for k, name in enumerate(names):
        interval = stats.accuracy_interval(
            correct=vectors[k],
            resamples=settings.RECAM_BOOTSTRAP_RESAMPLES,
            seed=settings.RECAM_BOOTSTRAP_SEED,
        )
        tied = tuple(sorted(names[j] for j in ranking.tied_with[k]))
        out[name] = (ranking.ranks[k], tied, round(interval.lo, 9), round(interval.hi, 9))
    return out


def _board(tables) -> dict[str, tuple]:
    (table,) = [t for t in tables if t.subtask == 1]
    return {
        r.team: (r.rank, tuple(sorted(r.rank_tied_with)), round(r.accuracy_lo, 9), round(r.accuracy_hi, 9))
        for r in table.rows
    }


def _settled(phase, expected_uploads: int, timeout: float = 180.0) -> PhaseStatistics:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = Submission.objects.filter(phase=phase, status__in=["scored", "failed"]).count()
        state = PhaseStatistics.objects.filter(phase=phase).first()
        if done == expected_uploads and state and not state.updating and state.scheduled_at is None:
            return state
        time.sleep(0.25)
    pytest.fail(f"not settled: {done} of {expected_uploads} finished, statistics {state and state.__dict__}")


def test_a_burst_of_uploads_settles_to_a_from_scratch_recount_and_freezes_exactly(worker):
    phase = PhaseFactory(kind="practice", counted_policy="last")
    test_set = phase_test_set_store(
        phase=phase, subtask=1, question_ids=list(range(Q)), source_name="t", source_sha256="0" * 64
    )
    gold_store(test_set=test_set, labels={i: i % 5 for i in range(Q)}, source_name="t")
    teams = [TeamFactory(competition=phase.competition, name=f"team {i:02d}") for i in range(TEAMS)]
    rng = np.random.default_rng(11)
    files = {
        team.name: [_answers(rng, 0.3 + 0.04 * i) for _ in range(UPLOADS)] for i, team in enumerate(teams)
    }
    deadlocks, errors = _deadlocks(), []

    def upload(team) -> None:
        try:
            for answers in files[team.name]:
                submission_create(
                    phase=phase, team=team, filename="subtask1.csv", data=format_predictions(answers).encode()
                )
        except Exception as exc:  # reported below: an upload must never fail under load
            errors.append(f"{team.name}: {type(exc).__name__}: {exc}")
        finally:
            connection.close()

    threads = [threading.Thread(target=upload, args=(team,)) for team in teams]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    state = _settled(phase, TEAMS * UPLOADS)
    assert not Submission.objects.filter(phase=phase, status="failed").exists()
    assert _deadlocks() == deadlocks
    assert state.requested == TEAMS * UPLOADS  # every score change counted once
    assert 1 <= state.recomputes < TEAMS * UPLOADS  # debounced: fewer recomputes than changes
    expected = _expected({name: uploads[-1] for name, uploads in files.items()})  # "last" counts
    assert _board(leaderboard_tables(phase=phase)) == expected

    result = official_result_freeze(phase=phase, frozen_by="test")
    assert _board(official_tables(result=result)) == expected
