from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from validation.exports import batch_export
from validation.results import batch_results
from validation.selectors import batch_get


class Command(BaseCommand):
    help = (
        "Export a validation batch: validated.jsonl (the kept questions, ReCAM jsonl), annotations.csv, "
        "annotations.json and summary.json, into --out."
    )

    def add_arguments(self, parser):
        parser.add_argument("--batch", type=int, required=True)
        parser.add_argument("--out", type=Path, required=True)

    def handle(self, *args, batch: int, out: Path, **options):
        batch_obj = batch_get(pk=batch)
        if batch_obj is None:
            raise CommandError(f"no validation batch {batch}")
        paths = batch_export(batch=batch_obj, out_dir=out)
        results = batch_results(batch=batch_obj)
        self.stdout.write(
            f"batch {batch}: kept {len(results.kept)}, dropped {len(results.dropped)}, "
            f"pending {len(results.pending)} of {len(results.questions)} questions"
        )
        for path in paths.values():
            self.stdout.write(f"wrote {path}")
