"""The registry: every format's pieces fit together, and ReCAM's entry keeps ReCAM's behaviour."""

from pathlib import Path

import numpy as np
import pytest

from recam import stats
from recam.formats import DEFAULT_FORMAT, FORMATS, get_format
from recam.formats.official import load_cloth_official, load_scde_official
from recam.metrics import score_predictions
from recam.records import Question, write_questions
from recam.submission import SubmissionError

FIXTURES = Path(__file__).parent / "fixtures"


def recam_records(tmp_path) -> list[Question]:
    questions = [
        Question(
            id=i, article="An article.", question="It was @placeholder .", options=tuple("abcde"), label=i % 5
        )
        for i in range(6)
    ]
    write_questions(tmp_path / "test.jsonl", questions)
    return get_format("recam").read(tmp_path / "test.jsonl", require_answers=True)


def test_the_default_is_recam_and_unknown_names_are_refused():
    assert DEFAULT_FORMAT == "recam"
    assert list(FORMATS) == ["recam", "cloth", "scde"]
    with pytest.raises(ValueError, match="unknown task format 'race': choose from recam, cloth, scde"):
        get_format("race")


def test_recam_entry_scores_as_the_recam_scorer(tmp_path):
    fmt = get_format("recam")
    records = recam_records(tmp_path)
    data = b"0,0\n1,1\n2,0\n3,3\n4,0\n5,0\n"
    predictions = fmt.parse_predictions(data=data, filename="subtask1.csv", records=records)
    gold = {q.id: q.label for q in records}
    assert fmt.score(predictions=predictions, records=records) == {
        "accuracy": score_predictions(predictions=predictions, gold=gold).accuracy
    }
    assert (
        fmt.rank_vector(predictions=predictions, records=records).tolist()
        == stats.correctness(predictions=predictions, gold=gold).tolist()
    )
    assert fmt.chance(records=records) == {"accuracy": 0.2}
    with pytest.raises(SubmissionError, match="label 5 is out of range"):
        fmt.parse_predictions(data=b"0,5\n", filename="subtask1.csv", records=records)


def official(name):
    if name == "cloth":
        return list(load_cloth_official(FIXTURES / "cloth_official").passages)
    return list(load_scde_official(FIXTURES / "scde_official" / "dev.json").passages)


@pytest.mark.parametrize("name", ["cloth", "scde"])
def test_gold_answers_written_as_a_prediction_file_score_perfectly(name):
    fmt = get_format(name)
    records = official(name)
    gold = {(p.id, b + 1): a for p in records for b, a in enumerate(p.answers)}
    data = fmt.format_predictions(gold).encode()
    predictions = fmt.parse_predictions(data=data, filename="predictions.csv", records=records)
    scores = fmt.score(predictions=predictions, records=records)
    headline = fmt.metrics[0].key
    assert scores[headline] == 1.0
    assert set(scores) == {m.key for m in fmt.metrics}
    assert set(fmt.chance(records=records)) == set(scores)
    vectors = fmt.vectors(predictions=predictions, records=records)
    assert {k: float(np.mean(v)) for k, v in vectors.items()} == pytest.approx(scores)
    assert fmt.rank_vector(predictions=predictions, records=records).tolist() == [1] * len(gold)


@pytest.mark.parametrize("name", ["cloth", "scde"])
def test_rank_vectors_feed_the_tied_ranks(name):
    """Two systems' per-blank vectors are paired items of the McNemar ranks, as ReCAM's questions are."""
    fmt = get_format(name)
    records = official(name)
    gold = {(p.id, b + 1): a for p in records for b, a in enumerate(p.answers)}
    wrong = {key: (label + 1) % 4 for key, label in gold.items()}
    matrix = np.vstack([fmt.rank_vector(predictions=p, records=records) for p in (gold, wrong)])
    ranking = stats.rank_entries(matrix=matrix)
    assert ranking.ranks[0] == 1
    interval = stats.accuracy_interval(
        correct=fmt.vectors(predictions=wrong, records=records)[fmt.metrics[0].key]
    )
    assert interval.estimate == fmt.score(predictions=wrong, records=records)[fmt.metrics[0].key]
