"""The periodic reaper task (Celery beat, CELERY_BEAT_SCHEDULE): thin; the logic is submissions/reaper.py."""

from submissions.reaper import submissions_reap
from submissions.services import REAP_TASK
from tasks.app import app


@app.task(name=REAP_TASK, acks_late=True, ignore_result=True)
def reap_stuck_submissions() -> dict[str, list[int]]:
    report = submissions_reap()
    return {"requeued": list(report.requeued), "failed": list(report.failed)}
