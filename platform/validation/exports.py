"""Export a batch: the validated dataset (ReCAM jsonl of kept questions) and the annotation table."""

import csv
import io
import json
import zipfile
from pathlib import Path

from accounts.names import csv_row
from recam.agreement import NONE_FITS
from recam.records import Question
from validation.models import Annotation, BatchQuestion, ValidationBatch
from validation.results import BatchResults, batch_results
from validation.two_stage import two_stage_results, two_stage_rows

VALIDATED = "validated.jsonl"
TABLE_CSV = "annotations.csv"
TABLE_JSON = "annotations.json"
SUMMARY = "summary.json"
TWO_STAGE = "two_stage.json"
TABLE_FIELDS = (
    "question_id", "kind", "annotator", "answer", "answer_text", "label", "correct", "position",
    "assignment", "shown_at", "answered_at", "seconds",
)  # fmt: skip


def validated_jsonl(*, results: BatchResults) -> str:
    kept = {row.question_id for row in results.kept}
    items = results.batch.questions.filter(kind=BatchQuestion.Kind.GENERATED, question_id__in=kept)
    lines = []
    for item in items.order_by("question_id"):
        question = Question(
            id=item.question_id,
            article=item.article,
            question=item.question,
            options=tuple(item.options),
            label=item.label,
        )
        lines.append(json.dumps({**question.to_json(), **item.extra}, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


def annotation_table(*, batch: ValidationBatch) -> list[dict]:
    rows = []
    annotations = (
        Annotation.objects.filter(item__batch=batch, answer__isnull=False)
        .select_related("item", "annotator")
        .defer("item__article")
        .order_by("item__kind", "item__question_id", "annotator__username")
    )
    for a in annotations:
        rows.append(
            {
                "question_id": a.item.question_id,
                "kind": a.item.kind,
                "annotator": a.annotator.username,
                "answer": a.answer,
                "answer_text": "none fits" if a.answer == NONE_FITS else a.item.options[a.answer],
                "label": a.item.label,
                "correct": a.answer == a.item.label,
                "position": a.position,
                "assignment": a.assignment_id,
                "shown_at": a.shown_at.isoformat() if a.shown_at else None,
                "answered_at": a.answered_at.isoformat() if a.answered_at else None,
                "seconds": a.seconds,
            }
        )
    return rows


def summary(*, results: BatchResults) -> dict:
    batch = results.batch
    return {
        "batch": batch.pk,
        "name": batch.name,
        "source": batch.source_name,
        "source_sha256": batch.source_sha256,
        "annotations_per_question": batch.annotations_per_question,
        "min_gold_accuracy": batch.min_gold_accuracy,
        "human_accuracy": results.human_accuracy,
        "fleiss_kappa": results.kappa,
        "kappa_questions": results.kappa_questions,
        "gold_accuracy": results.gold_accuracy,
        "kept": [q.question_id for q in results.kept],
        "dropped": {str(q.question_id): q.verdict.reason for q in results.dropped},
        "pending": [q.question_id for q in results.pending],
        "annotators": [
            {
                "annotator": a.username,
                "answered": a.answered,
                "gold_answered": a.gold_answered,
                "gold_accuracy": a.gold_accuracy,
                "seconds": a.seconds,
                "counted": a.counted,
            }
            for a in results.annotators
        ],
    }


def batch_export_files(*, batch: ValidationBatch) -> dict[str, bytes]:
    results = batch_results(batch=batch)
    table = annotation_table(batch=batch)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=TABLE_FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(csv_row(row) for row in table)
    files = {
        VALIDATED: validated_jsonl(results=results).encode("utf-8"),
        TABLE_CSV: buffer.getvalue().encode("utf-8"),
        TABLE_JSON: json.dumps(table, indent=1, ensure_ascii=False).encode("utf-8"),
        SUMMARY: json.dumps(summary(results=results), indent=1).encode("utf-8"),
    }
    if batch.two_stage:  # both stages per answer, and the rates per source
        staged = {"results": two_stage_results(batch=batch), "answers": two_stage_rows(batch=batch)}
        files[TWO_STAGE] = json.dumps(staged, indent=1, ensure_ascii=False).encode("utf-8")
    return files


def batch_export(*, batch: ValidationBatch, out_dir: Path) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, content in batch_export_files(batch=batch).items():
        paths[name] = out_dir / name
        paths[name].write_bytes(content)
    return paths


def batch_export_zip(*, batch: ValidationBatch) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in batch_export_files(batch=batch).items():
            archive.writestr(f"validation-batch-{batch.pk}/{name}", content)
    return buffer.getvalue()
