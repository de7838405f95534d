"""The sending side of ``--backend celery``: the datagen tasks, sent BY NAME (datagen never imports tasks/).

tasks/datagen.py and tasks/options.py define the tasks a worker runs (``celery -A tasks.app worker``);
this module only sends them and reads the results, with a Celery client configured from the same
environment variables the Django settings read (CELERY_BROKER_URL, CELERY_RESULT_BACKEND, REDIS_URL,
CELERY_CPU_QUEUE, CELERY_GPU_QUEUE, CELERY_LONG_TASK_TIME_LIMIT), so no Django is needed here.
Messages are JSON, as the platform's settings require. A shard's pairs travel in the message and its
records come back as the result; the worker computes exactly what the local run computes.
"""

import functools
import os
from collections.abc import Iterator
from dataclasses import dataclass

from celery import Celery, chain, signature

from datagen.targets.pipeline import Settings
from datagen.xsum import Pair

CANDIDATES_SHARD = "datagen.candidates_shard"
SELECT_SHARD = "datagen.select_shard"
FINISH_SHARD = "datagen.finish_shard"
OPTIONS_TRAIN_FOLD = "tasks.options.options_train_fold"


@dataclass(frozen=True)
class ClientSettings:
    """The few Celery settings the sender needs, read from the environment (defaults as in settings.py)."""

    CELERY_BROKER_URL: str
    CELERY_RESULT_BACKEND: str
    CELERY_CPU_QUEUE: str
    CELERY_GPU_QUEUE: str
    CELERY_LONG_TASK_TIME_LIMIT: int

    @classmethod
    def from_env(cls) -> "ClientSettings":
        redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
        return cls(
            CELERY_BROKER_URL=os.environ.get("CELERY_BROKER_URL", redis_url),
            CELERY_RESULT_BACKEND=os.environ.get("CELERY_RESULT_BACKEND", redis_url),
            CELERY_CPU_QUEUE=os.environ.get("CELERY_CPU_QUEUE", "cpu"),
            CELERY_GPU_QUEUE=os.environ.get("CELERY_GPU_QUEUE", "gpu"),
            CELERY_LONG_TASK_TIME_LIMIT=int(os.environ.get("CELERY_LONG_TASK_TIME_LIMIT", 6 * 3600)),
        )


settings = ClientSettings.from_env()


@functools.cache
def client_app() -> Celery:
    app = Celery(
        "recam-datagen-client", broker=settings.CELERY_BROKER_URL, backend=settings.CELERY_RESULT_BACKEND
    )
    app.conf.update(task_serializer="json", result_serializer="json", accept_content=["json"])
    return app


def _shard_signature(pairs: list[Pair], config: Settings):
    app, payload = client_app(), [p.__dict__ for p in pairs]
    cpu, gpu = settings.CELERY_CPU_QUEUE, settings.CELERY_GPU_QUEUE
    if not config.use_encoder:
        return signature(CANDIDATES_SHARD, args=(payload, config.to_json()), queue=cpu, app=app)
    return chain(
        signature(SELECT_SHARD, args=(payload, config.to_json()), queue=cpu, app=app),
        signature(FINISH_SHARD, args=(config.to_json(),), queue=gpu, app=app),
        app=app,
    )


def celery_runner(shards: list[tuple[int, list[Pair]]], config: Settings) -> Iterator[tuple[int, dict]]:
    """Send every shard, then yield results in shard order as they arrive (the output order)."""
    pending = [(number, _shard_signature(pairs, config).apply_async()) for number, pairs in shards]
    for number, result in pending:
        value = result.get(timeout=settings.CELERY_LONG_TASK_TIME_LIMIT, disable_sync_subtasks=False)
        result.forget()  # the shard is written to the work dir next: do not keep it in Redis too
        yield number, value


def options_queue() -> str:
    """The GPU-capable queue (CELERY_GPU_QUEUE, default "gpu"); the CPU queue if that setting is empty."""
    return settings.CELERY_GPU_QUEUE or settings.CELERY_CPU_QUEUE


class _TaskByName:
    """What the CLI calls ``options_train_fold``: ``apply_async`` sends the task by its name."""

    def __init__(self, name: str) -> None:
        self.name = name

    def apply_async(self, *, kwargs: dict, queue: str):
        return client_app().send_task(self.name, kwargs=kwargs, queue=queue)


options_train_fold = _TaskByName(OPTIONS_TRAIN_FOLD)
