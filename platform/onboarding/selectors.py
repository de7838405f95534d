"""Reads: a phase's public files (questions WITHOUT labels, an example submission, the starting kit).

Gold labels never leave GOLD_ROOT: the questions are re-written from their source with the label dropped.
"""

import io
import json
import zipfile
from pathlib import Path

from django.conf import settings

from competitions.models import Phase, TestSet
from competitions.task_formats import format_public_path, format_slots, format_test_set_get
from recam.formats import DEFAULT_FORMAT
from recam.formats.blanks import format_blank_predictions
from recam.records import iter_questions
from recam.submission import format_predictions, make_zip

KIT_DIR = Path(__file__).resolve().parent / "kit"


def public_questions_path(*, test_set: TestSet) -> Path:
    """Where the console writes a loaded test set's questions without labels."""
    phase = test_set.phase
    folder = Path(settings.MEDIA_ROOT) / "public" / phase.competition.slug / phase.kind
    return folder / f"subtask{test_set.subtask}.jsonl"


def _source(test_set: TestSet) -> Path | None:
    for path in (
        public_questions_path(test_set=test_set),
        Path(settings.RECAM_DATA_DIR) / test_set.source_name,
    ):
        if path.is_file():
            return path
    return None


def public_questions_jsonl(*, test_set: TestSet) -> bytes | None:
    """The test set's questions (id, article, question, option_0..4), never a label; None if no file.

    A CLOTH or SCDE test set: its passages in the format's jsonl, without answers (written at loading).
    """
    if test_set.phase.competition.task_format != DEFAULT_FORMAT:
        public = format_public_path(test_set=test_set)
        return public.read_bytes() if public.is_file() else None
    path = _source(test_set)
    if path is None:
        return None
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    out = io.StringIO()
    for question in iter_questions(lines, source=path.name):
        record = question.to_json()
        record.pop("label", None)
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return out.getvalue().encode("utf-8")


def example_submission_zip(*, phase: Phase) -> bytes:
    """A valid upload for the phase: every test id with label 0 (a format example, not a system)."""
    files = {
        f"subtask{ts.subtask}.csv": format_predictions({qid: 0 for qid in ts.question_ids}).encode("utf-8")
        for ts in phase.test_sets.all()
    }
    return make_zip(files)


def example_format_csv(*, phase: Phase) -> bytes:
    """A valid upload for a CLOTH or SCDE phase: every blank answered 0 (the format, not a system)."""
    test_set = format_test_set_get(phase=phase)
    slots = format_slots(test_set=test_set) if test_set else {}
    predictions = {(pid, blank): 0 for pid, s in slots.items() for blank in range(1, s.blanks + 1)}
    return format_blank_predictions(predictions).encode("utf-8")


def starting_kit_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(KIT_DIR.iterdir()):
            if path.is_file() and not path.name.startswith("."):
                archive.write(path, f"recam-starting-kit/{path.name}")
    return buffer.getvalue()
