"""Celery model job: the quality report of a ReCAM file (``datagen.quality_report``), a thin task.

Enqueue it by name, never by importing this module (platform apps stay below tasks/):
``current_app.send_task("datagen.quality_report", kwargs={"input_path": ..., "output_path": ...},
queue=settings.CELERY_GPU_QUEUE or settings.CELERY_CPU_QUEUE)``. The input, output and cache paths
must be on storage the worker shares. The task reports progress as Celery state ``PROGRESS`` with
``{"done", "total"}`` (questions scored, with and without the article) and returns the dataset
figures; the full per-question report is the JSON file (schema: docs/reference/quality-report.md). A rerun resumes
from the score cache. ``disto_model`` (e.g. ``settings.DISTO_MODEL``) adds each option's DISTO score.
"""

from django.conf import settings

from datagen.quality.report import summary_line
from datagen.quality.run import quality_with_lm
from tasks.app import app

TASK_NAME = "datagen.quality_report"
SUMMARY_KEYS = ("with_article_accuracy", "options_only_accuracy", "effective_options", "contextual_mi")


@app.task(
    bind=True,
    name=TASK_NAME,
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=settings.CELERY_LONG_TASK_TIME_LIMIT,
    soft_time_limit=settings.CELERY_LONG_TASK_TIME_LIMIT - 60,
)
def quality_report(
    self,
    *,
    input_path: str,
    output_path: str,
    model_path: str | None = None,
    cache_dir: str | None = None,
    article_tokens: int = 400,
    disto_model: str | None = None,
) -> dict:
    """Bad input raises ValueError naming the file and line: a terminal failure, no retry."""

    def progress(done: int, total: int) -> None:
        self.update_state(state="PROGRESS", meta={"done": done, "total": total})

    report = quality_with_lm(
        input_path=input_path, output_path=output_path, model_path=model_path, article_tokens=article_tokens,
        cache_dir=cache_dir, progress=progress, disto_model=disto_model,
    )  # fmt: skip
    return {
        **{key: report[key] for key in SUMMARY_KEYS},
        "n_questions": report["n_questions"],
        "flagged": report["flagged"]["count"],
        "output_path": output_path,
        "summary": summary_line(report),
    }
