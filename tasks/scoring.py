"""The scoring task: fetch a submission by id and call the scoring service (thin; the logic is there).

The web side sends it by name (``submissions.services.SCORE_TASK``); its time limit stays inside the
scoring queue's visibility timeout (settings.SCORING_TASK_TIME_LIMIT, tasks/app.py).
"""

from celery.signals import task_postrun, task_prerun
from django.conf import settings
from django.db import close_old_connections
from django.db.utils import InterfaceError, OperationalError

from submissions import scoring
from submissions.services import SCORE_TASK
from tasks.app import app

# Only transient infrastructure errors are retried; a bad file is a terminal, explained failure.
TRANSIENT_ERRORS = (OperationalError, InterfaceError, ConnectionError, TimeoutError)
TASK_NAME = SCORE_TASK


@app.task(
    name=TASK_NAME,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=TRANSIENT_ERRORS,
    # 2, 4, 8, 16, then every 30 s: about four minutes of tries, longer than a burst of uploads holds
    # the database (each try also waits SQLITE_BUSY_TIMEOUT for the lock). No jitter: Celery's full
    # jitter draws each wait from 0 to the back-off, and five "retries" could all come at once. The cap
    # stays under the scoring queue's visibility timeout, or Redis would hand a waiting retry out twice.
    retry_backoff=2,
    retry_backoff_max=max(1, min(30, settings.SCORING_VISIBILITY_TIMEOUT - 15)),
    retry_jitter=False,
    max_retries=10,
    time_limit=settings.SCORING_TASK_TIME_LIMIT,
    soft_time_limit=max(1, settings.SCORING_TASK_TIME_LIMIT - 5),
)
def score_submission(submission_id: int) -> str:
    return scoring.submission_score(submission_id=submission_id).status


@task_prerun.connect
@task_postrun.connect
def _database_connections_as_per_request(sender=None, **_kwargs) -> None:
    """Around each scoring task, what Django does around each request: close a database connection
    that is broken or older than CONN_MAX_AGE, keep a healthy one.

    Celery's Django fixup closes every connection before and after every task unless CELERY_DB_REUSE_MAX
    is set, and then it closes them only every that many tasks, healthy or not. Opening a PostgreSQL
    connection costs more here than scoring a file (docs/operations.md, benchmark (b)); with
    CELERY_DB_REUSE_MAX set, this keeps a broken or expired connection from being reused.
    """
    if getattr(sender, "name", None) == TASK_NAME and not getattr(sender.request, "is_eager", False):
        close_old_connections()
