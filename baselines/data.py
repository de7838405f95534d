"""Cloze examples for the readers: passage, summary with ``@placeholder``, options or a gold answer."""

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from recam.records import PLACEHOLDER, Question

# Words (letters/digits with inner apostrophes or hyphens), the placeholder, or single punctuation marks.
_TOKEN = re.compile(r"@placeholder|[a-z0-9]+(?:['\-][a-z0-9]+)*|[^\sa-z0-9]", re.IGNORECASE)


@dataclass(frozen=True)
class ClozeExample:
    id: str
    article: str
    question: str  # holds PLACEHOLDER exactly once
    answer: str | None = None
    options: tuple[str, ...] | None = None
    label: int | None = None


def from_question(q: Question) -> ClozeExample:
    """A multiple-choice ClozeExample from a ReCAM record (the answer is the gold option, if labelled)."""
    return ClozeExample(
        id=str(q.id),
        article=q.article,
        question=q.question,
        answer=q.answer,
        options=tuple(q.options),
        label=q.label,
    )


def tokenize(text: str) -> list[str]:
    """Lower-cased word and punctuation tokens; ``@placeholder`` stays one token.

    >>> tokenize("Forty-seven staff have @placeholder their jobs, it's said.")
    ['forty-seven', 'staff', 'have', '@placeholder', 'their', 'jobs', ',', "it's", 'said', '.']
    """
    return [t.lower() for t in _TOKEN.findall(text)]


def candidate_key(word: str) -> str:
    """The normalised form under which a candidate word is looked up (lower-cased, stripped)."""
    return " ".join(word.lower().split())


def check_examples(examples: Iterable[ClozeExample], *, need: str) -> list[ClozeExample]:
    """Validate examples for a mode: ``need`` is "options", "label" (options + label) or "answer"."""
    checked = list(examples)
    for example in checked:
        where = f"example {example.id!r}"
        if tokenize(example.question).count(PLACEHOLDER) != 1:
            raise ValueError(f"{where}: the question must contain {PLACEHOLDER} exactly once")
        if need in ("options", "label") and not example.options:
            raise ValueError(f"{where}: multiple-choice mode needs options")
        if need == "label" and (example.label is None or not 0 <= example.label < len(example.options or ())):
            raise ValueError(f"{where}: label {example.label!r} is not an index into its options")
        if need == "answer" and not example.answer:
            raise ValueError(f"{where}: candidate-set mode needs the gold answer")
    return checked


# Reserved word ids, shared with baselines.readers: padding, unknown word, the placeholder.
RESERVED = ("<pad>", "<unk>", PLACEHOLDER)


@dataclass(frozen=True)
class EncodedExample:
    passage: tuple[int, ...]
    summary: tuple[int, ...]
    placeholder: int  # position of @placeholder in ``summary``
    choices: tuple[int, ...]  # candidate-table rows of the options (or () in candidate-set mode)
    target: int | None  # index into ``choices`` (MC mode) or a candidate-table row (candidate-set mode)


def encode_tokens(tokens: list[str], index: dict[str, int], *, limit: int | None = None) -> tuple[int, ...]:
    """Word ids (1 for unknown words); at least one id so no sequence is empty."""
    ids = tuple(index.get(token, 1) for token in tokens[:limit])
    return ids or (1,)


def examples_sha256(examples: Sequence[ClozeExample]) -> str:
    """A content hash of an example list (order-sensitive): part of a reader's training fingerprint."""
    digest = hashlib.sha256()
    for example in examples:
        digest.update(json.dumps(asdict(example), sort_keys=True).encode() + b"\n")
    return digest.hexdigest()
