"""The scoring task: fetch a submission by id and call the scoring service (thin; the logic is there)."""

from django.db.utils import InterfaceError, OperationalError

from tasks.app import app

# Only transient infrastructure errors are retried; a bad file is a terminal, explained failure.
TRANSIENT_ERRORS = (OperationalError, InterfaceError, ConnectionError, TimeoutError)


@app.task(
    name="tasks.scoring.score_submission",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=5,
)
def score_submission(submission_id: int) -> str:
    from submissions.services import submission_score

    return submission_score(submission_id=submission_id).status
