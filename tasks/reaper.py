"""The periodic reaper task (Celery beat, CELERY_BEAT_SCHEDULE): thin over submissions.services.submissions_reap."""

from submissions.services import REAP_TASK, submissions_reap
from tasks.app import app


@app.task(name=REAP_TASK, acks_late=True, ignore_result=True)
def reap_stuck_submissions() -> dict[str, list[int]]:
    report = submissions_reap()
    return {"requeued": list(report.requeued), "failed": list(report.failed)}
