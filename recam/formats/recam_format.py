"""The ReCAM format's entry in the registry: the functions ReCAM has always used, unchanged.

One test set here (one subtask): its prediction file is ``subtask1.csv`` or ``subtask2.csv`` (bare or
in a zip), parsed by ``recam.submission.parse_submission``; a phase with both subtasks keeps parsing
the whole upload with that function directly.
"""

from collections.abc import Mapping, Sequence

import numpy as np

from recam import stats
from recam.metrics import score_predictions
from recam.records import NUM_OPTIONS, Question, read_questions
from recam.submission import Problem, SubmissionError, format_predictions, parse_submission

__all__ = ["chance", "format_predictions", "parse_predictions", "rank_vector", "read", "score", "vectors"]


def read(path, *, require_answers: bool = False) -> list[Question]:
    return read_questions(path, require_labels=require_answers)


def _gold(records: Sequence[Question]) -> dict[int, int]:
    gold = {}
    for question in records:
        if question.label is None:
            raise ValueError(f"question {question.id} has no label: it cannot be scored")
        gold[question.id] = question.label
    return gold


def parse_predictions(*, data: bytes, filename: str, records: Sequence[Question]) -> dict[int, int]:
    ids = {q.id for q in records}
    parsed = parse_submission(data=data, filename=filename, expected_ids={1: ids, 2: ids})
    if len(parsed.files) != 1:
        names = " and ".join(f.name for f in parsed.files)
        raise SubmissionError([Problem(filename, f"one test set takes one prediction file, not {names}")])
    return dict(parsed.files[0].predictions)


def score(*, predictions: Mapping[int, int], records: Sequence[Question]) -> dict[str, float]:
    return {"accuracy": score_predictions(predictions=predictions, gold=_gold(records)).accuracy}


def chance(*, records: Sequence[Question]) -> dict[str, float]:
    return {"accuracy": 1 / NUM_OPTIONS}


def vectors(*, predictions: Mapping[int, int], records: Sequence[Question]) -> dict[str, np.ndarray]:
    return {"accuracy": stats.correctness(predictions=predictions, gold=_gold(records))}


def rank_vector(*, predictions: Mapping[int, int], records: Sequence[Question]) -> np.ndarray:
    return stats.correctness(predictions=predictions, gold=_gold(records))
