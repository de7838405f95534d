"""The organizers' console: services (phase defaults, test set and gold uploads, submission actions)
and the staff-only pages over them."""

import datetime as dt
import json

import pytest
from django.urls import reverse
from django.utils import timezone

from competitions.errors import ApplicationError
from competitions.models import GoldAnswers, Phase
from console import services
from onboarding.selectors import public_questions_jsonl
from submissions.models import Score, Submission
from submissions.services import submission_create
from teams.services import team_create
from tests.platform.factories import UserFactory


def _lines(recam_data_dir, n=20) -> list[dict]:
    path = recam_data_dir / "training_data" / "Task_1_dev.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[:n]]
    return [{"id": i, **r} for i, r in enumerate(records)]


def _jsonl(records, *, labels=True) -> bytes:
    rows = [r if labels else {k: v for k, v in r.items() if k != "label"} for r in records]
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


@pytest.fixture
def staff_client(client, db):
    client.force_login(UserFactory(is_staff=True))
    return client


def test_a_new_evaluation_phase_is_dated_with_a_daily_limit_and_hidden():
    now = dt.datetime(2026, 1, 10, 9, 30, tzinfo=dt.UTC)
    values = services.phase_defaults(kind=Phase.Kind.EVALUATION, now=now)
    assert values["starts_at"] == dt.datetime(2026, 1, 10, 10, 0, tzinfo=dt.UTC)
    assert values["ends_at"] - values["starts_at"] == dt.timedelta(days=services.EVALUATION_DAYS)
    assert values["max_submissions_per_day"] == services.EVALUATION_PER_DAY
    assert values["results_hidden"] is True
    assert values["counted_policy"] == "selected"


def test_phase_save_refuses_an_end_before_the_start(competition):
    start = timezone.now()
    with pytest.raises(ApplicationError, match="end after it starts"):
        services.phase_save(
            competition=competition, kind="practice", values={"starts_at": start, "ends_at": start}
        )


def test_labelled_upload_stores_gold_and_a_label_free_public_file(competition, recam_data_dir, settings):
    phase = competition.phases.get(kind="evaluation")
    records = _lines(recam_data_dir)
    test_set, with_gold = services.test_set_load_upload(
        phase=phase, subtask=1, data=_jsonl(records), filename="mine.jsonl"
    )
    assert with_gold
    assert test_set.num_questions == 20
    gold = GoldAnswers.objects.get(test_set=test_set)
    assert (settings.GOLD_ROOT / gold.path).is_file()
    public = public_questions_jsonl(test_set=test_set).decode().splitlines()
    assert len(public) == 20
    assert all("label" not in json.loads(line) for line in public)
    assert json.loads(public[3])["question"] == records[3]["question"]


def test_a_bad_line_names_the_file_and_line_and_keeps_the_old_test_set(competition, recam_data_dir):
    phase = competition.phases.get(kind="evaluation")
    before = phase.test_sets.get(subtask=1).num_questions
    data = _jsonl(_lines(recam_data_dir, 3)) + b"{not json\n"
    with pytest.raises(ApplicationError, match=r"broken\.jsonl:4"):
        services.test_set_load_upload(phase=phase, subtask=1, data=data, filename="broken.jsonl")
    assert phase.test_sets.get(subtask=1).num_questions == before


def test_partly_labelled_files_are_refused(competition, recam_data_dir):
    records = _lines(recam_data_dir, 4)
    records[2] = {k: v for k, v in records[2].items() if k != "label"}
    with pytest.raises(ApplicationError, match="3 of 4 questions have a label"):
        services.test_set_load_upload(
            phase=competition.phases.get(kind="evaluation"),
            subtask=2,
            data=_jsonl(records),
            filename="x.jsonl",
        )


def _submit(phase, labels: dict[int, int]) -> Submission:
    user = UserFactory()
    team = team_create(competition=phase.competition, user=user, name=f"T{user.pk}")
    body = "".join(f"{k},{v}\n" for k, v in sorted(labels.items())).encode()
    return submission_create(
        team=team,
        submitted_by=user,
        phase=phase,
        filename="subtask1.csv",
        data=body,
        trained_on={1: 1},
        force=True,
    )


def test_gold_upload_scores_waiting_submissions_then_mark_failed_and_rescore(
    competition, recam_data_dir, django_capture_on_commit_callbacks
):
    phase = competition.phases.get(kind="evaluation")
    records = _lines(recam_data_dir)
    services.test_set_load_upload(
        phase=phase, subtask=1, data=_jsonl(records, labels=False), filename="q.jsonl"
    )
    with django_capture_on_commit_callbacks(execute=True):
        submission = _submit(phase, {r["id"]: 0 for r in records})
    submission.refresh_from_db()
    assert submission.status == Submission.Status.WAITING_GOLD
    gold_csv = "".join(f"{r['id']},{r['label']}\n" for r in records).encode()
    with django_capture_on_commit_callbacks(execute=True):
        services.gold_load_upload(phase=phase, subtask=1, data=gold_csv, filename="gold.csv")
    submission.refresh_from_db()
    expected = sum(r["label"] == 0 for r in records)
    assert submission.status == Submission.Status.SCORED
    assert Score.objects.get(submission=submission).correct == expected
    assert services.submissions_mark_failed(phase=phase, ids=[submission.pk], reason="cheating") == 1
    submission.refresh_from_db()
    assert submission.status == "failed"
    assert submission.failure_reason == "cheating"
    with django_capture_on_commit_callbacks(execute=True):
        assert services.submissions_rescore(phase=phase, ids=[submission.pk]) == 1
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORED


def test_console_pages_are_staff_only(competition, client):
    url = reverse("console_phase", args=[competition.slug, "evaluation"])
    assert client.get(url).status_code == 302  # to the admin login
    client.force_login(UserFactory())
    assert client.get(url).status_code == 302
    assert (
        client.post(
            reverse("console_publish", args=[competition.slug, "evaluation"]), {"publish": "1"}
        ).status_code
        == 302
    )
    assert competition.phases.get(kind="evaluation").results_hidden


def test_console_publish_freeze_and_bad_gold_message(competition, staff_client):
    slug = competition.slug
    page = staff_client.get(reverse("console_phase", args=[slug, "practice"]))
    assert page.status_code == 200
    assert b"Preview of the board" in page.content
    assert b"unbounded-warning" in page.content  # recam_competition's practice: open-ended, unlimited
    evaluation = staff_client.get(reverse("console_phase", args=[slug, "evaluation"]))
    assert b"unbounded-warning" not in evaluation.content  # created with 3 a day, 30 in all
    overview = staff_client.get(reverse("console_competition", args=[slug])).content.decode()
    assert overview.count('class="badge status-failed unbounded"') == 2  # practice, post-evaluation
    response = staff_client.post(
        reverse("console_publish", args=[slug, "evaluation"]), {"publish": "1"}, follow=True
    )
    assert b"Results published." in response.content
    assert not competition.phases.get(kind="evaluation").results_hidden
    from django.core.files.uploadedfile import SimpleUploadedFile

    bad = SimpleUploadedFile("gold.csv", b"0,1\nzero,1\n")
    response = staff_client.post(
        reverse("console_gold", args=[slug, "evaluation"]), {"subtask": 1, "file": bad}, follow=True
    )
    assert response.status_code == 200
    assert b"Nothing changed" in response.content
    assert b"line 2" in response.content
    response = staff_client.post(
        reverse("console_freeze", args=[slug, "practice"]), {"confirm": "1"}, follow=True
    )
    assert b"Official results frozen (0 rows);" in response.content


def test_the_admin_never_adds_or_edits_score_rows(admin_client, db):
    assert admin_client.get("/admin/submissions/score/add/").status_code == 403


def test_the_closing_error_sits_under_closes(competition, staff_client):
    slug = competition.slug
    values = {"title": "Practice", "starts_at": "2026-03-02T10:00", "ends_at": "2026-03-01T10:00"}
    values |= {"counted_policy": "best"}
    page = staff_client.post(reverse("console_phase_settings", args=[slug, "practice"]), values)
    assert page.status_code == 400
    html = page.content.decode()
    error = html.index("The phase must close after it opens.")
    assert html.index('id="id_ends_at"') < error  # after the Closes input ...
    assert error < html.index('id="id_max_submissions_per_day"')  # ... before the next field
