"""Validation pages: roles, no label in what annotators get, results, export, and the loader."""

import io
import json
import re
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from competitions.services import competition_load_recam
from tests.platform.factories import UserFactory
from tests.platform.validation_helpers import jsonl_bytes, make_annotator, make_batch
from validation.models import Annotation, Assignment, BatchQuestion, ValidationBatch

STATIC = Path(__file__).resolve().parents[2] / "platform" / "static" / "js" / "annotate.js"
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')


@pytest.fixture
def staff(db):
    return UserFactory(is_staff=True)


def _start(client, batch) -> Assignment:
    response = client.post(reverse("validation:annotate", args=[batch.pk]))
    assert response.status_code == 302
    return Assignment.objects.get(pk=int(response.url.rstrip("/").split("/")[-1]))


def _answer_all(client, assignment: Assignment, choose) -> None:
    """Answer every item through the page: ``choose(item) -> answer``."""
    url = reverse("validation:assignment", args=[assignment.pk])
    for _ in range(assignment.annotations.count()):
        page = client.get(url).content.decode()
        annotation_id = int(re.search(r'name="annotation" value="(\d+)"', page).group(1))
        item = Annotation.objects.get(pk=annotation_id).item
        assert client.post(url, {"annotation": annotation_id, "answer": choose(item)}).status_code == 302


def test_roles(client, db, recam_data_dir):
    batch = make_batch(data_dir=recam_data_dir, generated=2)
    assert client.get(reverse("validation:home")).status_code == 302  # log in first
    client.force_login(UserFactory())
    assert client.get(reverse("validation:home")).status_code == 403
    assert client.post(reverse("validation:annotate", args=[batch.pk])).status_code == 403
    client.force_login(make_annotator())
    assert client.get(reverse("validation:home")).status_code == 200
    for name in ("validation:batch", "validation:export"):  # organizers only
        assert client.get(reverse(name, args=[batch.pk])).url.startswith("/admin/login/")


def test_the_annotation_page_does_not_depend_on_the_label(client, db, recam_data_dir):
    """Same page bytes whatever the labels are; no kind (gold or generated) either."""
    batch = make_batch(data_dir=recam_data_dir, generated=3, questions_per_assignment=3, gold_rate=0.34)
    client.force_login(make_annotator())
    assignment = _start(client, batch)
    url = reverse("validation:assignment", args=[assignment.pk])
    pages = []
    for shift in range(5):
        for item in BatchQuestion.objects.filter(batch=batch):
            item.label = (item.label + shift) % 5
            item.save(update_fields=["label"])
        pages.append(CSRF.sub("", client.get(url).content.decode()))
    assert len(set(pages)) == 1
    assert "gold" not in pages[0].lower()
    assert "label" not in STATIC.read_text().lower()


def test_batch_upload_errors_name_the_line_and_store_nothing(client, staff, recam_data_dir):
    client.force_login(staff)
    good = jsonl_bytes(path=recam_data_dir / "training_data/Task_1_dev.jsonl", count=2).decode()
    upload = SimpleUploadedFile("gen.jsonl", (good + '{"article": 1}\n').encode())
    response = client.post(reverse("validation:home"), {**_form(), "file": upload})
    assert response.status_code == 400
    assert "gen.jsonl:3: missing field(s)" in response.content.decode()
    assert ValidationBatch.objects.count() == 0


def _form(**overrides) -> dict:
    return {
        "name": "", "annotations_per_question": 2, "questions_per_assignment": 3, "allow_none": "on",
        "gold_rate": 0.34, "min_gold_accuracy": 0.4, **overrides,
    }  # fmt: skip


def test_create_annotate_results_export_and_load_as_a_competition(client, staff, recam_data_dir, tmp_path):
    dev1, dev2 = (recam_data_dir / f"training_data/Task_{n}_dev.jsonl" for n in (1, 2))
    client.force_login(staff)
    files = {
        "file": SimpleUploadedFile("gen.jsonl", jsonl_bytes(path=dev1, count=3, first_id=1000)),
        "gold_file": SimpleUploadedFile("gold.jsonl", jsonl_bytes(path=dev2, count=4)),
    }
    response = client.post(reverse("validation:home"), {**_form(name="week 1"), **files})
    batch = ValidationBatch.objects.get()
    assert response.url == reverse("validation:batch", args=[batch.pk])
    wrong_on = 1001  # the second annotator answers "none fits" on this one: no majority of 2, dropped
    for username, choose in (
        ("ann", lambda item: item.label),
        ("bea", lambda item: -1 if item.question_id == wrong_on and item.kind == "generated" else item.label),
    ):
        client.force_login(make_annotator(username))
        assignment = _start(client, batch)
        assert assignment.annotations.filter(item__kind="gold").count() == 1  # round(3 * 0.34)
        _answer_all(client, assignment, choose)
        assert (
            "Assignment complete"
            in client.get(reverse("validation:assignment", args=[assignment.pk])).content.decode()
        )
    client.force_login(staff)
    report = {"with_article_accuracy": 0.7, "options_only_accuracy": 0.25, "effective_options": 3.9,
              "contextual_mi": 0.05, "questions": [{"id": 1001, "options_only_correct": False}]}  # fmt: skip
    upload = SimpleUploadedFile("quality.json", json.dumps(report).encode())
    assert client.post(reverse("validation:batch", args=[batch.pk]), {"report": upload}).status_code == 302
    page = client.get(reverse("validation:batch", args=[batch.pk])).content.decode()
    assert re.search(r'id="human-accuracy">83\.3<', page)  # 5 of 6 answers on the label
    assert 'id="verdict-counts">2 / 1 / 0<' in page
    assert "options_only_correct: False" in page
    assert "3.9" in page
    archive = zipfile.ZipFile(io.BytesIO(client.get(reverse("validation:export", args=[batch.pk])).content))
    validated = archive.read(f"validation-batch-{batch.pk}/validated.jsonl").decode()
    records = [json.loads(line) for line in validated.splitlines()]
    assert [r["id"] for r in records] == [1000, 1002]
    assert [r["source_id"] for r in records] == ["xsum-1000", "xsum-1002"]  # datagen's extra fields are kept
    table = archive.read(f"validation-batch-{batch.pk}/annotations.csv").decode().splitlines()
    assert len(table) == 1 + 8  # header, 2 annotators x (3 generated + 1 gold)

    call_command("recam_validation_export", batch=batch.pk, out=tmp_path / "out", stdout=io.StringIO())
    assert (tmp_path / "out" / "validated.jsonl").read_text() == validated
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["dropped"] == {"1001": "no majority"}
    assert summary["fleiss_kappa"] is not None

    data_dir = tmp_path / "competition-data"  # the validated file as a practice test set
    (data_dir / "training_data").mkdir(parents=True)
    (data_dir / "training_data" / "Task_1_dev.jsonl").write_text(validated)
    competition = competition_load_recam(data_dir=data_dir, slug="validated").competition
    test_set = competition.phases.get(kind="practice").test_sets.get(subtask=1)
    assert test_set.question_ids == [1000, 1002]
    assert test_set.gold.num_labels == 2


def test_an_assignment_is_resumed_where_it_stopped(client, db, recam_data_dir):
    batch = make_batch(data_dir=recam_data_dir, generated=4, questions_per_assignment=3, gold_rate=0)
    client.force_login(make_annotator())
    assignment = _start(client, batch)
    url = reverse("validation:assignment", args=[assignment.pk])
    page = client.get(url).content.decode()
    annotation_id = int(re.search(r'name="annotation" value="(\d+)"', page).group(1))
    client.post(url, {"annotation": annotation_id, "answer": 2})
    client.post(url, {"annotation": annotation_id, "answer": "x"})  # junk is refused, not a 500
    assert _start(client, batch).pk == assignment.pk
    assert "1 of 3 answered" in client.get(url).content.decode()
    home = client.get(reverse("validation:home")).content.decode()
    assert "Continue" in home


def test_a_batch_from_a_file_on_the_server(client, staff, recam_data_dir, settings, tmp_path):
    settings.VALIDATION_SOURCE_DIR = tmp_path
    settings.VALIDATION_GOLD_FILE = recam_data_dir / "training_data/Task_2_dev.jsonl"
    (tmp_path / "run1").mkdir()
    (tmp_path / "run1" / "options.jsonl").write_bytes(
        jsonl_bytes(path=recam_data_dir / "training_data/Task_1_dev.jsonl", count=3, first_id=7)
    )
    client.force_login(staff)
    assert "run1/options.jsonl" in client.get(reverse("validation:home")).content.decode()
    response = client.post(reverse("validation:home"), _form(path="run1/options.jsonl"))
    assert response.status_code == 302
    batch = ValidationBatch.objects.get()
    assert batch.source_name == "run1/options.jsonl"
    assert sorted(batch.questions.filter(kind="generated").values_list("question_id", flat=True)) == [7, 8, 9]
    refused = client.post(reverse("validation:home"), _form(path="../etc/passwd"))
    assert refused.status_code == 400  # only the listed files
    both = client.post(
        reverse("validation:home"),
        {**_form(path="run1/options.jsonl"), "file": SimpleUploadedFile("x.jsonl", b"{}\n")},
    )
    assert "upload a file or choose one on the server" in both.content.decode()
    assert ValidationBatch.objects.count() == 1
