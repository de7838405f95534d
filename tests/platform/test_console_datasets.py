"""Dataset generation jobs in the console: pairs upload checks, enqueue by name, cancel / resume,
progress and cancellation from the worker side, loading a job's ReCAM jsonl into a phase."""

import json

import pytest
from django.urls import reverse

from competitions.errors import ApplicationError
from competitions.models import GoldAnswers, TestSet
from console import generation
from console.models import GenerationJob
from tests.platform.factories import UserFactory
from validation.models import ValidationBatch

PAIR = {"id": "1", "document": "The council approved the plan on Monday.", "summary": "A plan was approved."}


@pytest.fixture(autouse=True)
def datasets_root(settings, tmp_path):
    settings.DATASETS_ROOT = tmp_path / "datasets"
    return settings.DATASETS_ROOT


@pytest.fixture
def sent(monkeypatch):
    """Record what would go to the broker (name, args, queue) instead of sending it."""
    from celery import current_app

    calls = []

    class Result:
        id = "task-1"

    def send_task(name, args=None, queue=None, **kwargs):
        calls.append((name, args, queue))
        return Result()

    monkeypatch.setattr(current_app, "send_task", send_task)
    return calls


def test_a_pairs_file_without_a_usable_pair_is_refused_and_not_kept(db, datasets_root):
    with pytest.raises(ApplicationError, match=r"bad\.jsonl: no usable article/summary pair"):
        generation.pairs_upload_store(name="bad.jsonl", data=b'{"id": 1}\nnot json\n')
    assert list((datasets_root / "pairs").iterdir()) == []


def test_bad_lines_are_counted_and_named(db):
    data = (json.dumps(PAIR) + "\nnot json\n").encode()
    path = generation.pairs_upload_store(name="mixed.jsonl", data=data)
    check = generation.pairs_check(path=path)
    assert check.pairs == 1
    assert len(check.bad_lines) == 1
    assert check.bad_lines[0].endswith("mixed.jsonl, line 2: not JSON (Expecting value at column 1)")
    assert path in generation.pairs_files()


def test_start_enqueues_by_name_on_commit_then_cancel_and_resume(
    db, sent, settings, django_capture_on_commit_callbacks
):
    path = generation.pairs_upload_store(name="p.jsonl", data=(json.dumps(PAIR) + "\n").encode())
    with django_capture_on_commit_callbacks(execute=True):
        job = generation.job_start(pairs_path=path, values={"subtask": 2, "folds": 2})
    assert sent == [("console.generate_dataset", [job.pk], settings.CELERY_CPU_QUEUE)]
    job.refresh_from_db()
    assert job.task_id == "task-1"
    assert job.settings["folds"] == 2
    assert job.settings["readers"] == "ga,att,att-gloss"
    assert job.settings["gate_second_lm"] is True  # gate version 4 by default, as `datagen options`
    with pytest.raises(ApplicationError, match="only a cancelled or failed job resumes"):
        generation.job_resume(job=job)
    generation.job_cancel(job=job)
    with pytest.raises(generation.JobCancelled):
        generation.job_progress(job_id=job.pk, stage="candidates", done=1, total=3)
    generation.job_finish(job_id=job.pk, status=GenerationJob.Status.CANCELLED, message="stopped")
    job.refresh_from_db()
    assert (job.status, job.done, job.total) == ("cancelled", 1, 3)
    with django_capture_on_commit_callbacks(execute=True):
        generation.job_resume(job=job)
    job.refresh_from_db()
    assert job.status == "queued"
    assert not job.cancel_requested
    assert len(sent) == 2


def test_a_finished_job_loads_into_a_phase_with_its_gold(competition, recam_data_dir, db):
    job = GenerationJob.objects.create(pairs_name="p", pairs_path="/x", pairs_sha256="0" * 64)
    folder = generation.job_dir(job=job)
    folder.mkdir(parents=True)
    lines = (
        (recam_data_dir / "training_data" / "Task_2_dev.jsonl").read_text(encoding="utf-8").splitlines()[:12]
    )
    (folder / "recam.jsonl").write_text(
        "".join(
            json.dumps({"id": i, **json.loads(line), "subtask": "2"}) + "\n" for i, line in enumerate(lines)
        )
    )
    (folder / "candidates.jsonl.funnel.json").write_text(json.dumps({"funnel": {"kept": 12}}))
    outputs = generation.job_outputs(job=job)
    assert outputs["questions"] == 12
    assert outputs["funnel"]["funnel"]["kept"] == 12
    phase = competition.phases.get(kind="evaluation")
    test_set, with_gold = generation.job_load_into_phase(job=job, phase=phase, subtask=2)
    assert with_gold
    assert test_set.num_questions == 12
    assert GoldAnswers.objects.get(test_set=test_set).num_labels == 12


def test_a_job_whose_questions_leak_each_others_answers_is_not_loaded(competition, recam_data_dir, db):
    job = GenerationJob.objects.create(pairs_name="p", pairs_path="/x", pairs_sha256="0" * 64)
    folder = generation.job_dir(job=job)
    folder.mkdir(parents=True)
    lines = (recam_data_dir / "training_data" / "Task_2_dev.jsonl").read_text(encoding="utf-8").splitlines()
    first, second = (json.loads(line) for line in lines[:2])
    answer = first[f"option_{first['label']}"]
    second |= {"article": first["article"], "question": f"Its {answer} is @placeholder ."}
    (folder / "recam.jsonl").write_text(
        "".join(json.dumps({"id": i, **r}) + "\n" for i, r in enumerate((first, second)))
    )
    phase = competition.phases.get(kind="evaluation")
    with pytest.raises(ApplicationError, match=r"job \d+: 1 sibling leak\(s\).*question 0's answer"):
        generation.job_load_into_phase(job=job, phase=phase, subtask=2)
    assert not TestSet.objects.filter(phase=phase, subtask=2).exists()


def test_job_pages_are_staff_only_and_render(db, client, sent):
    job = GenerationJob.objects.create(pairs_name="p", pairs_path="/x", pairs_sha256="0" * 64)
    assert client.get(reverse("console_job", args=[job.pk])).status_code == 302
    client.force_login(UserFactory(is_staff=True))
    page = client.get(reverse("console_job", args=[job.pk])).content.decode()
    assert 'id="job-progress"' in page
    assert 'id="job-cancel"' in page
    assert client.get(reverse("console_job_status", args=[job.pk])).json()["status"] == "queued"
    assert client.get(reverse("console_datasets")).status_code == 200


def test_send_to_validation_makes_a_batch_of_the_jobs_questions_with_its_quality_report(
    db, client, recam_data_dir, settings
):
    settings.VALIDATION_GOLD_FILE = str(recam_data_dir / "training_data" / "Task_1_dev.jsonl")
    job = GenerationJob.objects.create(pairs_name="p", pairs_path="/x", pairs_sha256="0" * 64)
    staff = UserFactory(is_staff=True)
    client.force_login(staff)
    response = client.post(reverse("console_job_validate", args=[job.pk]))
    assert response.status_code == 302  # no questions yet: refused, back to the job page
    assert not ValidationBatch.objects.exists()
    folder = generation.job_dir(job=job)
    folder.mkdir(parents=True)
    lines = (
        (recam_data_dir / "training_data" / "Task_2_dev.jsonl").read_text(encoding="utf-8").splitlines()[:6]
    )
    (folder / "recam.jsonl").write_text(
        "".join(json.dumps({"id": i, **json.loads(line)}) + "\n" for i, line in enumerate(lines))
    )
    report = {"with_article_accuracy": 0.5, "options_only_accuracy": 0.3, "effective_options": 3.2}
    report |= {"contextual_mi": 0.2, "questions": []}
    (folder / "recam.quality.json").write_text(json.dumps(report))
    response = client.post(reverse("console_job_validate", args=[job.pk]))
    batch = ValidationBatch.objects.get()
    assert response.url == reverse("validation:batch", args=[batch.pk])
    generated = batch.questions.filter(kind="generated")
    assert sorted(generated.values_list("question_id", flat=True)) == list(range(6))
    assert batch.created_by == staff
    assert batch.quality_report["effective_options"] == 3.2
