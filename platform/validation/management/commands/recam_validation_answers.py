import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from competitions.errors import ApplicationError
from validation.exports import batch_export
from validation.two_stage import batch_from_answer_files, two_stage_results


class Command(BaseCommand):
    help = (
        "Record offline answers to a blind two-stage batch (answers-<name>.json: {item: {noarticle, witharticle, "
        "multiple_fit, ungrammatical}}) on the site, then print the rates per source and optionally export."
    )

    def add_arguments(self, parser):
        parser.add_argument("batch_file", type=Path, help="the blind batch jsonl (recam_validation_blind)")
        parser.add_argument("answers", type=Path, nargs="+", help="one answer file per annotator")
        parser.add_argument("--name", default="blind two-stage batch")
        parser.add_argument("--export", type=Path, default=None, help="write the batch's export here")

    def handle(self, *args, batch_file: Path, answers: list[Path], name: str, export: Path | None, **options):
        try:
            batch = batch_from_answer_files(
                name=name, source_name=str(batch_file), data=_read(batch_file),
                answer_files=[(str(p), _read(p)) for p in answers],
            )  # fmt: skip
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        results = two_stage_results(batch=batch)
        if export is not None:
            batch_export(batch=batch, out_dir=export)
        self.stdout.write(json.dumps(results, indent=1))


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise CommandError(f"{path}: {exc.strerror}") from None
