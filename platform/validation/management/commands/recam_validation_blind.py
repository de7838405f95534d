import json
import random
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from recam.blind import batch_records, blind_items, key_json, noarticle_markdown, witharticle_markdown
from recam.records import read_questions


class Command(BaseCommand):
    help = (
        "Write a blind annotation set: the first COUNT questions of a generated file and a seeded sample of COUNT "
        "questions of a reference file (e.g. ReCAM Subtask 2 dev), mixed, shuffled and unmarked: noarticle.md, "
        "witharticle.md and, never for annotators, key.json and key.batch.jsonl (for recam_validation_answers)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--generated", type=Path, required=True)
        parser.add_argument("--reference", type=Path, required=True)
        parser.add_argument("--count", type=int, default=30)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--out", type=Path, required=True)

    def handle(self, *args, generated: Path, reference: Path, count: int, seed: int, out: Path, **options):
        try:
            ours = sorted(read_questions(generated, require_labels=True), key=lambda q: q.id)[:count]
            theirs = read_questions(reference, require_labels=True)
        except (OSError, ValueError) as exc:
            raise CommandError(str(exc)) from None
        theirs = sorted(random.Random(seed).sample(theirs, min(count, len(theirs))), key=lambda q: q.id)
        items = blind_items(sets={"generated": ours, "recam": theirs}, seed=seed)
        out.mkdir(parents=True, exist_ok=True)
        (out / "noarticle.md").write_text(noarticle_markdown(items), encoding="utf-8")
        (out / "witharticle.md").write_text(witharticle_markdown(items), encoding="utf-8")
        (out / "key.json").write_text(json.dumps(key_json(items), indent=1), encoding="utf-8")
        records = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in batch_records(items))
        (out / "key.batch.jsonl").write_text(records, encoding="utf-8")  # has the labels: part of the key
        self.stdout.write(f"{len(items)} items ({len(ours)} generated, {len(theirs)} reference) in {out}")
