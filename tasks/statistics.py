"""The statistics task: recompute a phase's intervals and tied ranks once per burst of score changes (thin).

Sent by name (``leaderboards.statistics.STATISTICS_TASK``) with a countdown by the change that claims
the phase's one pending run; the debounce and the recompute are in ``leaderboards.statistics``.
"""

from django.conf import settings

from leaderboards import statistics
from tasks.app import app
from tasks.scoring import TRANSIENT_ERRORS


@app.task(
    name=statistics.STATISTICS_TASK,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=1,
    retry_backoff_max=30,
    retry_jitter=True,
    max_retries=5,
    time_limit=settings.SCORING_TASK_TIME_LIMIT,
    soft_time_limit=max(1, settings.SCORING_TASK_TIME_LIMIT - 5),
)
def recompute_statistics(phase_id: int) -> str:
    return statistics.statistics_run(phase_id=phase_id)
