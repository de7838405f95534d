"""Helpers for the competition-operations tests: a small phase with gold (all label 0) and uploads to it."""

from competitions.services import gold_store, phase_test_set_store
from recam.submission import format_predictions
from submissions.models import Submission
from submissions.services import submission_create
from tests.platform.factories import PhaseFactory

N = 10  # questions per test set


def make_phase(**fields):
    phase = PhaseFactory(**fields)
    for subtask in (1, 2):
        test_set = phase_test_set_store(
            phase=phase, subtask=subtask, question_ids=list(range(N)), source_name="t", source_sha256="0" * 64
        )
        gold_store(test_set=test_set, labels=dict.fromkeys(range(N), 0), source_name="t")
    return phase


def predictions(correct: int) -> bytes:
    return format_predictions({i: 0 if i < correct else 1 for i in range(N)}).encode()


def submit(
    capture, phase, team, correct: int, *, subtask: int = 1, trained_on: int | None = None, **kw
) -> Submission:
    """Upload ``correct`` right answers out of N for one subtask and run the scoring task (eager)."""
    with capture(execute=True):
        submission = submission_create(
            phase=phase,
            team=team,
            filename=f"subtask{subtask}.csv",
            data=predictions(correct),
            trained_on={subtask: trained_on or subtask},
            **kw,
        )
    submission.refresh_from_db()
    return submission
