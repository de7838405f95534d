"""Celery task: a baseline model job (predict a file with saved baselines, e.g. the LM reader).

Model jobs go to the GPU queue (CELERY_GPU_QUEUE) when a worker listening on it is attached, else to
the CPU queue (CELERY_CPU_QUEUE); callers enqueue by name with ``send_predict``. The task gets paths
only (models, input, output on storage the worker shares); a rerun recomputes the same file.
"""

from pathlib import Path

from django.conf import settings

from tasks.app import app

TASK_NAME = "baselines.predict"


@app.task(
    name=TASK_NAME,
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=settings.CELERY_LONG_TASK_TIME_LIMIT,
    soft_time_limit=settings.CELERY_LONG_TASK_TIME_LIMIT - 60,
)
def baselines_predict(*, models: list[str], input_path: str, output_path: str) -> dict:
    """Write the ``id,label`` file of ``input_path`` predicted by ``models`` (their ensemble)."""
    from baselines.commands import ensemble_predictions
    from lexicon.threads import set_torch_threads
    from recam.records import read_questions
    from recam.submission import write_predictions

    set_torch_threads()  # one per worker unless the operator chose (lexicon.threads)
    questions = read_questions(input_path)
    labels = ensemble_predictions(models=tuple(Path(m) for m in models), questions=questions)
    Path(output_path).parent.mkdir(parents=True, exist_ok=True)
    write_predictions(Path(output_path), {q.id: label for q, label in zip(questions, labels, strict=True)})
    return {"output": output_path, "questions": len(questions)}


def model_queue(*, timeout: float = 1.0) -> str:
    """The GPU queue if an attached worker consumes it, else the CPU queue."""
    gpu = settings.CELERY_GPU_QUEUE
    if gpu:
        replies = app.control.inspect(timeout=timeout).active_queues() or {}
        if any(queue.get("name") == gpu for queues in replies.values() for queue in queues or ()):
            return gpu
    return settings.CELERY_CPU_QUEUE


def send_predict(*, models: list[str], input_path: str, output_path: str):
    """Enqueue a prediction job by name on the queue ``model_queue`` picks; the AsyncResult."""
    kwargs = {"models": models, "input_path": input_path, "output_path": output_path}
    return app.send_task(TASK_NAME, kwargs=kwargs, queue=model_queue())
