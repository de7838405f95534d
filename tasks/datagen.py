"""Celery tasks for ``python -m datagen candidates --backend celery``: one task chain per shard.

The CLI sends them by name (datagen/cli/celery_client.py); this module only defines what a worker runs.

A shard's pairs travel in the message and its records come back as the result, so workers need no
shared file system. Stage 1 (spaCy, scorers, static filters) runs on the CPU queue; stage 2 (the
contextual filter) on the GPU queue when the encoder is on. Queue names are settings
(CELERY_CPU_QUEUE, CELERY_GPU_QUEUE); resources are loaded once per worker process.
Tasks are pure functions of their arguments, so a redelivered task just recomputes the same shard.
"""

from django.conf import settings as django_settings

from datagen.targets.pipeline import (
    PairState,
    Settings,
    finish_states,
    load_resources,
    run_shard,
    select_pairs,
)
from datagen.xsum import Pair
from tasks.app import app

_LONG = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "time_limit": django_settings.CELERY_LONG_TASK_TIME_LIMIT,
    "soft_time_limit": django_settings.CELERY_LONG_TASK_TIME_LIMIT - 60,
}


@app.task(name="datagen.candidates_shard", **_LONG)
def candidates_shard(pairs: list[dict], settings: dict) -> dict:
    """Both stages of one shard (encoder off, or one machine doing everything)."""
    config = Settings(**settings)
    res = load_resources(settings=config)
    return run_shard(pairs=[Pair(**p) for p in pairs], settings=config, res=res)


@app.task(name="datagen.select_shard", **_LONG)
def select_shard(pairs: list[dict], settings: dict) -> list[dict]:
    """Stage 1 of one shard; returns the pair states for ``finish_shard``."""
    config = Settings(**settings)
    res = load_resources(settings=config, encoder=False)
    return [s.to_json() for s in select_pairs(pairs=[Pair(**p) for p in pairs], settings=config, res=res)]


@app.task(name="datagen.finish_shard", **_LONG)
def finish_shard(states: list[dict], settings: dict) -> dict:
    """Stage 2 of one shard: the contextual filter (encoder) and the records."""
    config = Settings(**settings)
    res = load_resources(settings=config)
    return finish_states(states=[PairState.from_json(s) for s in states], settings=config, res=res)
