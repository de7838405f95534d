import hashlib
from pathlib import Path

import pytest

from competitions.errors import ApplicationError
from competitions.models import GoldAnswers, Phase, TestSet
from competitions.selectors import gold_labels, gold_path
from competitions.services import competition_load_recam, gold_load_file
from recam.submission import format_predictions
from submissions.models import Submission
from submissions.services import gold_load_and_rescore, submission_create
from tests.platform.factories import TeamFactory


def _jsonl_count(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def test_load_recam_creates_phases_test_sets_and_dev_gold(competition, recam_data_dir):
    kinds = list(competition.phases.order_by("order").values_list("kind", flat=True))
    assert kinds == ["practice", "evaluation", "post-evaluation"]
    practice = competition.phases.get(kind="practice")
    for subtask in (1, 2):
        test_set = practice.test_sets.get(subtask=subtask)
        expected = _jsonl_count(recam_data_dir / f"training_data/Task_{subtask}_dev.jsonl")
        assert test_set.num_questions == expected
        assert test_set.question_ids == list(range(expected))  # dev records are numbered in file order
        assert test_set.gold.num_labels == expected
    evaluation = competition.phases.get(kind="evaluation")
    test1 = evaluation.test_sets.get(subtask=1)
    assert test1.num_questions == _jsonl_count(recam_data_dir / "test_data/Task_1_test.jsonl")
    assert not GoldAnswers.objects.filter(test_set=test1).exists()  # the test file has no labels


def test_load_recam_limits_a_new_evaluation_phase_and_keeps_an_organizers_settings(
    competition, recam_data_dir
):
    phases = {p.kind: p for p in competition.phases.all()}
    evaluation = phases["evaluation"]
    assert (evaluation.max_submissions_per_day, evaluation.max_submissions_total) == (3, 30)
    for kind in ("practice", "post-evaluation"):  # dev labels are public; after the official results
        assert (phases[kind].max_submissions_per_day, phases[kind].max_submissions_total) == (None, None)
        assert phases[kind].ends_at is None
    evaluation.max_submissions_per_day, evaluation.max_submissions_total = 5, None
    evaluation.results_hidden = False
    evaluation.save()
    competition_load_recam(data_dir=recam_data_dir, slug=competition.slug)  # `make run` re-loads it
    evaluation.refresh_from_db()
    assert (evaluation.max_submissions_per_day, evaluation.max_submissions_total) == (5, None)
    assert evaluation.results_hidden is False


def test_load_recam_reports_and_skips_a_missing_file(db, recam_data_dir):
    report = competition_load_recam(data_dir=recam_data_dir, slug="recam-missing")
    missing = [m for m in report.messages if "is missing; skipped" in m]
    present = {p.name for p in (recam_data_dir / "test_data").glob("Task_*_test.jsonl")}
    expected_missing = 2 * sum(f"Task_{n}_test.jsonl" not in present for n in (1, 2))
    assert len(missing) == expected_missing


def test_load_recam_is_idempotent(competition, recam_data_dir):
    before = list(TestSet.objects.order_by("id").values_list("id", "num_questions"))
    gold_before = list(GoldAnswers.objects.order_by("id").values_list("id", "sha256"))
    competition_load_recam(data_dir=recam_data_dir, slug="recam-test")
    assert Phase.objects.filter(competition=competition).count() == 3
    assert list(TestSet.objects.order_by("id").values_list("id", "num_questions")) == before
    assert list(GoldAnswers.objects.order_by("id").values_list("id", "sha256")) == gold_before


def test_gold_is_stored_outside_media_with_its_sha256(practice, settings):
    gold = practice.test_sets.get(subtask=1).gold
    path = gold_path(gold=gold)
    assert Path(settings.GOLD_ROOT) in path.parents
    assert Path(settings.MEDIA_ROOT) not in path.parents
    assert hashlib.sha256(path.read_bytes()).hexdigest() == gold.sha256


def test_tampered_gold_file_is_refused(practice):
    test_set = practice.test_sets.get(subtask=1)
    path = gold_path(gold=test_set.gold)
    path.write_bytes(path.read_bytes().replace(b"0,", b"0 ,", 1))
    with pytest.raises(ValueError, match="differs from the recorded"):
        gold_labels(test_set=test_set)


def test_gold_changed_after_a_read_is_refused_though_the_process_keeps_what_it_read(practice):
    test_set = practice.test_sets.get(subtask=1)
    labels, digest = gold_labels(test_set=test_set)  # read, checked and kept by this process
    assert gold_labels(test_set=test_set) == (labels, digest)
    path = gold_path(gold=test_set.gold)
    first_id, first_label = next(iter(labels.items()))
    changed = path.read_bytes().replace(
        f"{first_id},{first_label}".encode(), f"{first_id},{(first_label + 1) % 5}".encode(), 1
    )
    assert len(changed) == path.stat().st_size  # same size: only the content and the time differ
    path.write_bytes(changed)
    with pytest.raises(ValueError, match="differs from the recorded"):
        gold_labels(test_set=test_set)


def test_gold_csv_with_missing_ids_is_refused(competition, tmp_path):
    evaluation = competition.phases.get(kind="evaluation")
    ids = evaluation.test_sets.get(subtask=1).question_ids
    path = tmp_path / "gold.csv"
    path.write_text(format_predictions({qid: qid % 5 for qid in ids[:-3]}))
    with pytest.raises(ApplicationError, match="3 missing"):
        gold_load_file(phase=evaluation, subtask=1, path=path)


def test_gold_for_a_missing_test_set_is_refused(competition, tmp_path):
    evaluation = competition.phases.get(kind="evaluation")
    if evaluation.test_sets.filter(subtask=2).exists():
        pytest.skip("this data folder has the Subtask 2 test set")
    path = tmp_path / "gold.csv"
    path.write_text("0,1\n")
    with pytest.raises(ApplicationError, match="no Subtask 2 test set"):
        gold_load_file(phase=evaluation, subtask=2, path=path)


def test_loading_gold_scores_waiting_submissions(competition, tmp_path, django_capture_on_commit_callbacks):
    evaluation = competition.phases.get(kind="evaluation")
    ids = evaluation.test_sets.get(subtask=1).question_ids
    predictions = {qid: (qid * 7) % 5 for qid in ids}
    gold = {qid: qid % 5 for qid in ids}
    team = TeamFactory(competition=competition)
    with django_capture_on_commit_callbacks(execute=True):
        submission = submission_create(
            phase=evaluation,
            team=team,
            filename="subtask1.csv",
            data=format_predictions(predictions).encode(),
        )
    submission.refresh_from_db()
    assert submission.status == Submission.Status.WAITING_GOLD
    path = tmp_path / "gold.csv"
    path.write_text(format_predictions(gold))
    with django_capture_on_commit_callbacks(execute=True):
        gold_load_and_rescore(phase=evaluation, subtask=1, path=path)
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORED
    score = submission.scores.get()
    assert score.correct == sum(predictions[q] == gold[q] for q in ids)
    assert score.total == len(ids)
