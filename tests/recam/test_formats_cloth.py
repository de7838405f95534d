"""The CLOTH format: record validation (file, line, field), jsonl round trip, the scorer and chance."""

import json

import numpy as np
import pytest

from recam.formats import cloth
from recam.formats.cloth import ClothPassage, read_cloth, write_cloth

OPTS = [["went", "swam", "ran", "sat"], ["red", "big", "old", "new"]]
GOOD = {"id": 3, "article": "He _ home in the _ car .", "options": OPTS, "answers": [0, 3]}


def write_lines(tmp_path, *records) -> str:
    path = tmp_path / "cloth.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def error(tmp_path, *records) -> str:
    with pytest.raises(ValueError, match=r"cloth\.jsonl:\d+: ") as info:
        read_cloth(write_lines(tmp_path, *records))
    return str(info.value)


def test_a_valid_passage_reads_and_fills_its_blanks(tmp_path):
    [passage] = read_cloth(write_lines(tmp_path, GOOD))
    assert passage == ClothPassage(
        id=3, article=GOOD["article"], options=tuple(map(tuple, OPTS)), answers=(0, 3)
    )
    assert passage.blanks == 2
    assert passage.filled() == "He went home in the new car ."
    assert passage.filled([1, 0]) == "He swam home in the red car ."


def test_a_blank_with_three_options_is_refused_naming_line_and_blank(tmp_path):
    bad = {**GOOD, "options": [OPTS[0], ["red", "big", "old"]]}
    message = error(tmp_path, GOOD | {"id": 0}, bad)
    assert message.endswith("cloth.jsonl:2: options[1] (blank 2) must hold exactly 4 options, got 3")


def test_blanks_and_option_lists_must_agree(tmp_path):
    message = error(tmp_path, {**GOOD, "article": "He _ home in the car ."})
    assert "the article has 1 blank(s) ('_') but 'options' has 2 option list(s)" in message


def test_underscores_inside_words_are_not_blanks(tmp_path):
    record = {**GOOD, "article": "snake_case and __init__ stay ; He _ home in the _ car ."}
    [passage] = read_cloth(write_lines(tmp_path, record))
    assert passage.filled() == "snake_case and __init__ stay ; He went home in the new car ."


@pytest.mark.parametrize(
    ("answers", "expected"),
    [
        ([0, 4], "answers[1] (blank 2) must be an integer 0-3, got 4"),
        ([0], "one answer per blank (2), got 1"),
    ],
)
def test_bad_answers_are_named(tmp_path, answers, expected):
    assert expected in error(tmp_path, {**GOOD, "answers": answers})


def test_an_empty_option_is_named(tmp_path):
    bad = {**GOOD, "options": [OPTS[0], ["red", " ", "old", "new"]]}
    assert "options[1][1] (blank 2) must be a non-empty string" in error(tmp_path, bad)


def test_duplicate_ids_and_missing_answers(tmp_path):
    assert "cloth.jsonl:2: duplicate id 3" in error(tmp_path, GOOD, GOOD)
    unanswered = {k: v for k, v in GOOD.items() if k != "answers"}
    assert read_cloth(write_lines(tmp_path, unanswered))[0].answers is None
    with pytest.raises(ValueError, match=r"cloth\.jsonl:1: passage 3 has no 'answers'"):
        read_cloth(write_lines(tmp_path, unanswered), require_answers=True)


def test_write_then_read_round_trips(tmp_path):
    passages = read_cloth(write_lines(tmp_path, GOOD, {**GOOD, "id": 9, "answers": [2, 2]}))
    out = tmp_path / "out.jsonl"
    write_cloth(out, passages)
    assert read_cloth(out) == passages


def test_accuracy_is_over_blanks_not_passages():
    # passage 0: 1 of 3 right; passage 1: 1 of 1 right -> 2/4 blanks (the passage mean would be 2/3)
    assert cloth.accuracy(predictions=[[0, 0, 0], [2]], references=[[0, 1, 2], [2]]) == {"accuracy": 0.5}
    with pytest.raises(ValueError, match="passage 1: 2 predictions for 1 blanks"):
        cloth.accuracy(predictions=[[0, 1, 2], [2, 2]], references=[[0, 1, 2], [2]])


def test_scoring_a_prediction_mapping_counts_a_missing_blank_wrong():
    passages = [ClothPassage(id=5, article=GOOD["article"], options=tuple(map(tuple, OPTS)), answers=(0, 3))]
    assert cloth.score_predictions(predictions={(5, 1): 0}, passages=passages) == {"accuracy": 0.5}
    vector = cloth.vectors(predictions={(5, 1): 0}, passages=passages)["accuracy"]
    assert vector.tolist() == [1, 0]
    assert cloth.chance(passages=passages) == {"accuracy": 0.25}


def test_random_guessing_scores_near_chance():
    rng = np.random.default_rng(0)
    references = rng.integers(0, 4, size=(500, 20)).tolist()
    guesses = rng.integers(0, 4, size=(500, 20)).tolist()
    assert cloth.accuracy(predictions=guesses, references=references)["accuracy"] == pytest.approx(
        0.25, abs=0.01
    )
