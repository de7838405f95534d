"""The SCDE format: a passage with several sentence blanks sharing one set of candidate sentences.

A record (one jsonl line) is ``{"id"?, "passage", "candidates", "answers"?}``: ``passage`` is the list
of the passage's sentences in which blank k is the element ``"<k>"`` (SCDE's own layout; blanks
numbered 1, 2, ... in reading order), ``candidates`` the shared candidate sentences (the answers plus
distractors that fit no blank), ``answers`` the candidate index of each blank's right sentence.

The validator applies SCDE's cleaning rules (the paper, section 3.2): answers must point to an existing
candidate, no candidate may be missing or empty, a passage may not have more blanks than candidates,
and every blank needs an answer; besides, no candidate answers two blanks and no passage occurs twice
in a file (the paper removes duplicate passages first).

Scores (the paper, section 5.2 and Table 9): blank accuracy BA (the fraction of a passage's blanks
answered right, averaged over passages), passage accuracy PA (1 iff every blank of the passage is
right, averaged) and distractor error DE (the number of a passage's predicted answers that are
distractors, averaged; lower is better).
"""

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from recam.formats.blanks import BlankKey, Slots, blank_correctness, nested, passage_answers, score_nested
from recam.records import iter_jsonl

MARKER = re.compile(r"^<(\d+)>$")


@dataclass(frozen=True)
class ScdePassage:
    id: int
    sentences: tuple[str, ...]  # blank k is the element "<k>"
    candidates: tuple[str, ...]
    answers: tuple[int, ...] | None = None  # per blank: the index of its right candidate

    @property
    def blanks(self) -> int:
        return sum(1 for s in self.sentences if MARKER.match(s))

    @property
    def distractors(self) -> tuple[int, ...]:
        """The candidates that answer no blank (needs the answers)."""
        used = set(self.answers or ())
        return tuple(i for i in range(len(self.candidates)) if i not in used)

    def filled(self, choices: Sequence[int] | None = None) -> tuple[str, ...]:
        """The sentences with every blank filled by the chosen candidates (the right ones by default)."""
        picks = self.answers if choices is None else choices
        if picks is None:
            raise ValueError(f"passage {self.id} has no answers to fill in")
        return tuple(
            self.candidates[picks[int(m.group(1)) - 1]] if (m := MARKER.match(s)) else s
            for s in self.sentences
        )

    def to_json(self) -> dict:
        record: dict = {"id": self.id, "passage": list(self.sentences), "candidates": list(self.candidates)}
        if self.answers is not None:
            record["answers"] = list(self.answers)
        return record


def passage_problems(*, sentences: object, candidates: object, answers: object) -> list[str]:
    """Every rule a passage breaks, as ``field: problem`` texts (empty when it is valid)."""
    if not isinstance(sentences, list) or not sentences or not all(isinstance(s, str) for s in sentences):
        return ["passage: must be a non-empty list of sentences (strings)"]
    problems = []
    numbers = [int(m.group(1)) for s in sentences if (m := MARKER.match(s.strip()))]
    if not numbers:
        problems.append("passage: has no blank (a blank is the element '<1>', '<2>', ...)")
    elif numbers != list(range(1, len(numbers) + 1)):
        shown = ", ".join(f"<{n}>" for n in numbers[:8])
        problems.append(f"passage: blanks must be <1>..<{len(numbers)}> once each, in order; found {shown}")
    if not isinstance(candidates, list) or not candidates:
        return [*problems, "candidates: missing or empty (a list of candidate sentences)"]
    for i, candidate in enumerate(candidates):
        if not isinstance(candidate, str) or not candidate.strip():
            problems.append(f"candidates[{i}]: missing or empty candidate")
    if len(numbers) > len(candidates):
        problems.append(f"passage: {len(numbers)} blanks but only {len(candidates)} candidates")
    if answers is not None:
        problems.extend(_answer_problems(answers, len(numbers), len(candidates)))
    return problems


def _answer_problems(answers: object, blanks: int, candidates: int) -> list[str]:
    if not isinstance(answers, list) or len(answers) != blanks:
        got = len(answers) if isinstance(answers, list) else type(answers).__name__
        return [f"answers: must hold one answer per blank ({blanks}), got {got}"]
    problems = []
    for i, answer in enumerate(answers):
        if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer < candidates:
            problems.append(
                f"answers[{i}]: {answer!r} points to no candidate (blank {i + 1}; candidates are 0-{candidates - 1})"
            )
    valid = [a for a in answers if isinstance(a, int) and not isinstance(a, bool)]
    repeated = sorted({a for a in valid if valid.count(a) > 1})
    if repeated:
        problems.append(f"answers: candidate {repeated[0]} answers more than one blank")
    return problems


def scde_from_json(record: object, *, default_id: int, where: str) -> ScdePassage:
    """Build an ScdePassage from one decoded json object; raise ValueError naming ``where`` and the field."""
    if not isinstance(record, dict):
        raise ValueError(f"{where}: expected a JSON object, got {type(record).__name__}")
    missing = [k for k in ("passage", "candidates") if k not in record]
    if missing:
        raise ValueError(f"{where}: missing field(s) {', '.join(missing)}")
    problems = passage_problems(
        sentences=record["passage"], candidates=record["candidates"], answers=record.get("answers")
    )
    if problems:
        raise ValueError(f"{where}: {problems[0]}")
    pid = record.get("id", default_id)
    if isinstance(pid, bool) or not isinstance(pid, int) or pid < 0:
        raise ValueError(f"{where}: 'id' must be a non-negative integer, got {pid!r}")
    answers = record.get("answers")
    return ScdePassage(
        id=pid,
        sentences=tuple(s.strip() if MARKER.match(s.strip()) else s for s in record["passage"]),
        candidates=tuple(record["candidates"]),
        answers=None if answers is None else tuple(answers),
    )


def passage_key(sentences: Iterable[str]) -> str:
    """Whitespace- and case-normalised passage text: two passages with one key are duplicates."""
    return " ".join(" ".join(sentences).split()).lower()


def read_scde(path: str | Path, *, require_answers: bool = False) -> list[ScdePassage]:
    """Read an SCDE-format jsonl file; raise ValueError naming ``file:line`` on the first bad record."""
    path = Path(path)
    passages: list[ScdePassage] = []
    ids: set[int] = set()
    texts: dict[str, str] = {}
    with path.open(encoding="utf-8-sig", newline=None) as handle:
        for index, (where, record) in enumerate(iter_jsonl(handle, source=str(path))):
            passage = scde_from_json(record, default_id=index, where=where)
            if passage.id in ids:
                raise ValueError(f"{where}: duplicate id {passage.id}")
            key = passage_key(passage.sentences)
            if key in texts:
                raise ValueError(f"{where}: duplicate passage (the same text as line {texts[key]})")
            if require_answers and passage.answers is None:
                raise ValueError(f"{where}: passage {passage.id} has no 'answers'")
            ids.add(passage.id)
            texts[key] = where.rsplit(":", 1)[1]
            passages.append(passage)
    return passages


def write_scde(path: str | Path, passages: Iterable[ScdePassage]) -> None:
    with Path(path).open("w", encoding="utf-8", newline="\n") as handle:
        for passage in passages:
            handle.write(json.dumps(passage.to_json(), ensure_ascii=False) + "\n")


def accuracy(
    *, predictions: Sequence[Sequence[int]], references: Sequence[Sequence[int]]
) -> dict[str, float]:
    """BA, PA and DE over passages; one list of candidate indexes per passage (its blanks in order).

    A predicted candidate that is no passage answer is a distractor (every other candidate answers a blank).

    >>> accuracy(predictions=[[0, 1, 5], [2, 0]], references=[[0, 1, 2], [2, 0]])
    {'blank_accuracy': 0.8333333333333333, 'passage_accuracy': 0.5, 'distractor_error': 0.5}
    >>> accuracy(predictions=[], references=[])
    {'blank_accuracy': 0.0, 'passage_accuracy': 0.0, 'distractor_error': 0.0}
    """
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predicted passages for {len(references)} references")
    if not references:
        return {"blank_accuracy": 0.0, "passage_accuracy": 0.0, "distractor_error": 0.0}
    per_passage = _per_passage(predictions, references)
    return {key: float(np.mean(values)) for key, values in per_passage.items()}


def _per_passage(
    predictions: Sequence[Sequence[int]], references: Sequence[Sequence[int]]
) -> dict[str, np.ndarray]:
    ba, pa, de = [], [], []
    for i, (pred, ref) in enumerate(zip(predictions, references, strict=True)):
        if len(pred) != len(ref) or not ref:
            raise ValueError(f"passage {i}: {len(pred)} predictions for {len(ref)} blanks")
        right = sum(int(p) == int(r) for p, r in zip(pred, ref, strict=True))
        answers = {int(r) for r in ref}
        ba.append(right / len(ref))
        pa.append(float(right == len(ref)))
        de.append(float(sum(int(p) >= 0 and int(p) not in answers for p in pred)))
    return {
        "blank_accuracy": np.array(ba),
        "passage_accuracy": np.array(pa),
        "distractor_error": np.array(de),
    }


def gold(passages: Iterable[ScdePassage]) -> dict[int, tuple[int, ...]]:
    """Passage id -> right answers; every passage must have answers."""
    return passage_answers(passages)


def score_predictions(
    *, predictions: Mapping[BlankKey, int], passages: Sequence[ScdePassage]
) -> dict[str, float]:
    """Score (id, blank) -> candidate predictions; a blank without one counts as wrong (not as a distractor)."""
    return score_nested(accuracy, predictions=predictions, passages=passages)


def chance(*, passages: Sequence[ScdePassage]) -> dict[str, float]:
    """The expected scores of a uniformly random assignment of distinct candidates to the blanks.

    Per passage with |B| blanks and |C| candidates (|D| = |C| - |B| distractors): BA 1/|C| (each blank's
    candidate is uniform over C), PA (|C|-|B|)!/|C|! (one of the |C|!/(|C|-|B|)! assignments), DE
    |B||D|/|C|; each averaged over passages. For |C| = 7, |B| = 5: BA 0.143, PA 1/2520, DE 1.429 (Table 9).

    >>> p = ScdePassage(id=0, sentences=tuple(f"<{k}>" for k in range(1, 6)), candidates=tuple("ABCDEFG"))
    >>> {k: round(v, 6) for k, v in chance(passages=[p]).items()}
    {'blank_accuracy': 0.142857, 'passage_accuracy': 0.000397, 'distractor_error': 1.428571}
    """
    return chance_of_sizes([(p.blanks, len(p.candidates)) for p in passages])


def chance_of_sizes(sizes: Sequence[tuple[int, int]]) -> dict[str, float]:
    """:func:`chance` from each passage's (blanks, candidates) alone (a test set's slots, say)."""
    if not sizes:
        return {"blank_accuracy": 0.0, "passage_accuracy": 0.0, "distractor_error": 0.0}
    return {
        "blank_accuracy": float(np.mean([1 / c for _b, c in sizes])),
        "passage_accuracy": float(np.mean([1 / math.perm(c, b) for b, c in sizes])),
        "distractor_error": float(np.mean([b * (c - b) / c for b, c in sizes])),
    }


def vectors(*, predictions: Mapping[BlankKey, int], passages: Sequence[ScdePassage]) -> dict[str, np.ndarray]:
    """One value per passage and metric (id order); each vector's mean is that metric's score.

    These are the items the bootstrap intervals resample (passages, as the metrics average over them).
    """
    answers = gold(passages)
    return _per_passage(nested(predictions, answers), [answers[p] for p in sorted(answers)])


def rank_vector(*, predictions: Mapping[BlankKey, int], passages: Sequence[ScdePassage]) -> np.ndarray:
    """Per-blank 0/1 correctness: the paired items of the tied ranks' exact McNemar test."""
    return blank_correctness(predictions=predictions, gold=gold(passages))


def slots(passages: Iterable[ScdePassage]) -> dict[int, Slots]:
    return {p.id: Slots(blanks=p.blanks, choices=len(p.candidates)) for p in passages}
