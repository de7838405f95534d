"""The periodic reaper task (Celery beat, CELERY_BEAT_SCHEDULE): thin; the logic is submissions/reaper.py."""

from tasks.app import app


@app.task(name="tasks.reaper.reap_stuck_submissions", acks_late=True, ignore_result=True)
def reap_stuck_submissions() -> dict[str, list[int]]:
    from submissions.reaper import submissions_reap

    report = submissions_reap()
    return {"requeued": list(report.requeued), "failed": list(report.failed)}
