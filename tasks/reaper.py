"""The periodic reaper task (Celery beat, CELERY_BEAT_SCHEDULE): thin over submissions.services.submissions_reap."""

from submissions.services import REAP_TASK, submissions_reap
from tasks.app import app
from tasks.scoring import TRANSIENT_ERRORS


# Sent to CELERY_MAINTENANCE_QUEUE (settings.CELERY_BEAT_SCHEDULE), which a worker of its own serves.
@app.task(
    name=REAP_TASK,
    acks_late=True,
    ignore_result=True,
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=2,
    retry_backoff_max=15,
    retry_jitter=False,
    max_retries=4,
)
def reap_stuck_submissions() -> dict[str, list[int]]:
    report = submissions_reap()
    return {"requeued": list(report.requeued), "failed": list(report.failed)}
