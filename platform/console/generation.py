"""Writes and reads for dataset generation jobs: store a pairs file, start / cancel / resume a job on
the Celery workers (enqueued BY NAME, so no platform code imports tasks/), record its progress, and
load its ReCAM jsonl as a phase's test set with the gold (through console.services)."""

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.text import get_valid_filename

from competitions.errors import ApplicationError
from competitions.models import Phase, TestSet
from console.models import GenerationJob
from console.services import test_set_load_upload
from datagen.targets.filters import DEFAULT_CONTEXTUAL_MAX
from recam.records import iter_questions
from recam.siblings import leak_message, sibling_leaks
from validation.models import ValidationBatch
from validation.services import BatchSettings, batch_attach_quality_report, batch_create

Status = GenerationJob.Status
# The datagen CLI's settings and their defaults (python -m datagen candidates / options --help).
DEFAULT_SETTINGS = {
    "subtask": 2,
    "use_encoder": False,
    "imperceptibility_max": 0.35,
    "depth_max": 6,
    "glove_max": 0.85,
    "contextual_max": DEFAULT_CONTEXTUAL_MAX,
    "lesk_window": 8,
    "shard_size": 10,
    "folds": 4,
    "readers": "ga,att,att-gloss",
    "ranker": "both",  # as `datagen options`: the readers' pools joined by the LM ranker's words
    "gate": True,
    "gate_second_lm": True,  # gate version 4: Gemma 3 270M beside the LM (`datagen options --gate-lm2 gemma`)
    "lm_top": 10,
    "epochs": None,
    "seed": 13,
}


@dataclass(frozen=True)
class PairsCheck:
    pairs: int
    bad_lines: list[str]


def pairs_check(*, path: Path, name: str = "") -> PairsCheck:
    """Count the usable pairs of an XSum jsonl; bad lines are named (file, line: reason), not fatal."""
    from datagen.xsum import read_pairs

    pairs, bad = read_pairs(path=path)
    return PairsCheck(pairs=len(pairs), bad_lines=[f"{name or Path(path).name}, {b}" for b in bad])


def pairs_upload_store(*, name: str, data: bytes) -> Path:
    """Store an uploaded pairs file under DATASETS_ROOT/pairs (refused when no line is a usable pair)."""
    safe = get_valid_filename(Path(name).name) or "pairs.jsonl"
    folder = Path(settings.DATASETS_ROOT) / "pairs"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{hashlib.sha256(data).hexdigest()[:12]}-{safe}"
    partial = target.with_name(target.name + ".partial")
    partial.write_bytes(data)
    check = pairs_check(path=partial, name=safe)
    if check.pairs == 0:
        partial.unlink()
        first = check.bad_lines[0] if check.bad_lines else "the file is empty"
        raise ApplicationError(f"{safe}: no usable article/summary pair ({first})")
    partial.replace(target)
    return target


def pairs_files() -> list[Path]:
    """Stored pairs files the organizer can pick: uploads and the configured XSUM_PATH."""
    found = sorted((Path(settings.DATASETS_ROOT) / "pairs").glob("*.jsonl"))
    xsum = Path(settings.XSUM_PATH)
    return ([xsum] if xsum.is_file() else []) + found


def job_dir(*, job: GenerationJob) -> Path:
    return Path(settings.DATASETS_ROOT) / "jobs" / str(job.pk)


def _send(job: GenerationJob) -> None:
    result = current_app.send_task(
        settings.CONSOLE_GENERATION_TASK, args=[job.pk], queue=settings.CELERY_CPU_QUEUE
    )
    GenerationJob.objects.filter(pk=job.pk).update(task_id=result.id or "")


def job_start(*, pairs_path: Path, values: dict, user=None) -> GenerationJob:
    if not Path(pairs_path).is_file():
        raise ApplicationError(f"{pairs_path}: no such file")
    job = GenerationJob.objects.create(
        pairs_name=Path(pairs_path).name,
        pairs_path=str(Path(pairs_path).resolve()),
        pairs_sha256=hashlib.sha256(Path(pairs_path).read_bytes()).hexdigest(),
        settings={**DEFAULT_SETTINGS, **values},
        created_by=user,
    )
    transaction.on_commit(lambda: _send(job))
    return job


def job_cancel(*, job: GenerationJob) -> GenerationJob:
    """Ask the worker to stop after the shard it is on; a queued job stops before it starts."""
    GenerationJob.objects.filter(pk=job.pk, status__in=[Status.QUEUED, Status.RUNNING]).update(
        cancel_requested=True, message="cancel requested"
    )
    job.refresh_from_db()
    return job


def job_resume(*, job: GenerationJob) -> GenerationJob:
    """Queue a cancelled or failed job again; finished shards and folds in its folder are reused."""
    if job.status not in (Status.CANCELLED, Status.FAILED):
        raise ApplicationError(f"job {job.pk} is {job.status}: only a cancelled or failed job resumes")
    GenerationJob.objects.filter(pk=job.pk).update(
        status=Status.QUEUED, cancel_requested=False, message="resumed", finished_at=None
    )
    transaction.on_commit(lambda: _send(job))
    job.refresh_from_db()
    return job


class JobCancelled(Exception):
    pass


def job_progress(*, job_id: int, stage: str, done: int, total: int, message: str = "") -> None:
    """The worker's progress write; raises JobCancelled when the organizer asked to stop."""
    GenerationJob.objects.filter(pk=job_id).update(
        status=Status.RUNNING, stage=stage, done=done, total=total, message=message, updated_at=timezone.now()
    )
    if GenerationJob.objects.filter(pk=job_id, cancel_requested=True).exists():
        raise JobCancelled(f"job {job_id} cancelled at {stage} {done}/{total}")


def options_progress(
    *, work: Path, folds_total: int, candidates: int, second_lm: bool
) -> tuple[int, int, str]:
    """(done, total, message) of the options stage, read from what ``datagen options`` has written to
    its work dir so far: each reader fold's rankings, then each LM's cached scores, then the gate."""
    folds = sum(1 for _ in work.rglob("rankings.jsonl")) if work.is_dir() else 0
    lm_files = [work / "gate-scores.jsonl", *sorted(work.glob("gate-scores2-*.jsonl"))][: 1 + second_lm]
    scored = [_lines(path) for path in lm_files] + [0] * (1 + second_lm - len(lm_files))
    total = folds_total + candidates * (1 + second_lm) + 1
    done = min(folds, folds_total) + sum(min(n, candidates) for n in scored)
    if folds < folds_total:
        return done, total, f"training the readers: {folds} of {folds_total} folds done"
    names = ("LM 1 (SmolLM2)", "LM 2 (Gemma 3)")
    for name, n in zip(names, scored, strict=False):
        if n < candidates:
            return done, total, f"{name}: {n} of {candidates} questions scored"
    return done, total, "the gate and writing the questions"


def _lines(path: Path) -> int:
    if not path.is_file():
        return 0
    with path.open("rb") as handle:
        return sum(1 for _ in handle)


def job_finish(*, job_id: int, status: str, message: str = "") -> None:
    fields = {"status": status, "message": message[:5000], "finished_at": timezone.now()}
    if status == Status.DONE:
        fields["stage"] = GenerationJob.Stage.FINISHED
    GenerationJob.objects.filter(pk=job_id).update(**fields)


def job_outputs(*, job: GenerationJob) -> dict:
    """What the job has produced so far: the funnel, Tables 3-5 (the options report), the quality report."""
    folder = job_dir(job=job)

    def read_json(name: str):
        path = folder / name
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None

    report_md = folder / "recam.report.md"
    recam = folder / "recam.jsonl"
    return {
        "funnel": read_json("candidates.jsonl.funnel.json"),
        "report": read_json("recam.report.json"),
        "report_md": report_md.read_text(encoding="utf-8") if report_md.is_file() else None,
        "quality": read_json("recam.quality.json"),
        "recam": recam if recam.is_file() else None,
        "questions": sum(1 for _ in recam.open(encoding="utf-8")) if recam.is_file() else 0,
    }


def phase_to_load_into() -> Phase | None:
    """The load form's default: the newest competition's evaluation phase, else its first phase."""
    phases = Phase.objects.order_by("-competition__created_at", "order", "pk")
    return phases.filter(kind=Phase.Kind.EVALUATION).first() or phases.first()


def job_load_into_phase(*, job: GenerationJob, phase: Phase, subtask: int) -> tuple[TestSet, bool]:
    """Load the job's ReCAM jsonl as the phase's test set of ``subtask``, its labels as the gold."""
    recam = job_outputs(job=job)["recam"]
    if recam is None:
        raise ApplicationError(f"job {job.pk} has no ReCAM jsonl yet")
    _refuse_sibling_leaks(recam=recam, name=f"job {job.pk}")
    return test_set_load_upload(
        phase=phase, subtask=subtask, data=recam.read_bytes(), filename=f"job{job.pk}-recam.jsonl"
    )


def _refuse_sibling_leaks(*, recam: Path, name: str) -> None:
    """A generated set where one question's answer is in another question on the same article is not
    a test set (recam.siblings): refused with the ids, nothing loaded."""
    try:
        questions = list(
            iter_questions(recam.read_text(encoding="utf-8-sig").splitlines(), source=recam.name)
        )
    except ValueError as exc:
        raise ApplicationError(str(exc)) from None
    leaks = sibling_leaks(questions)
    if leaks:
        raise ApplicationError(leak_message(leaks, source=name))


def job_send_to_validation(*, job: GenerationJob, user=None) -> ValidationBatch:
    """A human-validation batch (default settings, docs/validation.md) of the job's ReCAM jsonl, with the
    job's question-quality report attached when it has one; organizers then add annotators on its page."""
    outputs = job_outputs(job=job)
    if outputs["recam"] is None:
        raise ApplicationError(f"job {job.pk} has no ReCAM jsonl yet")
    recam = outputs["recam"]
    batch = batch_create(
        name=f"generation job {job.pk}",
        source_name=f"job-{job.pk}/{recam.name}",
        data=recam.read_bytes(),
        batch_settings=BatchSettings(),
        created_by=user,
    )
    quality = recam.with_name("recam.quality.json")
    if quality.is_file():
        batch = batch_attach_quality_report(batch=batch, name=quality.name, data=quality.read_bytes())
    return batch
