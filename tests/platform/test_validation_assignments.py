"""Assignments: slots up to the target, gold checks at the rate, resume, timeout, answers, races."""

import datetime as dt
import threading
from collections import Counter

import pytest
from django.db import connection
from django.utils import timezone

from competitions.errors import ApplicationError
from recam.agreement import NONE_FITS
from tests.platform.validation_helpers import make_annotator, make_batch
from validation.assignments import annotation_answer, assignment_get_or_create
from validation.models import Annotation, Assignment


def _kinds(assignment: Assignment) -> Counter:
    return Counter(assignment.annotations.values_list("item__kind", flat=True))


def test_assignment_size_gold_rate_and_no_repeats(db, recam_data_dir):
    batch = make_batch(
        data_dir=recam_data_dir, generated=6, gold=10, questions_per_assignment=4, gold_rate=0.5
    )
    annotator = make_annotator()
    first = assignment_get_or_create(batch=batch, annotator=annotator)
    assert _kinds(first) == {"generated": 4, "gold": 2}
    for annotation in first.annotations.all():
        annotation_answer(assignment=first, annotator=annotator, annotation_id=annotation.pk, answer=0)
    first.refresh_from_db()
    assert first.status == Assignment.Status.DONE
    second = assignment_get_or_create(batch=batch, annotator=annotator)
    assert _kinds(second) == {"generated": 2, "gold": 1}  # 2 generated left; round(2 * 0.5) = 1 gold
    items = list(Annotation.objects.filter(annotator=annotator).values_list("item_id", flat=True))
    assert len(items) == len(set(items)) == 9


def test_slots_stop_at_the_target_count(db, recam_data_dir):
    batch = make_batch(
        data_dir=recam_data_dir,
        generated=3,
        annotations_per_question=2,
        questions_per_assignment=3,
        gold_rate=0,
    )
    got = [assignment_get_or_create(batch=batch, annotator=make_annotator()) for _ in range(3)]
    assert [a is not None for a in got] == [True, True, False]
    per_item = Counter(Annotation.objects.values_list("item_id", flat=True))
    assert sorted(per_item.values()) == [2, 2, 2]


def test_fewest_annotations_first(db, recam_data_dir):
    batch = make_batch(
        data_dir=recam_data_dir,
        generated=4,
        annotations_per_question=2,
        questions_per_assignment=2,
        gold_rate=0,
    )
    a = assignment_get_or_create(batch=batch, annotator=make_annotator())
    b = assignment_get_or_create(batch=batch, annotator=make_annotator())
    ids_a = set(a.annotations.values_list("item__question_id", flat=True))
    ids_b = set(b.annotations.values_list("item__question_id", flat=True))
    assert ids_a.isdisjoint(ids_b)
    assert len(ids_a | ids_b) == 4


def test_an_open_assignment_is_resumed(db, recam_data_dir):
    batch = make_batch(data_dir=recam_data_dir, generated=5, questions_per_assignment=2)
    annotator = make_annotator()
    first = assignment_get_or_create(batch=batch, annotator=annotator)
    assert assignment_get_or_create(batch=batch, annotator=annotator).pk == first.pk


def test_a_dropped_assignment_returns_to_the_pool_after_the_timeout(db, recam_data_dir, settings):
    settings.VALIDATION_ASSIGNMENT_TIMEOUT_MINUTES = 30
    batch = make_batch(
        data_dir=recam_data_dir,
        generated=2,
        annotations_per_question=1,
        questions_per_assignment=2,
        gold_rate=0,
    )
    t0 = timezone.now()
    slow, other = make_annotator(), make_annotator()
    dropped = assignment_get_or_create(batch=batch, annotator=slow, now=t0)
    answered = dropped.annotations.first()
    annotation_answer(assignment=dropped, annotator=slow, annotation_id=answered.pk, answer=1, now=t0)
    released = dropped.annotations.exclude(pk=answered.pk).get().pk
    assert assignment_get_or_create(batch=batch, annotator=other, now=t0 + dt.timedelta(minutes=29)) is None
    taken = assignment_get_or_create(batch=batch, annotator=other, now=t0 + dt.timedelta(minutes=31))
    assert taken is not None
    assert taken.annotations.count() == 1
    dropped.refresh_from_db()
    assert dropped.status == Assignment.Status.EXPIRED
    assert Annotation.objects.get(pk=answered.pk).answer == 1  # answers already given are kept
    with pytest.raises(ApplicationError, match="expired"):
        annotation_answer(assignment=dropped, annotator=slow, annotation_id=released, answer=0)


def test_answers_are_checked_and_recorded_once_with_the_time_spent(db, recam_data_dir):
    batch = make_batch(
        data_dir=recam_data_dir, generated=2, questions_per_assignment=2, gold_rate=0, allow_none=False
    )
    annotator = make_annotator()
    assignment = assignment_get_or_create(batch=batch, annotator=annotator)
    annotation = assignment.annotations.first()
    t0 = timezone.now()
    Annotation.objects.filter(pk=annotation.pk).update(shown_at=t0)
    with pytest.raises(ApplicationError, match="choose one of the options"):
        annotation_answer(
            assignment=assignment, annotator=annotator, annotation_id=annotation.pk, answer=NONE_FITS
        )
    with pytest.raises(ApplicationError, match="choose one of the options"):
        annotation_answer(assignment=assignment, annotator=annotator, annotation_id=annotation.pk, answer=5)
    done = annotation_answer(
        assignment=assignment, annotator=annotator, annotation_id=annotation.pk, answer=3,
        now=t0 + dt.timedelta(seconds=12.5),
    )  # fmt: skip
    assert (done.answer, done.seconds) == (3, 12.5)
    with pytest.raises(ApplicationError, match="already answered"):
        annotation_answer(assignment=assignment, annotator=annotator, annotation_id=annotation.pk, answer=2)
    with pytest.raises(ApplicationError, match="not part of your assignment"):  # someone else's item
        annotation_answer(
            assignment=assignment, annotator=make_annotator(), annotation_id=annotation.pk, answer=2
        )


@pytest.mark.django_db(transaction=True)
def test_simultaneous_requests_never_exceed_the_target(recam_data_dir):
    """Real threads, each with its own connection (PostgreSQL: row lock; SQLite: write lock)."""
    batch = make_batch(
        data_dir=recam_data_dir,
        generated=5,
        annotations_per_question=3,
        questions_per_assignment=3,
        gold_rate=0,
    )
    annotators = [make_annotator() for _ in range(8)]
    barrier = threading.Barrier(len(annotators))
    outcomes: list[object] = []
    lock = threading.Lock()

    def request(user) -> None:
        try:
            barrier.wait()
            result = assignment_get_or_create(batch=batch, annotator=user)
            outcome = result.annotations.count() if result else None
        except Exception as exc:  # any error is a failure of the test, reported below
            outcome = f"error: {exc!r}"
        finally:
            connection.close()
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=request, args=(user,)) for user in annotators]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes, key=str) == sorted([3] * 5 + [None] * 3, key=str), outcomes
    per_item = Counter(Annotation.objects.values_list("item_id", flat=True))
    assert sorted(per_item.values()) == [3] * 5  # 15 slots, exactly the target for each question
    pairs = list(Annotation.objects.values_list("item_id", "annotator_id"))
    assert len(pairs) == len(set(pairs))
