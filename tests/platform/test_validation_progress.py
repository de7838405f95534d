"""A batch always makes progress: slots of an annotator who is not counted go back to the pool, staff
add annotators, release slots and change the batch's settings from its page, and see why a question
waits. Gold checks come from the batch's own subtask, their text without mojibake."""

import json

import pytest
from django.urls import reverse

from tests.platform.factories import UserFactory
from tests.platform.validation_helpers import jsonl_bytes, make_annotator, make_batch
from validation.assignments import annotation_answer, assignment_get_or_create
from validation.exports import VALIDATED, batch_export_files
from validation.results import batch_results
from validation.selectors import user_is_annotator
from validation.services import BatchSettings, batch_create


def _answer(assignment, annotator, *, gold_right: bool) -> None:
    """Generated items get their label; gold checks the label or (careless) a wrong option."""
    for annotation in assignment.annotations.select_related("item"):
        item = annotation.item
        answer = item.label if gold_right or item.kind == "generated" else (item.label + 1) % 5
        annotation_answer(
            assignment=assignment, annotator=annotator, annotation_id=annotation.pk, answer=answer
        )


def _batch(recam_data_dir, **kwargs):
    values = {"generated": 4, "gold": 10, "annotations_per_question": 2, "questions_per_assignment": 4}
    return make_batch(data_dir=recam_data_dir, gold_rate=0.5, **(values | kwargs))


def test_slots_of_an_annotator_who_is_not_counted_are_reassigned(db, recam_data_dir):
    batch = _batch(recam_data_dir)
    careless, careful, third = make_annotator("careless"), make_annotator("careful"), make_annotator("third")
    _answer(assignment_get_or_create(batch=batch, annotator=careless), careless, gold_right=False)
    _answer(assignment_get_or_create(batch=batch, annotator=careful), careful, gold_right=True)
    results = batch_results(batch=batch)
    assert {a.username: a.counted for a in results.annotators} == {"careless": False, "careful": True}
    assert len(results.pending) == 4
    again = assignment_get_or_create(batch=batch, annotator=third)
    assert again is not None  # the careless annotator's four slots are free again
    assert again.annotations.filter(item__kind="generated").count() == 4
    _answer(again, third, gold_right=True)
    results = batch_results(batch=batch)
    assert results.pending == []
    assert len(results.kept) == 4
    assert batch_export_files(batch=batch)[VALIDATED].count(b"\n") == 4


def test_why_a_question_is_pending_names_open_slots_and_uncounted_answers(db, recam_data_dir):
    batch = _batch(recam_data_dir, generated=2, questions_per_assignment=2)
    careless, holder = make_annotator("careless"), make_annotator("holder")
    _answer(assignment_get_or_create(batch=batch, annotator=careless), careless, gold_right=False)
    assignment_get_or_create(batch=batch, annotator=holder)
    row = batch_results(batch=batch).questions[0]
    assert row.why_pending == "0 of 2 counted annotations; 1 open (held by holder); not counted: careless"
    assert batch_results(batch=batch).free_slots == 2


def test_staff_add_annotators_from_the_batch_page(client, db, recam_data_dir):
    batch = _batch(recam_data_dir)
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    client.force_login(UserFactory(is_staff=True))
    page = client.get(reverse("validation:batch", args=[batch.pk])).content.decode()
    assert "nobody has the annotator role yet" in page
    url = reverse("validation:add_annotators", args=[batch.pk])
    refused = client.post(url, {"usernames": "alice, nobody"})
    assert refused.status_code == 400
    assert "no account named nobody" in refused.content.decode()
    assert not user_is_annotator(user=alice)
    assert client.post(url, {"usernames": "alice, bob"}).status_code == 302
    assert user_is_annotator(user=alice)
    assert user_is_annotator(user=bob)


def test_staff_release_an_annotators_open_slots(client, db, recam_data_dir):
    batch = _batch(recam_data_dir, generated=2, annotations_per_question=1, questions_per_assignment=2)
    holder, other = make_annotator("holder"), make_annotator("other")
    assignment_get_or_create(batch=batch, annotator=holder)
    assert assignment_get_or_create(batch=batch, annotator=other) is None  # every slot is held
    client.force_login(UserFactory(is_staff=True))
    page = client.get(reverse("validation:batch", args=[batch.pk])).content.decode()
    assert "holder: 3 unanswered slots" in page  # 2 generated + 1 gold check
    response = client.post(reverse("validation:release", args=[batch.pk]), {"username": "holder"})
    assert response.status_code == 302
    assert assignment_get_or_create(batch=batch, annotator=other) is not None


def test_staff_change_the_target_count_and_the_gold_minimum(client, db, recam_data_dir):
    batch = _batch(recam_data_dir, generated=2, questions_per_assignment=2)
    careless = make_annotator("careless")
    _answer(assignment_get_or_create(batch=batch, annotator=careless), careless, gold_right=False)
    assert len(batch_results(batch=batch).pending) == 2
    client.force_login(UserFactory(is_staff=True))
    url = reverse("validation:settings", args=[batch.pk])
    refused = client.post(url, {"annotations_per_question": 0, "min_gold_accuracy": 0.4})
    assert refused.status_code == 400
    response = client.post(url, {"annotations_per_question": 1, "min_gold_accuracy": 0})
    assert response.status_code == 302
    batch.refresh_from_db()
    assert (batch.annotations_per_question, batch.min_gold_accuracy) == (1, 0)
    assert len(batch_results(batch=batch).kept) == 2  # the careless answers count now, one is enough


@pytest.mark.parametrize("subtask", [1, 2, "2"])  # datagen writes "2"
def test_gold_checks_come_from_the_batchs_own_subtask(db, recam_data_dir, settings, subtask):
    settings.VALIDATION_GOLD_FILE = ""
    source = recam_data_dir / f"training_data/Task_{int(subtask)}_dev.jsonl"
    records = [
        json.loads(line) | {"subtask": subtask} for line in jsonl_bytes(path=source, count=2).splitlines()
    ]
    data = "".join(json.dumps(r) + "\n" for r in records).encode()
    batch = batch_create(name="", source_name="g.jsonl", data=data, batch_settings=BatchSettings())
    assert batch.gold_source_name.endswith(f"Task_{int(subtask)}_dev.jsonl")


def test_validated_questions_of_earlier_batches_join_the_gold_pool(db, recam_data_dir, settings):
    settings.VALIDATION_GOLD_POOL = 3
    first = _batch(recam_data_dir, generated=2, annotations_per_question=1, questions_per_assignment=2)
    annotator = make_annotator()
    _answer(assignment_get_or_create(batch=first, annotator=annotator), annotator, gold_right=True)
    assert len(batch_results(batch=first).kept) == 2
    second = _batch(recam_data_dir, generated=2)
    gold = list(second.questions.filter(kind="gold").order_by("question_id"))
    assert len(gold) == 5
    assert [g.extra.get("validated_id") for g in gold[-2:]] == [1000, 1001]
    assert len({g.question_id for g in gold}) == 5
    assert second.gold_source_name.endswith("+ 2 validated earlier")


def test_mojibake_is_repaired_at_load(db, recam_data_dir):
    record = json.loads(jsonl_bytes(path=recam_data_dir / "training_data/Task_1_dev.jsonl", count=1))
    record["article"] = "The club paid Â£40m for him."
    record["option_0"] = "donâ€™t"
    batch = batch_create(
        name="",
        source_name="g.jsonl",
        data=(json.dumps(record) + "\n").encode(),
        batch_settings=BatchSettings(gold_rate=0),
    )
    item = batch.questions.get()
    assert item.article == "The club paid £40m for him."
    assert item.options[0] == "don't"
