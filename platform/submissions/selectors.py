"""Reads: a team's submissions and one submission, only for its members and organizers."""

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet, prefetch_related_objects

from competitions.selectors import phase_expected_ids
from recam.formats import DEFAULT_FORMAT
from recam.submission import (
    Limits,
    ParsedSubmission,
    PredictionFile,
    choices_to_predictions,
    ids_digest,
    parse_submission,
    sha256_hex,
)
from submissions.format_uploads import format_parse
from submissions.models import Submission
from submissions.queue import submission_queue_info
from teams.models import Team


def submission_list_for_team(*, team: Team) -> QuerySet[Submission]:
    return (
        Submission.objects.filter(team=team)
        .select_related("phase")
        .prefetch_related("scores", "files")
        .order_by("-received_at", "-id")
    )


def submission_get_for_user(*, user: AbstractBaseUser, submission_id: int) -> Submission | None:
    """The submission if the user is in its team or an organizer (staff); otherwise None (a 404)."""
    if not user.is_authenticated:
        return None
    queryset = Submission.objects.select_related("phase__competition", "team").prefetch_related(
        "scores", "files"
    )
    if not user.is_staff:
        queryset = queryset.filter(team__memberships__user=user)
    return queryset.filter(pk=submission_id).first()


def submission_status(*, submission: Submission, hidden: bool = False) -> dict:
    """The small JSON the submission page polls; no scores while the phase hides them (``hidden``)."""
    return {
        "id": submission.pk,
        "status": submission.status,
        "status_label": submission.get_status_display(),
        "done": submission.status in ("scored", "failed", "waiting"),
        "failure_reason": submission.failure_reason,
        "received_at": _iso(submission.received_at),
        "queued_at": _iso(submission.queued_at),
        "scoring_started_at": _iso(submission.scoring_started_at),
        "finished_at": _iso(submission.finished_at),
        "queue": submission_queue_info(submission=submission).as_dict(),  # position, median time to score
        "scores": [
            {
                "test_subtask": s.test_subtask,
                "trained_on": s.trained_on,
                "correct": s.correct,
                "total": s.total,
                "accuracy": s.accuracy,
                "scorer_version": s.scorer_version,
                "gold_sha256": s.gold_sha256,
            }
            for s in ([] if hidden else submission.scores.all())
        ],
        "results_hidden": hidden,
        "validity": submission_validity(submission=submission) if submission.status != "received" else "",
    }


def _iso(value) -> str | None:
    return value.isoformat() if value else None


def results_hidden_for(*, phase, user: AbstractBaseUser) -> bool:
    """Scores of a hidden phase are shown to organizers only, until the phase is published."""
    return bool(phase.results_hidden and not (user.is_authenticated and user.is_staff))


def submission_validity(*, submission: Submission) -> str:
    """What a team always sees: "subtask1.csv: 2,025 of 2,025 ids; sha256 ...". Empty if it failed."""
    if submission.status == Submission.Status.FAILED:
        return ""
    expected = {ts.subtask: ts.num_questions for ts in submission.phase.test_sets.all()}
    files = "; ".join(
        f"{f.name}: {f.num_predictions:,} of {expected.get(f.subtask, f.num_predictions):,} ids"
        for f in submission.files.all()
    )
    return f"valid: {files}; sha256 {submission.sha256}"


def submission_duplicate_of_other_team(*, submission: Submission) -> bool:
    """True when another team already uploaded a byte-identical file (same sha256) to the same phase."""
    return (
        Submission.objects.filter(phase_id=submission.phase_id, sha256=submission.sha256)
        .exclude(team_id=submission.team_id)
        .filter(received_at__lte=submission.received_at)
        .exists()
    )


def submission_predictions(*, submission: Submission) -> ParsedSubmission:
    """The upload's predictions as validated when it was received (stored with its file rows), so a file
    is parsed once, in the upload's request. The stored file is still read and must hash to the recorded
    sha256 (a score names exact bytes); it is parsed again (``submission_parse_stored``) where it does
    not, where the rows hold no labels (CLOTH and SCDE uploads, rows written before they were stored),
    or where the test set's ids are no longer those the labels were validated against.

    The phase's test sets and the submission's files are prefetched (the caller reuses them).
    """
    phase = submission.phase
    prefetch_related_objects([phase], "test_sets")
    prefetch_related_objects([submission], "files")
    files = list(submission.files.all())
    data = _stored_bytes(submission)
    if (
        phase.competition.task_format == DEFAULT_FORMAT
        and files
        and all(f.choices for f in files)
        and sha256_hex(data) == submission.sha256
    ):
        ids = {ts.subtask: ts.question_ids for ts in phase.test_sets.all()}
        if all(f.subtask in ids and f.ids_sha256 == ids_digest(ids[f.subtask]) for f in files):
            return ParsedSubmission(
                sha256=submission.sha256,
                files=tuple(
                    PredictionFile(
                        name=f.name,
                        subtask=f.subtask,
                        sha256=f.sha256,
                        predictions=choices_to_predictions(f.choices, ids[f.subtask]),
                    )
                    for f in files
                ),
            )
    return submission_parse_stored(submission=submission, data=data)


def _stored_bytes(submission: Submission) -> bytes:
    with submission.file.open("rb") as handle:
        return handle.read()


def submission_parse_stored(*, submission: Submission, data: bytes | None = None) -> ParsedSubmission:
    """The stored file (or its ``data``, already read) parsed again; the phase's test sets are prefetched.

    Raises ``SubmissionError`` if the stored file does not parse (e.g. the test ids changed since).
    """
    phase = submission.phase
    prefetch_related_objects([phase], "test_sets")  # one query serves the ids and the gold look-up
    if data is None:
        data = _stored_bytes(submission)
    limits = Limits(max_bytes=max(settings.SUBMISSION_MAX_BYTES, len(data)))
    parsed = format_parse(phase=phase, filename=submission.original_filename, data=data, limits=limits)
    if parsed is not None:  # a CLOTH or SCDE competition (submissions.task_formats)
        return parsed
    return parse_submission(
        data=data,
        filename=submission.original_filename,
        expected_ids=phase_expected_ids(phase=phase),
        limits=limits,
    )
