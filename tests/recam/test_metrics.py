import pytest

from recam.metrics import accuracy, score_predictions
from recam.records import read_questions
from recam.submission import parse_submission


def test_accuracy_rejects_length_mismatch():
    with pytest.raises(ValueError, match="2 predictions for 3 references"):
        accuracy(predictions=[1, 2], references=[1, 2, 3])


def test_missing_prediction_counts_as_wrong():
    score = score_predictions(predictions={0: 1}, gold={0: 1, 1: 2})
    assert (score.correct, score.total, score.accuracy) == (1, 2, 0.5)


def test_example_submission_scores_as_an_independent_count(recam_data_dir):
    gold = {q.id: q.label for q in read_questions(recam_data_dir / "training_data" / "Task_1_dev.jsonl")}
    data = (recam_data_dir / "submission_example" / "subtask1.csv").read_bytes()
    parsed = parse_submission(data=data, filename="subtask1.csv", expected_ids={1: set(gold)})
    # An independent count straight from the CSV text.
    expected = 0
    for line in data.decode().splitlines():
        qid, label = line.split(",")
        expected += gold[int(qid)] == int(label)
    score = score_predictions(predictions=parsed.files[0].predictions, gold=gold)
    assert score.correct == expected
    assert score.total == 837
    assert score.accuracy == pytest.approx(expected / 837)
