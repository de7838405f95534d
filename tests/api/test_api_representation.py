"""The submission's JSON is rendered by hand (the endpoint a client polls): it must equal DRF's own
field-by-field rendering of the declared fields, in every state a client can see."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework import serializers

from api.serializers import SubmissionSerializer
from submissions.models import Submission
from submissions.scoring import submission_score
from submissions.services import submission_mark_failed
from tests.api.conftest import token_client

pytestmark = pytest.mark.django_db


def _drf_rendering(submission: Submission, *, organizer: bool) -> dict:
    """What ModelSerializer.to_representation gives for the same declared fields and context."""
    serializer = SubmissionSerializer(submission, context={"organizer": organizer})
    return serializers.ModelSerializer.to_representation(serializer, submission)


def _both(submission_id: int, *, organizer: bool = False) -> tuple[dict, dict]:
    submission = (
        Submission.objects.select_related("phase__competition", "team")
        .prefetch_related("files", "scores")
        .get(pk=submission_id)
    )
    by_hand = SubmissionSerializer(submission, context={"organizer": organizer}).data
    return dict(by_hand), _drf_rendering(submission, organizer=organizer)


def _upload(user, data: bytes, **fields) -> int:
    payload = {"file": SimpleUploadedFile("predictions.zip", data), **fields}
    response = token_client(user).post("/api/phases/practice/submissions/", payload, format="multipart")
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def test_queued_scored_cross_failed_and_hidden_render_as_drf_does(alice, example_zip, practice):
    user, _ = alice
    queued = _upload(user, example_zip, system_name="a reader", description="ünïcode", trained_on_2=1)
    by_hand, drf = _both(queued)
    assert by_hand["queue"] is not None
    assert by_hand["status"] == "queued"
    assert by_hand == drf

    submission_score(submission_id=queued)
    by_hand, drf = _both(queued)
    assert by_hand["status"] == "scored"
    assert {s["cross"] for s in by_hand["scores"]} == {False, True}
    assert by_hand == drf

    practice.results_hidden = True
    practice.save(update_fields=["results_hidden"])
    by_hand, drf = _both(queued)
    assert by_hand["scores"] == []
    assert by_hand["best_accuracy"] is None
    assert by_hand == drf
    assert _both(queued, organizer=True)[0] == _both(queued, organizer=True)[1]

    failed = _upload(user, example_zip)
    submission_mark_failed(submission=Submission.objects.get(pk=failed), reason="the file broke\nline 2")
    by_hand, drf = _both(failed)
    assert by_hand["status"] == "failed"
    assert by_hand["finished_at"] is not None
    assert by_hand == drf
