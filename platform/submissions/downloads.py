"""Organizers: every submission of a phase as one zip, with a manifest CSV."""

import csv
import io
import zipfile
from collections.abc import Collection
from typing import BinaryIO

from accounts.names import csv_row
from competitions.models import Phase
from recam.formats import DEFAULT_FORMAT, get_format
from submissions.models import Submission

MANIFEST_FIELDS = ["submission_id", "team", "baseline", "received_at", "system_name", "sha256", "status"]
MANIFEST_FIELDS += ["failure_reason", "accuracy_subtask1", "trained_on_subtask1", "accuracy_subtask2"]
MANIFEST_FIELDS += ["trained_on_subtask2", "scorer_version", "counted", "path_in_zip"]


def phase_submissions_zip(*, phase: Phase, out: BinaryIO, counted: Collection[int]) -> int:
    """Write ``manifest.csv`` and ``submissions/<team>/<id>-<file>`` for every submission; returns the count.

    ``counted``: the ids of the counted submissions (``leaderboards.selectors.phase_counted_submission_ids``).
    """
    submissions = list(
        Submission.objects.filter(phase=phase)
        .select_related("team")
        .prefetch_related("scores")
        .order_by("team__name", "received_at", "id")
    )
    # A CLOTH or SCDE phase: its format's metrics too (BA, PA, DE), from each score's ``metrics``.
    fmt = get_format(phase.competition.task_format)
    keys = [] if fmt.name == DEFAULT_FORMAT else [m.key for m in fmt.metrics]
    manifest = io.StringIO()
    writer = csv.DictWriter(manifest, fieldnames=MANIFEST_FIELDS + keys, lineterminator="\n")
    writer.writeheader()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for submission in submissions:
            path = f"submissions/{_safe(submission.team.name)}/{submission.pk}-{_safe(submission.original_filename)}"
            with submission.file.open("rb") as handle:
                archive.writestr(path, handle.read())
            row = _manifest_row(submission, path, submission.pk in counted)
            metrics = next((s.metrics for s in submission.scores.all() if s.metrics), {})
            writer.writerow(csv_row(row | {key: metrics.get(key, "") for key in keys}))
        archive.writestr("manifest.csv", manifest.getvalue())
    return len(submissions)


def _manifest_row(submission: Submission, path: str, counted: bool) -> dict:
    scores = {s.test_subtask: s for s in submission.scores.all()}
    row = {
        "submission_id": submission.pk,
        "team": submission.team.name,
        "baseline": submission.is_baseline,
        "received_at": submission.received_at.isoformat(),
        "system_name": submission.system_name,
        "sha256": submission.sha256,
        "status": submission.status,
        "failure_reason": submission.failure_reason.splitlines()[0] if submission.failure_reason else "",
        "scorer_version": next((s.scorer_version for s in scores.values()), ""),
        "counted": counted,
        "path_in_zip": path,
    }
    for subtask in (1, 2):
        score = scores.get(subtask)
        row[f"accuracy_subtask{subtask}"] = score.accuracy if score else ""
        row[f"trained_on_subtask{subtask}"] = score.trained_on if score else ""
    return row


def _safe(name: str) -> str:
    """A file-name-safe version of a team or file name (no folders, no traversal)."""
    cleaned = "".join(c if c.isalnum() or c in "-_.@" else "_" for c in name).strip(".")
    return cleaned[:80] or "unnamed"
