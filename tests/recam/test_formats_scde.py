"""The SCDE format: the cleaning rules as validation errors, BA / PA / DE, and the chance row."""

import itertools
import json
import math

import numpy as np
import pytest

from recam.formats import scde
from recam.formats.scde import ScdePassage, read_scde, write_scde

GOOD = {
    "id": 0,
    "passage": ["Bees make honey.", "<1>", "They live in hives.", "<2>"],
    "candidates": ["They visit flowers.", "Cars need fuel.", "Honey keeps for years."],
    "answers": [0, 2],
}


def write_lines(tmp_path, *records) -> str:
    path = tmp_path / "scde.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def error(tmp_path, *records) -> str:
    with pytest.raises(ValueError, match=r"scde\.jsonl:\d+: ") as info:
        read_scde(write_lines(tmp_path, *records))
    return str(info.value)


def test_a_valid_passage_reads_with_its_distractors(tmp_path):
    [passage] = read_scde(write_lines(tmp_path, GOOD))
    assert passage.blanks == 2
    assert passage.distractors == (1,)
    assert passage.filled() == (
        "Bees make honey.",
        "They visit flowers.",
        "They live in hives.",
        "Honey keeps for years.",
    )


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"answers": [0, 3]}, "answers[1]: 3 points to no candidate (blank 2; candidates are 0-2)"),
        ({"answers": [0]}, "answers: must hold one answer per blank (2), got 1"),
        ({"candidates": ["They visit flowers.", "", "Honey."]}, "candidates[1]: missing or empty candidate"),
        ({"candidates": ["Only one."], "answers": None}, "passage: 2 blanks but only 1 candidates"),
        ({"answers": [2, 2]}, "answers: candidate 2 answers more than one blank"),
        (
            {"passage": ["A.", "<2>", "B.", "<1>"]},
            "blanks must be <1>..<2> once each, in order; found <2>, <1>",
        ),
        ({"passage": ["No blank here."]}, "passage: has no blank"),
    ],
)
def test_each_cleaning_rule_is_an_error_naming_line_and_field(tmp_path, change, expected):
    record = {k: v for k, v in {**GOOD, **change}.items() if v is not None}
    message = error(tmp_path, {**GOOD, "id": 7, "passage": ["Other.", "<1>", "<2>"]}, record | {"id": 8})
    assert "scde.jsonl:2: " in message
    assert expected in message


def test_a_duplicate_passage_is_refused_whatever_its_spacing(tmp_path):
    again = {**GOOD, "id": 1, "passage": ["Bees  make honey.", "<1>", "they live in hives.", "<2>"]}
    assert "scde.jsonl:2: duplicate passage (the same text as line 1)" in error(tmp_path, GOOD, again)


def test_write_then_read_round_trips(tmp_path):
    passages = read_scde(write_lines(tmp_path, GOOD))
    write_scde(tmp_path / "out.jsonl", passages)
    assert read_scde(tmp_path / "out.jsonl") == passages


def test_ba_averages_over_passages_pa_needs_every_blank_de_counts_distractors():
    # passage 0 (answers 0,1,2 of 5 candidates): 2 of 3 right, and the wrong pick 4 is a distractor
    # passage 1 (answers 1,0): both right
    result = scde.accuracy(predictions=[[0, 1, 4], [1, 0]], references=[[0, 1, 2], [1, 0]])
    assert result == {
        "blank_accuracy": pytest.approx((2 / 3 + 1) / 2),
        "passage_accuracy": 0.5,
        "distractor_error": 0.5,
    }


def test_a_wrong_pick_that_answers_another_blank_is_no_distractor_error():
    result = scde.accuracy(predictions=[[1, 0]], references=[[0, 1]])
    assert result == {"blank_accuracy": 0.0, "passage_accuracy": 0.0, "distractor_error": 0.0}


def passage(blanks: int, candidates: int, answers=None) -> ScdePassage:
    sentences = tuple(f"<{k}>" for k in range(1, blanks + 1))
    return ScdePassage(
        id=0, sentences=sentences, candidates=tuple(f"c{i}" for i in range(candidates)), answers=answers
    )


@pytest.mark.parametrize(("blanks", "candidates"), [(2, 3), (3, 5), (4, 4)])
def test_chance_is_the_mean_over_every_assignment(blanks, candidates):
    """The closed forms equal the exact average over all |C|!/(|C|-|B|)! assignments of distinct candidates."""
    answers = tuple(range(blanks))
    found = np.array(
        [list(scde.accuracy(predictions=[list(p)], references=[answers]).values())
         for p in itertools.permutations(range(candidates), blanks)]
    )  # fmt: skip
    expected = dict(
        zip(["blank_accuracy", "passage_accuracy", "distractor_error"], found.mean(axis=0), strict=True)
    )
    assert scde.chance(passages=[passage(blanks, candidates)]) == pytest.approx(expected)
    assert expected["passage_accuracy"] == pytest.approx(
        math.factorial(candidates - blanks) / math.factorial(candidates)
    )


def test_chance_of_the_papers_typical_passage():
    """|C| = 7, |B| = 5: 2520 assignments, and 1.429 expected distractors (the SCDE paper, Table 9)."""
    row = scde.chance(passages=[passage(5, 7)])
    assert row["passage_accuracy"] == pytest.approx(1 / 2520)
    assert row["distractor_error"] == pytest.approx(1.429, abs=1e-3)
    assert row["blank_accuracy"] == pytest.approx(1 / 7)


def test_vector_means_are_the_scores_and_the_rank_vector_is_per_blank():
    passages = [
        ScdePassage(id=4, sentences=("<1>", "x", "<2>"), candidates=("a", "b", "c"), answers=(0, 1)),
        ScdePassage(id=9, sentences=("<1>",), candidates=("a", "b"), answers=(1,)),
    ]
    predictions = {(4, 1): 0, (4, 2): 2, (9, 1): 1}
    scores = scde.score_predictions(predictions=predictions, passages=passages)
    vectors = scde.vectors(predictions=predictions, passages=passages)
    assert {k: float(v.mean()) for k, v in vectors.items()} == pytest.approx(scores)
    assert vectors["blank_accuracy"].tolist() == [0.5, 1.0]
    assert scde.rank_vector(predictions=predictions, passages=passages).tolist() == [1, 0, 1]
