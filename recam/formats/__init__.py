"""Task formats: what a competition's test set looks like, how predictions are written and scored.

``FORMATS`` maps a format's name to its pieces; ``recam`` (one blank, 5 options, the default) keeps the
functions it has always used (``recam.records``, ``recam.submission``, ``recam.metrics``), ``cloth`` and
``scde`` are the multi-blank formats of ``recam.formats.cloth`` and ``recam.formats.scde``.

Every format gives, with keyword arguments only:

- ``read(path, require_answers=False)`` -> records (ValueError naming ``file:line`` on bad input);
- ``parse_predictions(data=, filename=, records=)`` -> predictions (SubmissionError listing problems);
- ``score(predictions=, records=)`` -> ``{metric: value}``, the first metric being the headline;
- ``chance(records=)`` -> the expected scores of uniform random answers (the board's chance row);
- ``vectors(predictions=, records=)`` -> ``{metric: per-item values}`` whose means are the scores
  (the items the bootstrap intervals resample), and ``rank_vector`` -> the paired 0/1 items of the
  tied ranks' exact McNemar test (``recam.stats``);
- ``format_predictions(predictions)`` -> the prediction file's text;
- ``load_official(path)`` -> the published files as records (None for ReCAM, whose files are read as is);
- ``scorer_version``: stored with every score, as ``recam.metrics.SCORER_VERSION`` is for ReCAM;
- ``slots(records)`` -> ``{passage id: Slots}`` for the multi-blank formats, whose prediction file is
  one (``recam.formats.blanks``): what an upload is checked against without the gold answers, and
  ``chance_of_slots(slots)`` -> the chance row from those slots alone (the board's chance row);
- ``interval_items(correct=, blanks=)`` -> the headline metric's bootstrap items from the stored 0/1
  ``rank_vector`` and each passage's number of blanks (id order): the vector itself where the headline
  is a mean over blanks or questions (ReCAM, CLOTH), each passage's mean for SCDE's blank accuracy.
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from recam.formats import cloth, official, recam_format, scde
from recam.formats.blanks import format_blank_predictions, parse_blank_predictions, per_passage_means
from recam.metrics import SCORER_VERSION


def per_item(*, correct, blanks) -> np.ndarray:
    """The stored 0/1 vector itself: the bootstrap items of a mean over blanks (CLOTH) or questions (ReCAM)."""
    return np.asarray(correct, dtype=np.float64)


@dataclass(frozen=True)
class Metric:
    key: str
    label: str  # the board's column heading
    description: str
    higher_is_better: bool = True


@dataclass(frozen=True)
class TaskFormat:
    name: str
    title: str
    metrics: tuple[Metric, ...]  # the first is the headline the board ranks by
    read: Callable
    parse_predictions: Callable
    score: Callable
    chance: Callable
    vectors: Callable
    rank_vector: Callable
    format_predictions: Callable
    scorer_version: str  # stored with every score; bump when the scoring rule changes
    load_official: Callable | None = None
    slots: Callable | None = None  # records -> {passage id: Slots}: what uploads are checked against
    chance_of_slots: Callable | None = None  # {passage id: Slots} -> the chance row, without the answers
    interval_items: Callable = per_item  # (correct=, blanks=) -> the headline's bootstrap items
    interval_over: str = "questions"  # what those items are, in words (the board says it)


def _blank_parser(slots: Callable) -> Callable:
    def parse(*, data: bytes, filename: str, records) -> dict:
        return parse_blank_predictions(data=data, filename=filename, expected=slots(records))

    return parse


def _scores(module) -> Callable:
    def score(*, predictions, records) -> dict[str, float]:
        return module.score_predictions(predictions=predictions, passages=records)

    return score


def _chance(module) -> Callable:
    def chance(*, records) -> dict[str, float]:
        return module.chance(passages=records)

    return chance


def _vectors(function: Callable) -> Callable:
    def vectors(*, predictions, records):
        return function(predictions=predictions, passages=records)

    return vectors


ACCURACY = Metric("accuracy", "Acc", "the fraction of blanks answered right")
RECAM = TaskFormat(
    name="recam",
    title="ReCAM (one blank, 5 options)",
    metrics=(Metric("accuracy", "Acc", "the fraction of questions answered right"),),
    read=recam_format.read,
    parse_predictions=recam_format.parse_predictions,
    score=recam_format.score,
    chance=recam_format.chance,
    vectors=recam_format.vectors,
    rank_vector=recam_format.rank_vector,
    format_predictions=recam_format.format_predictions,
    scorer_version=SCORER_VERSION,
)
CLOTH = TaskFormat(
    name="cloth",
    title="CLOTH (multi-blank passage, 4 options per blank)",
    metrics=(ACCURACY,),
    read=cloth.read_cloth,
    parse_predictions=_blank_parser(cloth.slots),
    score=_scores(cloth),
    chance=_chance(cloth),
    vectors=_vectors(cloth.vectors),
    rank_vector=_vectors(lambda **kw: cloth.vectors(**kw)["accuracy"]),
    format_predictions=format_blank_predictions,
    scorer_version="cloth-accuracy-1.0",
    load_official=official.load_cloth_official,
    slots=cloth.slots,
    chance_of_slots=lambda slots: cloth.chance(passages=[]),
    interval_over="blanks",
)
SCDE = TaskFormat(
    name="scde",
    title="SCDE (multi-blank passage, shared candidate sentences)",
    metrics=(
        Metric(
            "blank_accuracy",
            "BA",
            "the fraction of a passage's blanks answered right, averaged over passages",
        ),
        Metric("passage_accuracy", "PA", "the fraction of passages with every blank answered right"),
        Metric(
            "distractor_error",
            "DE",
            "the number of a passage's predicted answers that are distractors, averaged over passages",
            higher_is_better=False,
        ),
    ),
    read=scde.read_scde,
    parse_predictions=_blank_parser(scde.slots),
    score=_scores(scde),
    chance=_chance(scde),
    vectors=_vectors(scde.vectors),
    rank_vector=_vectors(scde.rank_vector),
    format_predictions=format_blank_predictions,
    scorer_version="scde-ba-pa-de-1.0",
    load_official=official.load_scde_official,
    slots=scde.slots,
    chance_of_slots=lambda slots: scde.chance_of_sizes([(s.blanks, s.choices) for s in slots.values()]),
    interval_items=per_passage_means,
    interval_over="passages",
)
FORMATS: dict[str, TaskFormat] = {f.name: f for f in (RECAM, CLOTH, SCDE)}
DEFAULT_FORMAT = "recam"


def get_format(name: str) -> TaskFormat:
    """The format called ``name``; ValueError naming the known ones otherwise."""
    try:
        return FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown task format {name!r}: choose from {', '.join(FORMATS)}") from None
