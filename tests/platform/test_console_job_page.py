"""A generation job's page says what happened: the funnel in words, the options report as HTML, a
job with no question explained with Send and Load disabled, and the load form preset from the job."""

import json

import pytest
from django.urls import reverse

from console import generation
from console.models import GenerationJob
from tests.platform.factories import UserFactory

REPORT_MD = """# Option generation report: recam.jsonl

## Dataset size (layout of Table 5)

| | Subtask 2 |
|---|---|
| Candidates | 3 |
| Questions | 0 |

<script>alert(1)</script>
"""


@pytest.fixture(autouse=True)
def datasets_root(settings, tmp_path):
    settings.DATASETS_ROOT = tmp_path / "datasets"


@pytest.fixture
def staff_client(client, db):
    client.force_login(UserFactory(is_staff=True))
    return client


def _job(*, questions: int, funnel: dict, drops: dict | None = None, subtask: int = 2) -> GenerationJob:
    job = GenerationJob.objects.create(
        pairs_name="p",
        pairs_path="/x",
        pairs_sha256="0" * 64,
        status=GenerationJob.Status.DONE,
        settings={"subtask": subtask, "gate": True},
    )
    folder = generation.job_dir(job=job)
    folder.mkdir(parents=True)
    (folder / "candidates.jsonl.funnel.json").write_text(json.dumps({"funnel": funnel}))
    report = {"sizes": {"Candidates": {"2": 3}, "Questions": {"2": questions}}, "drops": drops or {}}
    (folder / "recam.report.json").write_text(json.dumps(report))
    (folder / "recam.report.md").write_text(REPORT_MD)
    (folder / "recam.jsonl").write_text("")
    return job


def test_a_job_with_no_question_says_why_and_offers_no_send_or_load(staff_client):
    funnel = {"pairs_in": 12, "no_score": 40, "pairs_with_target": 3, "kept": 3}
    job = _job(questions=0, funnel=funnel, drops={"gate": 3})
    page = staff_client.get(reverse("console_job", args=[job.pk])).content.decode()
    assert "<strong>0 questions</strong>, because all 3 candidate questions were dropped" in page
    assert "gate: 3" in page
    assert "Try more pairs" in page
    assert '<button type="button" disabled id="send-to-validation">' in page
    assert '<button type="button" disabled id="load-into-phase">' in page
    assert 'id="load-form"' not in page


def test_no_target_word_is_explained_as_such(staff_client):
    job = _job(questions=0, funnel={"pairs_in": 12, "pairs_processed": 12, "pairs_with_target": 0})
    page = staff_client.get(reverse("console_job", args=[job.pk])).content.decode()
    assert "because no summary word of the 12 pairs passed the target-word filters" in page


def test_the_funnel_has_labels_and_the_report_is_html(staff_client):
    job = _job(questions=0, funnel={"pairs_in": 12, "no_score": 40})
    page = staff_client.get(reverse("console_job", args=[job.pk])).content.decode()
    assert "XSum pairs read" in page
    assert "no abstractness score" in page
    assert ">pairs_in<" not in page
    assert "<h2>Dataset size (layout of Table 5)</h2>" in page
    assert "<table>" in page
    assert "|---|" not in page
    assert "<script>alert(1)</script>" not in page  # raw HTML in the report is escaped
    assert "&lt;script&gt;" in page


def test_the_load_form_is_preset_from_the_job(staff_client, competition, recam_data_dir):
    job = _job(questions=2, funnel={"kept": 2})
    lines = (recam_data_dir / "training_data/Task_2_dev.jsonl").read_text(encoding="utf-8").splitlines()[:2]
    (generation.job_dir(job=job) / "recam.jsonl").write_text("\n".join(lines) + "\n")
    page = staff_client.get(reverse("console_job", args=[job.pk])).content.decode()
    evaluation = competition.phases.get(kind="evaluation")
    assert f'<option value="{evaluation.pk}" selected>' in page
    assert '<option value="2" selected>' in page
    assert "2 ReCAM questions" in page


def test_options_progress_names_every_stage(tmp_path):
    work = tmp_path / "options.work"

    def progress():
        return generation.options_progress(work=work, folds_total=3, candidates=4, second_lm=True)

    assert progress() == (0, 12, "training the readers: 0 of 3 folds done")
    for fold in range(3):
        (work / f"2/ga/fold{fold}").mkdir(parents=True)
        (work / f"2/ga/fold{fold}/rankings.jsonl").write_text("{}\n")
    assert progress() == (3, 12, "LM 1 (SmolLM2): 0 of 4 questions scored")
    (work / "gate-scores.jsonl").write_text("{}\n" * 4)
    (work / "gate-scores2-gemma.jsonl").write_text("{}\n")
    assert progress() == (8, 12, "LM 2 (Gemma 3): 1 of 4 questions scored")
    (work / "gate-scores2-gemma.jsonl").write_text("{}\n" * 4)
    assert progress() == (11, 12, "the gate and writing the questions")
