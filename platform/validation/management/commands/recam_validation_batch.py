from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from competitions.errors import ApplicationError
from validation.services import BatchSettings, batch_attach_quality_report, batch_create


class Command(BaseCommand):
    help = (
        "Create a validation batch from a labelled ReCAM jsonl (as written by datagen options); "
        "optionally attach a question-quality report (python -m datagen quality)."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--name", default="")
        parser.add_argument("--annotations", type=int, default=3, help="annotations per question")
        parser.add_argument("--per-assignment", type=int, default=10, help="questions per assignment")
        parser.add_argument("--no-none", action="store_true", help='do not offer "none of these fits"')
        parser.add_argument("--gold-rate", type=float, default=0.2, help="gold checks per generated question")
        parser.add_argument("--min-gold-accuracy", type=float, default=0.4)
        parser.add_argument(
            "--gold", type=Path, default=None, help="gold-check file (default VALIDATION_GOLD_FILE)"
        )
        parser.add_argument("--quality", type=Path, default=None, help="a question-quality report (JSON)")

    def handle(self, *args, file: Path, gold: Path | None, quality: Path | None, **options):
        settings = BatchSettings(
            annotations_per_question=options["annotations"],
            questions_per_assignment=options["per_assignment"],
            allow_none=not options["no_none"],
            gold_rate=options["gold_rate"],
            min_gold_accuracy=options["min_gold_accuracy"],
        )
        try:
            data = _read(file)
            gold_source = (str(gold), _read(gold)) if gold else None
            report = _read(quality) if quality else None
            with transaction.atomic():  # a bad report leaves no batch behind
                batch = batch_create(
                    name=options["name"],
                    source_name=str(file),
                    data=data,
                    batch_settings=settings,
                    gold=gold_source,
                )
                if report is not None:
                    batch_attach_quality_report(batch=batch, name=str(quality), data=report)
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        kinds = [kind for kind in batch.questions.values_list("kind", flat=True)]
        self.stdout.write(
            f"batch {batch.pk}: {kinds.count('generated')} generated questions, {kinds.count('gold')} gold checks"
            + (f", quality report {quality}" if report is not None else "")
        )


def _read(path: Path) -> bytes:
    if not path.is_file():
        raise ApplicationError(f"{path}: no such file")
    return path.read_bytes()
