"""Creating validation batches: parsing, nothing stored on error, gold pool, quality reports, roles."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from competitions.errors import ApplicationError
from tests.platform.factories import UserFactory
from tests.platform.validation_helpers import jsonl_bytes, make_batch
from validation.models import BatchQuestion, ValidationBatch
from validation.selectors import user_is_annotator
from validation.services import (
    BatchSettings,
    annotator_set,
    batch_attach_quality_report,
    batch_create,
)

QUALITY = {
    "with_article_accuracy": 0.61,
    "options_only_accuracy": 0.3,
    "effective_options": 3.2,
    "contextual_mi": 0.12,
    "questions": [{"id": 1000, "options_only_correct": True, "effective_options": 2.5}],
}


def test_batch_create_stores_generated_and_gold_questions(db, recam_data_dir):
    batch = make_batch(data_dir=recam_data_dir, generated=4, gold=6, annotations_per_question=2)
    kinds = list(batch.questions.values_list("kind", flat=True))
    assert kinds.count("generated") == 4
    assert kinds.count("gold") == 6
    first = batch.questions.get(kind="generated", question_id=1000)
    source = json.loads((recam_data_dir / "training_data/Task_1_dev.jsonl").read_text().splitlines()[0])
    assert (first.label, first.options[0], first.article) == (
        source["label"],
        source["option_0"],
        source["article"],
    )
    assert batch.annotations_per_question == 2
    assert len(batch.source_sha256) == 64


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "generated.jsonl:3: not valid JSON"),
        ('{"article": "a"}', "generated.jsonl:3: missing field(s) question"),
        ("__unlabelled__", "generated.jsonl: 1 record(s) have no 'label'"),
    ],
)
def test_bad_lines_are_reported_with_file_and_line_and_nothing_is_stored(db, recam_data_dir, line, message):
    good = jsonl_bytes(path=recam_data_dir / "training_data/Task_1_dev.jsonl", count=2).decode()
    if line == "__unlabelled__":
        record = json.loads(good.splitlines()[0])
        record.pop("label")
        record["id"] = 99
        line = json.dumps(record)
    data = (good + line + "\n").encode()
    with pytest.raises(ApplicationError) as caught:
        batch_create(
            name="x", source_name="generated.jsonl", data=data, batch_settings=BatchSettings(gold_rate=0)
        )
    assert message in caught.value.message
    assert ValidationBatch.objects.count() == 0
    assert BatchQuestion.objects.count() == 0


def test_a_bad_gold_file_stores_nothing(db, recam_data_dir):
    data = jsonl_bytes(path=recam_data_dir / "training_data/Task_1_dev.jsonl", count=2)
    with pytest.raises(ApplicationError, match=r"gold.jsonl:1: not valid JSON"):
        batch_create(
            name="x",
            source_name="g.jsonl",
            data=data,
            batch_settings=BatchSettings(),
            gold=("gold.jsonl", b"{\n"),
        )
    assert ValidationBatch.objects.count() == 0


def test_default_gold_file_is_sampled_to_the_pool_size(db, recam_data_dir, settings):
    settings.VALIDATION_GOLD_FILE = recam_data_dir / "training_data/Task_2_dev.jsonl"
    settings.VALIDATION_GOLD_POOL = 7
    data = jsonl_bytes(path=recam_data_dir / "training_data/Task_1_dev.jsonl", count=2, first_id=1000)
    batch = batch_create(name="", source_name="g.jsonl", data=data, batch_settings=BatchSettings())
    again = batch_create(name="", source_name="g.jsonl", data=data, batch_settings=BatchSettings())
    ids = sorted(batch.questions.filter(kind="gold").values_list("question_id", flat=True))
    assert len(ids) == 7
    assert ids == sorted(again.questions.filter(kind="gold").values_list("question_id", flat=True))
    assert batch.name == "g.jsonl"
    assert batch.gold_source_name.endswith("Task_2_dev.jsonl")


def test_missing_default_gold_file_is_a_clear_error(db, recam_data_dir, settings, tmp_path):
    settings.VALIDATION_GOLD_FILE = tmp_path / "nowhere.jsonl"
    data = jsonl_bytes(path=recam_data_dir / "training_data/Task_1_dev.jsonl", count=2)
    with pytest.raises(ApplicationError, match="no gold-check file at"):
        batch_create(name="", source_name="g.jsonl", data=data, batch_settings=BatchSettings())


@pytest.mark.parametrize(
    ("settings_kwargs", "message"),
    [
        ({"annotations_per_question": 0}, "annotations per question"),
        ({"gold_rate": 1.5}, "gold-check rate"),
        ({"questions_per_assignment": 0}, "questions per assignment"),
    ],
)
def test_settings_are_checked(db, recam_data_dir, settings_kwargs, message):
    with pytest.raises(ApplicationError, match=message):
        make_batch(data_dir=recam_data_dir, **settings_kwargs)


def test_quality_report_is_checked_and_attached(db, recam_data_dir):
    batch = make_batch(data_dir=recam_data_dir, generated=2)
    incomplete = {k: v for k, v in QUALITY.items() if k != "contextual_mi"}
    with pytest.raises(
        ApplicationError, match=r"q.json: not a question-quality report \(missing contextual_mi\)"
    ):
        batch_attach_quality_report(batch=batch, name="q.json", data=json.dumps(incomplete).encode())
    with pytest.raises(ApplicationError, match=r"q\.json: not a JSON document"):
        batch_attach_quality_report(batch=batch, name="q.json", data=b"{")
    batch_attach_quality_report(batch=batch, name="quality.json", data=json.dumps(QUALITY).encode())
    batch.refresh_from_db()
    assert batch.quality_report["effective_options"] == 3.2
    assert batch.quality_report_name == "quality.json"


def test_annotator_role_is_a_group(db):
    user = UserFactory()
    assert not user_is_annotator(user=user)
    annotator_set(user=user)
    assert user_is_annotator(user=user)
    annotator_set(user=user, annotator=False)
    assert not user_is_annotator(user=user)


def test_recam_annotator_command(db):
    user = UserFactory()
    call_command("recam_annotator", user.username, stdout=io.StringIO())
    assert user_is_annotator(user=user)
    call_command("recam_annotator", user.username, "--remove", stdout=io.StringIO())
    assert not user_is_annotator(user=user)
    with pytest.raises(CommandError, match="no user 'ghost'"):
        call_command("recam_annotator", "ghost", stdout=io.StringIO())


def test_export_command_refuses_an_unknown_batch(db, tmp_path):
    with pytest.raises(CommandError, match="no validation batch 42"):
        call_command("recam_validation_export", batch=42, out=tmp_path, stdout=io.StringIO())


def test_recam_validation_batch_command(db, recam_data_dir, tmp_path):
    generated, gold, quality = tmp_path / "gen.jsonl", tmp_path / "gold.jsonl", tmp_path / "quality.json"
    generated.write_bytes(jsonl_bytes(path=recam_data_dir / "training_data/Task_1_dev.jsonl", count=4))
    gold.write_bytes(jsonl_bytes(path=recam_data_dir / "training_data/Task_2_dev.jsonl", count=3))
    quality.write_text(json.dumps(QUALITY))
    out = io.StringIO()
    call_command(
        "recam_validation_batch", str(generated), "--gold", str(gold), "--quality", str(quality),
        "--annotations", "5", "--no-none", stdout=out,
    )  # fmt: skip
    batch = ValidationBatch.objects.get()
    assert "4 generated questions, 3 gold checks" in out.getvalue()
    assert (batch.annotations_per_question, batch.allow_none) == (5, False)
    assert batch.quality_report["contextual_mi"] == QUALITY["contextual_mi"]
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{}\n")
    with pytest.raises(CommandError, match=r"broken\.jsonl:1: missing field\(s\)"):
        call_command("recam_validation_batch", str(broken), "--gold-rate", "0", stdout=io.StringIO())
    with pytest.raises(CommandError, match=r"nowhere\.json: no such file"):
        call_command(
            "recam_validation_batch", str(generated), "--quality", "nowhere.json", stdout=io.StringIO()
        )
    assert ValidationBatch.objects.count() == 1
    bad_report = tmp_path / "bad.json"
    bad_report.write_text("[]")
    with pytest.raises(CommandError, match="expected a JSON object"):
        call_command(
            "recam_validation_batch", str(generated), "--quality", str(bad_report), stdout=io.StringIO()
        )
    assert ValidationBatch.objects.count() == 1


def test_a_generated_file_whose_siblings_leak_answers_is_refused_with_the_ids(db, recam_data_dir):
    records = [
        json.loads(line)
        for line in jsonl_bytes(path=recam_data_dir / "training_data/Task_2_dev.jsonl", count=2)
        .decode()
        .splitlines()
    ]
    first, second = records
    second["article"] = first["article"]  # two questions on one article ...
    second["question"] = (
        f"The {first['option_' + str(first['label'])]} was @placeholder ."  # ... one gives the other away
    )
    data = "".join(json.dumps(r) + "\n" for r in (first, second)).encode()
    with pytest.raises(ApplicationError) as caught:
        batch_create(name="x", source_name="gen.jsonl", data=data, batch_settings=BatchSettings(gold_rate=0))
    assert "gen.jsonl: 1 sibling leak(s)" in caught.value.message
    assert "question 0's answer" in caught.value.message
    assert "is in question 1" in caught.value.message
    assert ValidationBatch.objects.count() == 0


def test_a_quality_report_with_a_huge_integer_is_a_form_error_not_a_500(db, recam_data_dir, client):
    """Red-team defect: a 5,000-digit id raised "Exceeds the limit (4300 digits)" out of the page."""
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.urls import reverse

    batch = make_batch(data_dir=recam_data_dir, generated=2)
    huge = json.dumps(QUALITY).replace('"id": 1000', '"id": ' + "9" * 5000).encode()
    with pytest.raises(ApplicationError, match=r"q\.json: the integer 9+\.\.\. has 5,000 digits"):
        batch_attach_quality_report(batch=batch, name="q.json", data=huge)
    client.force_login(UserFactory(is_staff=True))
    page = client.post(
        reverse("validation:batch", args=[batch.pk]), {"report": SimpleUploadedFile("q.json", huge)}
    )
    assert page.status_code == 400  # the form with its error
    assert "has 5,000 digits; at most 18 are allowed" in page.content.decode()
    batch.refresh_from_db()
    assert batch.quality_report is None
