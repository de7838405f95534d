"""ReCAM question records and jsonl I/O.

A ReCAM record is ``{"article", "question", "option_0".."option_4", "label"?, "id"?}``; the question
holds exactly one ``@placeholder``. Files without an ``id`` field (the official dev and trial sets)
number their records 0, 1, 2, ... in file order, which is what the official submission files use.
"""

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

PLACEHOLDER = "@placeholder"
NUM_OPTIONS = 5
# Ids and every other integer in the JSON the project reads fit in 18 digits (a 64-bit column). Python
# refuses to convert more than 4,300 digits with a bare ValueError; a longer literal is refused first.
MAX_INT_DIGITS = 18


def bounded_int(literal: str) -> int:
    """``json.loads``'s ``parse_int``: an integer of at most MAX_INT_DIGITS digits, else ValueError.

    >>> bounded_int("-42")
    -42
    >>> bounded_int("9" * 5000)
    Traceback (most recent call last):
    ...
    ValueError: the integer 99999999999999999999... has 5,000 digits; at most 18 are allowed
    """
    digits = len(literal.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise ValueError(
            f"the integer {literal[:20]}... has {digits:,} digits; at most {MAX_INT_DIGITS} are allowed"
        )
    return int(literal)


def loads_bounded(text: str | bytes) -> object:
    """``json.loads`` with integers bounded (:func:`bounded_int`); any problem is a ValueError.

    >>> loads_bounded("[" * 100_000)
    Traceback (most recent call last):
    ...
    ValueError: JSON nested too deeply to read
    """
    try:
        return json.loads(text, parse_int=bounded_int)
    except RecursionError:  # json's C decoder recurses per nesting level
        raise ValueError("JSON nested too deeply to read") from None


@dataclass(frozen=True)
class Question:
    id: int
    article: str
    question: str
    options: tuple[str, ...]
    label: int | None = None

    @property
    def answer(self) -> str | None:
        return None if self.label is None else self.options[self.label]

    def filled(self, option: int | None = None) -> str:
        """The question with the placeholder replaced by an option (the gold one by default)."""
        index = self.label if option is None else option
        if index is None:
            raise ValueError(f"question {self.id} has no label to fill in")
        return self.question.replace(PLACEHOLDER, self.options[index], 1)

    def to_json(self) -> dict:
        record: dict = {"id": self.id, "article": self.article, "question": self.question}
        record.update({f"option_{i}": option for i, option in enumerate(self.options)})
        if self.label is not None:
            record["label"] = self.label
        return record


def question_from_json(record: object, *, default_id: int, where: str) -> Question:
    """Build a Question from one decoded json object; ``where`` names the file and line for errors."""
    if not isinstance(record, dict):
        raise ValueError(f"{where}: expected a JSON object, got {type(record).__name__}")
    missing = [
        k for k in ("article", "question", *(f"option_{i}" for i in range(NUM_OPTIONS))) if k not in record
    ]
    if missing:
        raise ValueError(f"{where}: missing field(s) {', '.join(missing)}")
    for key in ("article", "question", *(f"option_{i}" for i in range(NUM_OPTIONS))):
        if not isinstance(record[key], str) or not record[key].strip():
            raise ValueError(f"{where}: field {key!r} must be a non-empty string")
    if record["question"].count(PLACEHOLDER) != 1:
        raise ValueError(f"{where}: the question must contain {PLACEHOLDER} exactly once")
    qid = record.get("id", default_id)
    if isinstance(qid, bool) or not isinstance(qid, int) or qid < 0:
        raise ValueError(f"{where}: 'id' must be a non-negative integer, got {qid!r}")
    label = record.get("label")
    if label is not None and (isinstance(label, bool) or label not in range(NUM_OPTIONS)):
        raise ValueError(f"{where}: 'label' must be an integer 0-4, got {label!r}")
    options = tuple(record[f"option_{i}"] for i in range(NUM_OPTIONS))
    return Question(
        id=qid, article=record["article"], question=record["question"], options=options, label=label
    )


def iter_jsonl(lines: Iterable[str], *, source: str = "<input>") -> Iterator[tuple[str, object]]:
    """Decoded jsonl records as ``(where, record)``, ``where`` being ``source:line``; blank lines skipped.

    The one jsonl reader of the project: a line that is not JSON raises ValueError naming ``source:line``.
    """
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{source}:{lineno}"
        try:
            record = loads_bounded(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        yield where, record


def iter_questions(lines: Iterable[str], *, source: str = "<input>") -> Iterator[Question]:
    """Parse jsonl lines; blank lines are skipped; raise ValueError naming ``source:line`` on bad input."""
    for _where, question in _placed_questions(lines, source=source):
        yield question


def _placed_questions(lines: Iterable[str], *, source: str) -> Iterator[tuple[str, Question]]:
    seen: set[int] = set()
    for index, (where, record) in enumerate(iter_jsonl(lines, source=source)):
        question = question_from_json(record, default_id=index, where=where)
        if question.id in seen:
            raise ValueError(f"{where}: duplicate id {question.id}")
        seen.add(question.id)
        yield where, question


def read_questions(path: str | Path, *, require_labels: bool = False) -> list[Question]:
    """Read a ReCAM jsonl file. ``require_labels`` rejects records without a gold label."""
    path = Path(path)
    with path.open(encoding="utf-8-sig", newline=None) as handle:
        placed = list(_placed_questions(handle, source=str(path)))
    if require_labels:
        unlabelled = [(where, q.id) for where, q in placed if q.label is None]
        if unlabelled:
            where, qid = unlabelled[0]
            line = where.rsplit(":", 1)[1]
            raise ValueError(
                f"{path}: {len(unlabelled)} record(s) have no 'label' (first at line {line}, id {qid})"
            )
    return [q for _where, q in placed]


def write_questions(path: str | Path, questions: Iterable[Question], *, with_ids: bool = True) -> None:
    """Write ReCAM jsonl (UTF-8, one record per line, LF endings)."""
    with Path(path).open("w", encoding="utf-8", newline="\n") as handle:
        for question in questions:
            record = question.to_json()
            if not with_ids:
                record.pop("id")
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def dedupe_against(questions: Iterable[Question], *, exclude: Iterable[Question]) -> list[Question]:
    """Drop questions whose text (whitespace-normalised) occurs in ``exclude``, and repeats among themselves.

    The official trial sets share records with the test sets: de-duplicate before training on them.
    """

    def key(q: Question) -> str:
        return " ".join(q.question.split()).lower()

    seen = {key(q) for q in exclude}
    kept = []
    for question in questions:
        if key(question) not in seen:
            seen.add(key(question))
            kept.append(question)
    return kept
