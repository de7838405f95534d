"""Test sets of the multi-blank task formats (CLOTH, SCDE): load one (write), read its slots and gold (reads).

A competition's ``task_format`` names its format (``recam.formats``); ReCAM test sets keep their own
loader (``competitions.services``). A multi-blank phase has one test set (stored as subtask 1): its
``question_ids`` are the passage ids, its ``slots`` each passage's blanks and choices, and its gold is
the format's own jsonl (with answers) under GOLD_ROOT, checked against its sha256 when read.
"""

import hashlib
import json
from pathlib import Path

from django.conf import settings
from django.db import transaction

from competitions.errors import ApplicationError
from competitions.models import GoldAnswers, Phase, TestSet
from recam.formats import DEFAULT_FORMAT, TaskFormat, get_format
from recam.formats.blanks import Slots

SUBTASK = 1  # the one test set of a multi-blank phase


def phase_format(*, phase: Phase) -> TaskFormat:
    return get_format(phase.competition.task_format)


def _records(fmt: TaskFormat, path: Path, *, official: bool) -> tuple[list, list[str]]:
    if not official and path.is_dir():
        raise ApplicationError(f"{path} is a folder: give a {fmt.name} jsonl file, or the published layout")
    try:
        if official:
            loaded = fmt.load_official(path)
            return list(loaded.passages), [str(d) for d in loaded.dropped]
        return fmt.read(path), []
    except (ValueError, OSError) as exc:
        raise ApplicationError(str(exc)) from None


@transaction.atomic
def format_test_set_load(*, phase: Phase, path: Path, official: bool = False) -> str:
    """Store the phase's test set from a file of its competition's format; with answers, its gold too.

    ``official`` reads the published CLOTH / SCDE layout (``recam.formats.official``). Returns a
    one-line report; passages the SCDE cleaning rules drop are counted in it.
    """
    fmt = phase_format(phase=phase)
    if fmt.name == DEFAULT_FORMAT:
        raise ApplicationError("a ReCAM competition loads its test sets with recam_competition / recam_gold")
    records, dropped = _records(fmt, Path(path), official=official)
    if not records:
        raise ApplicationError(f"{path}: no passage to load")
    slots = {str(pid): [s.blanks, s.choices] for pid, s in fmt.slots(records).items()}
    blanks = sum(blank for blank, _ in slots.values())
    test_set, _ = TestSet.objects.update_or_create(
        phase=phase,
        subtask=SUBTASK,
        defaults={
            "question_ids": sorted(r.id for r in records),
            "num_questions": blanks,
            "slots": slots,
            "source_name": Path(path).name,
            "source_sha256": _file_sha256(Path(path)),
        },
    )
    _public_store(test_set=test_set, fmt=fmt, records=records)
    message = f"{phase.kind}: {fmt.name}: {len(records):,} passages, {blanks:,} blanks from {Path(path).name}"
    if dropped:
        message += f" ({len(dropped):,} passages dropped by the cleaning rules)"
    if all(r.answers is not None for r in records):
        gold = _gold_store(fmt=fmt, test_set=test_set, records=records, blanks=blanks, source=Path(path).name)
        return f"{message}, gold sha256 {gold.sha256[:12]}"
    GoldAnswers.objects.filter(test_set=test_set).delete()  # a new test set: the old gold no longer fits
    return f"{message}, no gold answers"


def format_public_path(*, test_set: TestSet) -> Path:
    """Where the participants' copy of a loaded test set is kept: the format's jsonl without answers."""
    phase = test_set.phase
    fmt = phase.competition.task_format
    return Path(settings.MEDIA_ROOT) / "public" / phase.competition.slug / phase.kind / f"{fmt}.jsonl"


def _public_store(*, test_set: TestSet, fmt: TaskFormat, records: list) -> None:
    """Write the participants' copy: every record without its answers (they never leave GOLD_ROOT)."""
    lines = (
        json.dumps({k: v for k, v in r.to_json().items() if k != "answers"}, ensure_ascii=False) + "\n"
        for r in records
    )
    target = format_public_path(test_set=test_set)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("".join(lines), encoding="utf-8")


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    for file in [path] if path.is_file() else sorted(path.rglob("*.json")):
        digest.update(file.read_bytes())
    return digest.hexdigest()


def _gold_store(
    *, fmt: TaskFormat, test_set: TestSet, records: list, blanks: int, source: str
) -> GoldAnswers:
    content = "".join(_json_line(record) for record in records).encode("utf-8")
    relative = Path(test_set.phase.competition.slug) / test_set.phase.kind / f"{fmt.name}.jsonl"
    target = Path(settings.GOLD_ROOT) / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content)
    gold, _ = GoldAnswers.objects.update_or_create(
        test_set=test_set,
        defaults={
            "path": str(relative),
            "sha256": hashlib.sha256(content).hexdigest(),
            "num_labels": blanks,
            "source_name": source,
        },
    )
    return gold


def _json_line(record) -> str:
    return json.dumps(record.to_json(), ensure_ascii=False) + "\n"


def format_test_set_get(*, phase: Phase) -> TestSet | None:
    return next((ts for ts in phase.test_sets.all() if ts.subtask == SUBTASK), None)


def format_slots(*, test_set: TestSet) -> dict[int, Slots]:
    """``{passage id: Slots}``: what an upload to a multi-blank phase is checked against."""
    return {int(pid): Slots(blanks=b, choices=c) for pid, (b, c) in test_set.slots.items()}


def format_gold_records(*, test_set: TestSet) -> tuple[list, str] | None:
    """The gold records and their sha256, or None when none are loaded; the file must match its sha256."""
    gold = GoldAnswers.objects.filter(test_set=test_set).first()
    if gold is None:
        return None
    path = Path(settings.GOLD_ROOT) / gold.path
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != gold.sha256:
        raise ValueError(f"{path}: sha256 {digest} differs from the recorded {gold.sha256}")
    fmt = get_format(test_set.phase.competition.task_format)
    return fmt.read(path, require_answers=True), digest
