"""A Celery app for the fault tests only: the real app, with scoring slowed by SCORING_TEST_DELAY_SECONDS.

`celery -A tests.integration.slow_worker worker ...` sleeps after the scoring service has taken a
submission (status "scoring"), so a test can kill the worker mid-scoring. The production code has no
such hook: the delay wraps ``submissions.scoring._compute`` in this process only.
"""

import os
import time

from celery.signals import task_prerun

from tasks.app import app

__all__ = ["app"]


@task_prerun.connect
def _slow_down_scoring(**_kwargs) -> None:
    from submissions import scoring  # Django is set up by the time a task runs

    delay = float(os.environ.get("SCORING_TEST_DELAY_SECONDS", "0"))
    compute = scoring._compute
    if delay and not getattr(compute, "slowed", False):

        def slowed(submission):
            time.sleep(delay)
            return compute(submission)

        slowed.slowed = True
        scoring._compute = slowed
