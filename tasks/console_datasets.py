"""The organizer console's dataset generation job: XSum pairs -> candidates -> options -> ReCAM jsonl.

Thin: the work is datagen's (``run_candidates`` and the ``options`` command's own code path); progress,
cancel and the outcome go through ``console.generation``. Enqueued by name (console.generate_dataset).
A rerun of the same job resumes: finished shards and folds in the job's folder are reused.
"""

import contextlib
import json
import threading
from pathlib import Path

from django.conf import settings as django_settings

from tasks.app import app

WATCH_SECONDS = 3.0  # how often the options stage's progress is read from its work dir
_LONG = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "time_limit": django_settings.CELERY_LONG_TASK_TIME_LIMIT,
    "soft_time_limit": django_settings.CELERY_LONG_TASK_TIME_LIMIT - 60,
}


@app.task(name="console.generate_dataset", **_LONG)
def generate_dataset(job_id: int) -> str:
    from console.generation import JobCancelled, job_dir, job_finish
    from console.models import GenerationJob

    job = GenerationJob.objects.get(pk=job_id)
    if job.status not in (GenerationJob.Status.QUEUED, GenerationJob.Status.RUNNING):
        return job.status  # a redelivered message for a finished job
    folder = job_dir(job=job)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        _candidates(job, folder)
        _options(job, folder)
    except JobCancelled as exc:
        job_finish(job_id=job_id, status=GenerationJob.Status.CANCELLED, message=str(exc))
        return "cancelled"
    except Exception as exc:  # any failure is shown on the job's page with its reason
        job_finish(job_id=job_id, status=GenerationJob.Status.FAILED, message=f"{type(exc).__name__}: {exc}")
        return "failed"
    job_finish(job_id=job_id, status=GenerationJob.Status.DONE, message="finished")
    return "done"


def _candidates(job, folder: Path) -> None:
    from console.generation import job_progress
    from datagen.targets.pipeline import Settings, local_runner
    from datagen.targets.shards import run_candidates
    from lexicon.threads import set_torch_threads

    set_torch_threads()  # the encoder's; the options step below passes threads=1

    values = job.settings
    config = Settings(
        subtask=int(values["subtask"]),
        imperceptibility_max=float(values["imperceptibility_max"]),
        depth_max=int(values["depth_max"]),
        glove_max=float(values["glove_max"]),
        contextual_max=float(values["contextual_max"]),
        lesk_window=int(values["lesk_window"]),
        use_encoder=bool(values["use_encoder"]),
    )
    stage = "candidates"

    def runner(shards, settings):
        total = sum(len(p) for _, p in shards)
        job_progress(job_id=job.pk, stage=stage, done=0, total=total, message="loading models")
        done = 0
        for number, result in local_runner(shards, settings):
            yield number, result  # run_candidates writes the shard before asking for the next one
            done += len(dict(shards)[number])
            job_progress(
                job_id=job.pk, stage=stage, done=done, total=total, message=f"shard {number} written"
            )

    run_candidates(
        input_path=Path(job.pairs_path),
        output_path=folder / "candidates.jsonl",
        settings=config,
        shard_size=int(values["shard_size"]),
        runner=runner,
        progress=False,
    )


def _options(job, folder: Path) -> None:
    from console.generation import job_progress
    from datagen.cli.options import options
    from datagen.options.gate import MIN_GOLD_RANK

    values = job.settings
    job_progress(job_id=job.pk, stage="options", done=0, total=1, message="training the k-fold readers")
    stop = threading.Event()
    watcher = threading.Thread(target=_watch_options, args=(job, folder, stop), daemon=True)
    watcher.start()
    try:
        _run_options(options, values, folder, MIN_GOLD_RANK)
    finally:
        stop.set()
        watcher.join()
    job_progress(job_id=job.pk, stage="options", done=1, total=1, message="options written")


def _watch_options(job, folder: Path, stop: threading.Event) -> None:
    """Every few seconds, the options stage's progress from its work dir onto the job's row."""
    from django.db import connection

    from console.generation import JobCancelled, job_progress, options_progress

    values = job.settings
    readers = [r for r in str(values["readers"]).split(",") if r.strip()]
    lm_only = values.get("ranker") == "lm"
    candidates_path = folder / "candidates.jsonl"
    candidates = sum(1 for line in candidates_path.open(encoding="utf-8") if line.strip())
    subtasks = {
        json.loads(line).get("subtask") for line in candidates_path.open(encoding="utf-8") if line.strip()
    }
    gated, second = bool(values.get("gate", True)), bool(values.get("gate_second_lm", True))
    try:
        while not stop.wait(WATCH_SECONDS):
            done, total, message = options_progress(
                work=folder / "options.work",
                folds_total=0 if lm_only else len(readers) * int(values["folds"]) * len(subtasks),
                candidates=candidates if (gated or values.get("ranker") != "readers") else 0,
                second_lm=gated and second,
            )
            # The options stage has no safe stopping point: a cancel applies when it ends.
            with contextlib.suppress(JobCancelled):
                job_progress(job_id=job.pk, stage="options", done=done, total=total, message=message)
    finally:
        connection.close()


def _run_options(options, values: dict, folder: Path, min_gold_rank: int) -> None:
    options.callback(
        candidates_path=str(folder / "candidates.jsonl"),
        output=str(folder / "recam.jsonl"),
        folds=int(values["folds"]),
        readers=values["readers"],
        epochs=values.get("epochs"),
        hidden=None,
        hops=None,
        batch_size=None,
        time_budget=values.get("time_budget"),
        seed=int(values["seed"]),
        vectors=None,
        work_dir=str(folder / "options.work"),
        backend="local",
        timeout=None,
        threads=1,
        device=None,
        ranker=values.get("ranker", "both"),
        gate=values.get("gate", True),
        lm_model=None,
        lm_top=int(values.get("lm_top", 10)),
        gate_min_rank=int(values.get("gate_min_rank", min_gold_rank)),
        limit=None,
        gate_lm2="gemma" if values.get("gate_second_lm", True) else "none",
        gate_version=5,  # the default of datagen options (docs/explanation/validity.md)
    )
