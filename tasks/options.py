"""Celery task: train and rank one (subtask, reader, fold) of option generation (task paper §3.5).

The task gets ids only (a work dir holding ``plan.json``, and which fold); the work dir must be on
storage the worker shares with the caller. Reruns are idempotent: a finished fold is read back.
"""

from django.conf import settings

from datagen.options.lm_words import gate_scores
from datagen.options.retrieval import run_planned_fold
from tasks.app import app


@app.task(
    name="tasks.options.options_train_fold",  # datagen/cli/celery_client.py sends it by this name
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=settings.CELERY_LONG_TASK_TIME_LIMIT,
    soft_time_limit=settings.CELERY_LONG_TASK_TIME_LIMIT - 60,
)
def options_train_fold(*, work_dir: str, subtask: str, reader: str, fold: int) -> dict:
    """Bad input (a stale work dir, a missing file) raises ValueError: a terminal failure, no retry."""
    return run_planned_fold(work_dir=work_dir, subtask=subtask, reader=reader, fold=fold, progress=False)


@app.task(
    name="datagen.options_gate_scores",
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=settings.CELERY_LONG_TASK_TIME_LIMIT,
    soft_time_limit=settings.CELERY_LONG_TASK_TIME_LIMIT - 60,
)
def options_gate_scores(*, items: list[dict], lm_model: str | None = None) -> list[dict]:
    """The gate's LM scores for one shard of questions (texts travel in the message: no shared files)."""
    return gate_scores(items=items, lm_model=lm_model)
