"""The one scorer: the leaderboard, the workers and the baselines all call these functions."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Bump when the scoring rule changes; every stored score carries the version that produced it.
SCORER_VERSION = "recam-accuracy-1.0"


def accuracy(*, predictions: Sequence[int], references: Sequence[int]) -> dict[str, float]:
    """Fraction of predictions equal to their reference (shaped like Hugging Face evaluate's accuracy).

    >>> accuracy(predictions=[0, 2, 4, 1], references=[0, 2, 3, 1])
    {'accuracy': 0.75}
    >>> accuracy(predictions=[], references=[])
    {'accuracy': 0.0}
    """
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions for {len(references)} references")
    if not references:
        return {"accuracy": 0.0}
    correct = sum(int(p) == int(r) for p, r in zip(predictions, references, strict=True))
    return {"accuracy": correct / len(references)}


@dataclass(frozen=True)
class Score:
    correct: int
    total: int
    accuracy: float


def score_predictions(*, predictions: Mapping[int, int], gold: Mapping[int, int]) -> Score:
    """Score id -> label predictions against id -> label gold answers.

    Every gold id counts; an id with no prediction counts as wrong (the upload parser rejects such
    files before they reach here, so this is a guard, not a policy). Extra ids are ignored.

    >>> score_predictions(predictions={0: 1, 1: 2, 2: 0}, gold={0: 1, 1: 3, 2: 0})
    Score(correct=2, total=3, accuracy=0.6666666666666666)
    """
    ids = sorted(gold)
    result = accuracy(predictions=[predictions.get(i, -1) for i in ids], references=[gold[i] for i in ids])
    correct = round(result["accuracy"] * len(ids))
    return Score(correct=correct, total=len(ids), accuracy=result["accuracy"])
