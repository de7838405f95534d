"""Two-stage batches: each annotator answers without the article first, then with it, and marks options."""

import io
import json
import re
import zipfile

import pytest
from django.urls import reverse

from competitions.errors import ApplicationError
from tests.platform.factories import UserFactory
from tests.platform.validation_helpers import jsonl_bytes, make_annotator, make_batch
from validation.assignments import annotation_answer, assignment_get_or_create
from validation.models import Annotation, Assignment
from validation.two_stage import (
    annotation_answer_with_article,
    annotation_answer_without_article,
    two_stage_results,
)


def _batch(recam_data_dir, **settings):
    return make_batch(
        data_dir=recam_data_dir, generated=4, gold=0, gold_rate=0, annotations_per_question=2,
        questions_per_assignment=4, two_stage=True, **settings,
    )  # fmt: skip


def test_stages_are_in_order_once_each_and_the_marks_are_stored(db, recam_data_dir):
    batch = _batch(recam_data_dir)
    annotator = make_annotator()
    assignment = assignment_get_or_create(batch=batch, annotator=annotator)
    annotation = assignment.annotations.first()
    label = annotation.item.label
    with pytest.raises(ApplicationError, match="without the article first"):
        annotation_answer_with_article(
            assignment=assignment, annotator=annotator, annotation_id=annotation.pk, answer=label
        )
    wrong = (label + 1) % 5
    annotation_answer_without_article(
        assignment=assignment, annotator=annotator, annotation_id=annotation.pk, answer=wrong
    )
    with pytest.raises(ApplicationError, match="already answered this question without"):
        annotation_answer_without_article(
            assignment=assignment, annotator=annotator, annotation_id=annotation.pk, answer=label
        )
    annotation_answer_with_article(
        assignment=assignment, annotator=annotator, annotation_id=annotation.pk, answer=label,
        multiple_fit=True, ungrammatical=True,
    )  # fmt: skip
    annotation.refresh_from_db()
    assert (annotation.answer_without_article, annotation.answer) == (wrong, label)
    assert annotation.multiple_fit
    assert annotation.ungrammatical


def test_a_one_stage_batch_takes_no_answer_without_the_article(db, recam_data_dir):
    batch = make_batch(data_dir=recam_data_dir, generated=2, gold=0, gold_rate=0)
    annotator = make_annotator()
    assignment = assignment_get_or_create(batch=batch, annotator=annotator)
    with pytest.raises(ApplicationError, match="no answers without the article"):
        annotation_answer_without_article(
            assignment=assignment,
            annotator=annotator,
            annotation_id=assignment.annotations.first().pk,
            answer=0,
        )


def test_results_per_source(db, recam_data_dir):
    batch = _batch(recam_data_dir)
    items = list(batch.questions.order_by("question_id"))
    for i, item in enumerate(items):  # two sources, as in a blind batch of generated and ReCAM questions
        item.extra = {**item.extra, "source": "generated" if i < 2 else "recam"}
        item.save()
    for name in ("a", "b"):
        annotator = make_annotator(name)
        assignment = assignment_get_or_create(batch=batch, annotator=annotator)
        for annotation in assignment.annotations.select_related("item"):
            item = annotation.item
            generated = item.extra["source"] == "generated"
            # generated: wrong without the article, right with it, marked "more than one fits" by "a" only
            annotation_answer_without_article(
                assignment=assignment, annotator=annotator, annotation_id=annotation.pk,
                answer=(item.label + 1) % 5 if generated else item.label,
            )  # fmt: skip
            annotation_answer_with_article(
                assignment=assignment, annotator=annotator, annotation_id=annotation.pk, answer=item.label,
                multiple_fit=generated and name == "a", ungrammatical=not generated and name == "b",
            )  # fmt: skip
    table = two_stage_results(batch=batch)["by_source"]
    generated, recam = table["generated"], table["recam"]
    assert (generated["questions"], generated["answers"]) == (2, 4)
    assert generated["with_article_accuracy"] == 1.0
    assert generated["without_article_accuracy"] == 0.0
    assert generated["needed_article"] == 2
    assert generated["multiple_fit_rate"] == 0.5
    assert generated["unique_answer_rate"] == 0.0  # one of two annotators is not a majority
    assert recam["without_article_accuracy"] == 1.0
    assert recam["needed_article"] == 0
    assert recam["unique_answer_rate"] == 1.0
    assert recam["ungrammatical_rate"] == 0.5
    assert recam["ungrammatical_questions"] == 2


def test_the_pages_hide_the_article_in_the_first_stage_and_the_export_has_both(client, db, recam_data_dir):
    batch = _batch(recam_data_dir)
    client.force_login(make_annotator())
    response = client.post(reverse("validation:annotate", args=[batch.pk]))
    assignment = Assignment.objects.get(pk=int(response.url.rstrip("/").split("/")[-1]))
    url = reverse("validation:assignment", args=[assignment.pk])
    for _ in range(assignment.annotations.count()):
        page = client.get(url).content.decode()
        assert 'id="article"' not in page
        assert 'name="stage" value="without-article"' in page
        annotation_id = int(re.search(r'name="annotation" value="(\d+)"', page).group(1))
        item = Annotation.objects.get(pk=annotation_id).item
        client.post(url, {"annotation": annotation_id, "answer": 0, "stage": "without-article"})
        page = client.get(url).content.decode()
        assert 'id="article"' in page
        assert 'id="mark-multiple-fit"' in page
        client.post(url, {"annotation": annotation_id, "answer": item.label, "multiple_fit": "on"})
    assert Annotation.objects.filter(answer__isnull=False, multiple_fit=True).count() == 4
    client.force_login(UserFactory(is_staff=True))
    assert (
        'id="two-stage-generated"'
        in client.get(reverse("validation:batch", args=[batch.pk])).content.decode()
    )
    archive = zipfile.ZipFile(io.BytesIO(client.get(reverse("validation:export", args=[batch.pk])).content))
    staged = json.loads(archive.read(f"validation-batch-{batch.pk}/two_stage.json"))
    assert staged["results"]["by_source"]["generated"]["with_article_accuracy"] == 1.0
    assert len(staged["answers"]) == 4
    assert {row["without_article"] for row in staged["answers"]} == {0}


def test_plain_answers_still_work_in_a_one_stage_batch(db, recam_data_dir):
    batch = make_batch(data_dir=recam_data_dir, generated=1, gold=0, gold_rate=0)
    annotator = make_annotator()
    assignment = assignment_get_or_create(batch=batch, annotator=annotator)
    annotation = assignment.annotations.first()
    annotation_answer(assignment=assignment, annotator=annotator, annotation_id=annotation.pk, answer=1)
    assert two_stage_results(batch=batch)["two_stage"] is False


def test_offline_answer_files_become_a_batch_with_rates_per_source(db, recam_data_dir, tmp_path):
    from django.core.management import CommandError, call_command

    generated = tmp_path / "gen.jsonl"
    generated.write_bytes(jsonl_bytes(path=recam_data_dir / "training_data/Task_1_dev.jsonl", count=3))
    out = tmp_path / "blind"
    call_command("recam_validation_blind", generated=generated, count=3, out=out,
                 reference=recam_data_dir / "training_data/Task_2_dev.jsonl")  # fmt: skip
    key = json.loads((out / "key.json").read_text())
    assert sorted(v["source"] for v in key.values()) == ["generated"] * 3 + ["recam"] * 3
    for name, right in (("ann1", True), ("ann2", False)):
        answers = {
            item: {"noarticle": -1, "witharticle": v["label"] if right else (v["label"] + 1) % 5,
                   "multiple_fit": not right, "ungrammatical": False}
            for item, v in key.items()
        }  # fmt: skip
        (tmp_path / f"answers-{name}.json").write_text(json.dumps(answers))
    stdout = io.StringIO()
    call_command("recam_validation_answers", out / "key.batch.jsonl", tmp_path / "answers-ann1.json",
                 tmp_path / "answers-ann2.json", export=tmp_path / "export", stdout=stdout)  # fmt: skip
    table = json.loads(stdout.getvalue())["by_source"]
    assert table["generated"]["with_article_accuracy"] == 0.5
    assert table["recam"]["without_article_accuracy"] == 0.0
    assert table["recam"]["multiple_fit_rate"] == 0.5
    assert (tmp_path / "export" / "two_stage.json").is_file()
    (tmp_path / "answers-bad.json").write_text(json.dumps({"99": {"noarticle": 0, "witharticle": 7}}))
    with pytest.raises(CommandError, match=r"answers-bad\.json, item 99: not an item of the batch"):
        call_command("recam_validation_answers", out / "key.batch.jsonl", tmp_path / "answers-bad.json")
