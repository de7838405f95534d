"""One id rule: a question's id is its 0-based line number, also for a generated set from which
questions were dropped; a participant who follows the Data page is accepted."""

import json

import pytest
from django.urls import reverse

from competitions.errors import ApplicationError
from console import services
from onboarding.selectors import public_questions_jsonl
from submissions.services import submission_create
from tests.platform.factories import PhaseFactory, TeamFactory


def _generated(recam_data_dir, *, labels: bool = True) -> bytes:
    """21 Subtask 2 dev questions with ids 0-12, 14-20: as `datagen options` writes them after it
    dropped question 13."""
    lines = (recam_data_dir / "training_data/Task_2_dev.jsonl").read_text(encoding="utf-8").splitlines()
    ids = [*range(13), *range(14, 21)]
    records = []
    for i, line in zip(ids, lines, strict=False):
        record = json.loads(line) | {"id": i, "source_id": f"xsum-{i}", "subtask": 2}
        records.append(record if labels else {k: v for k, v in record.items() if k != "label"})
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def test_a_participant_following_the_data_page_is_accepted(
    db, client, recam_data_dir, django_capture_on_commit_callbacks
):
    phase = PhaseFactory(kind="practice")
    test_set, with_gold = services.test_set_load_upload(
        phase=phase, subtask=2, data=_generated(recam_data_dir), filename="job1-recam.jsonl"
    )
    assert with_gold
    assert test_set.question_ids == list(range(20))
    page = client.get(reverse("phase_data", args=[phase.competition.slug, phase.kind])).content.decode()
    assert "0-based line number" in page
    lines = public_questions_jsonl(test_set=test_set).decode().splitlines()
    # The Data page: no header, one id,label line per question, id = its 0-based line number.
    rows = "".join(f"{line_number},0\n" for line_number, _ in enumerate(lines))
    with django_capture_on_commit_callbacks(execute=True):
        submission = submission_create(
            phase=phase,
            team=TeamFactory(competition=phase.competition),
            filename="subtask2.csv",
            data=rows.encode(),
            trained_on={2: 2},
        )
    submission.refresh_from_db()
    assert submission.status == "scored", submission.error
    assert [json.loads(line)["id"] for line in lines] == list(range(20))


def test_an_unlabelled_file_with_other_ids_is_refused_with_the_line(db, recam_data_dir):
    phase = PhaseFactory(kind="practice")
    with pytest.raises(
        ApplicationError, match=r"t\.jsonl: question 14 has id 14, not its 0-based line number 13"
    ):
        services.test_set_load_upload(
            phase=phase, subtask=2, data=_generated(recam_data_dir, labels=False), filename="t.jsonl"
        )
