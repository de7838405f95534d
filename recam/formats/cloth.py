"""The CLOTH format: a passage with several word blanks, each with its own 4 options.

A record (one jsonl line) is ``{"id"?, "article", "options", "answers"?}``: the article marks each
blank with a standalone ``_`` (CLOTH's own marker), ``options`` holds one list of exactly 4 non-empty
options per blank in reading order, ``answers`` the index 0-3 of each blank's right option. Files
without ``id`` number their passages 0, 1, 2, ... in file order. The score is the accuracy over
blanks (CLOTH's); choosing uniformly at random scores 1/4.
"""

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from recam.formats.blanks import BlankKey, Slots, blank_correctness, passage_answers, score_nested
from recam.records import iter_jsonl

NUM_OPTIONS = 4
BLANK = re.compile(r"(?<!\w)_(?!\w)")  # a lone underscore; "__" or "snake_case" is not a blank


@dataclass(frozen=True)
class ClothPassage:
    id: int
    article: str
    options: tuple[tuple[str, ...], ...]  # per blank, in reading order: 4 options
    answers: tuple[int, ...] | None = None  # per blank: the right option's index 0-3

    @property
    def blanks(self) -> int:
        return len(self.options)

    def filled(self, choices: Sequence[int] | None = None) -> str:
        """The article with every blank filled by the chosen options (the right ones by default)."""
        picks = self.answers if choices is None else choices
        if picks is None:
            raise ValueError(f"passage {self.id} has no answers to fill in")
        words = iter(opts[k] for opts, k in zip(self.options, picks, strict=True))
        return BLANK.sub(lambda _match: next(words), self.article)

    def to_json(self) -> dict:
        record: dict = {"id": self.id, "article": self.article, "options": [list(o) for o in self.options]}
        if self.answers is not None:
            record["answers"] = list(self.answers)
        return record


def cloth_from_json(record: object, *, default_id: int, where: str) -> ClothPassage:
    """Build a ClothPassage from one decoded json object; ``where`` names the file and line for errors."""
    if not isinstance(record, dict):
        raise ValueError(f"{where}: expected a JSON object, got {type(record).__name__}")
    missing = [k for k in ("article", "options") if k not in record]
    if missing:
        raise ValueError(f"{where}: missing field(s) {', '.join(missing)}")
    article = record["article"]
    if not isinstance(article, str) or not article.strip():
        raise ValueError(f"{where}: field 'article' must be a non-empty string")
    options = _options(record["options"], where)
    blanks = len(BLANK.findall(article))
    if blanks != len(options):
        raise ValueError(
            f"{where}: the article has {blanks} blank(s) ('_') but 'options' has {len(options)} option list(s)"
        )
    pid = record.get("id", default_id)
    if isinstance(pid, bool) or not isinstance(pid, int) or pid < 0:
        raise ValueError(f"{where}: 'id' must be a non-negative integer, got {pid!r}")
    answers = record.get("answers")
    if answers is not None:
        answers = _answers(answers, len(options), where)
    return ClothPassage(id=pid, article=article, options=options, answers=answers)


def _options(value: object, where: str) -> tuple[tuple[str, ...], ...]:
    if not isinstance(value, list) or not value:
        raise ValueError(f"{where}: field 'options' must be a non-empty list with one option list per blank")
    result = []
    for i, opts in enumerate(value):
        if not isinstance(opts, list) or len(opts) != NUM_OPTIONS:
            got = len(opts) if isinstance(opts, list) else type(opts).__name__
            raise ValueError(
                f"{where}: options[{i}] (blank {i + 1}) must hold exactly {NUM_OPTIONS} options, got {got}"
            )
        for k, option in enumerate(opts):
            if not isinstance(option, str) or not option.strip():
                raise ValueError(f"{where}: options[{i}][{k}] (blank {i + 1}) must be a non-empty string")
        result.append(tuple(opts))
    return tuple(result)


def _answers(value: object, blanks: int, where: str) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) != blanks:
        got = len(value) if isinstance(value, list) else type(value).__name__
        raise ValueError(f"{where}: 'answers' must hold one answer per blank ({blanks}), got {got}")
    for i, answer in enumerate(value):
        if isinstance(answer, bool) or answer not in range(NUM_OPTIONS):
            raise ValueError(f"{where}: answers[{i}] (blank {i + 1}) must be an integer 0-3, got {answer!r}")
    return tuple(value)


def read_cloth(path: str | Path, *, require_answers: bool = False) -> list[ClothPassage]:
    """Read a CLOTH-format jsonl file; raise ValueError naming ``file:line`` on the first bad record."""
    path = Path(path)
    passages: list[ClothPassage] = []
    seen: set[int] = set()
    with path.open(encoding="utf-8-sig", newline=None) as handle:
        for index, (where, record) in enumerate(iter_jsonl(handle, source=str(path))):
            passage = cloth_from_json(record, default_id=index, where=where)
            if passage.id in seen:
                raise ValueError(f"{where}: duplicate id {passage.id}")
            if require_answers and passage.answers is None:
                raise ValueError(f"{where}: passage {passage.id} has no 'answers'")
            seen.add(passage.id)
            passages.append(passage)
    return passages


def write_cloth(path: str | Path, passages: Iterable[ClothPassage]) -> None:
    with Path(path).open("w", encoding="utf-8", newline="\n") as handle:
        for passage in passages:
            handle.write(json.dumps(passage.to_json(), ensure_ascii=False) + "\n")


def accuracy(
    *, predictions: Sequence[Sequence[int]], references: Sequence[Sequence[int]]
) -> dict[str, float]:
    """Accuracy over all blanks of all passages (CLOTH's metric); one list of labels per passage.

    >>> accuracy(predictions=[[0, 1, 2], [3]], references=[[0, 1, 3], [3]])
    {'accuracy': 0.75}
    >>> accuracy(predictions=[], references=[])
    {'accuracy': 0.0}
    """
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predicted passages for {len(references)} references")
    correct = total = 0
    for i, (pred, ref) in enumerate(zip(predictions, references, strict=True)):
        if len(pred) != len(ref):
            raise ValueError(f"passage {i}: {len(pred)} predictions for {len(ref)} blanks")
        correct += sum(int(p) == int(r) for p, r in zip(pred, ref, strict=True))
        total += len(ref)
    return {"accuracy": correct / total if total else 0.0}


def gold(passages: Iterable[ClothPassage]) -> dict[int, tuple[int, ...]]:
    """Passage id -> right answers; every passage must have answers."""
    return passage_answers(passages)


def score_predictions(
    *, predictions: Mapping[BlankKey, int], passages: Sequence[ClothPassage]
) -> dict[str, float]:
    """Score (id, blank) -> label predictions; a blank without one counts as wrong."""
    return score_nested(accuracy, predictions=predictions, passages=passages)


def chance(*, passages: Sequence[ClothPassage]) -> dict[str, float]:
    """The score of choosing uniformly at random: 1/4 of the blanks."""
    return {"accuracy": 1 / NUM_OPTIONS}


def vectors(
    *, predictions: Mapping[BlankKey, int], passages: Sequence[ClothPassage]
) -> dict[str, np.ndarray]:
    """Per-blank 0/1 correctness (its mean is the accuracy): the items of intervals and tied ranks."""
    return {"accuracy": blank_correctness(predictions=predictions, gold=gold(passages))}


def slots(passages: Iterable[ClothPassage]) -> dict[int, Slots]:
    return {p.id: Slots(blanks=p.blanks, choices=NUM_OPTIONS) for p in passages}
