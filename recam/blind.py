"""Blind annotation files: questions of several sources, mixed, shuffled and unmarked.

For a human measurement of generated questions beside ReCAM's own, the items are numbered 1..N in a
seeded shuffle and written twice: ``noarticle.md`` (the summary with its blank and the five options
only) and ``witharticle.md`` (the article, then the same question). Nothing in either file tells the
sources apart; the key (source, original id, label per item) is a separate JSON file annotators never
see. ``batch_records`` gives the same items as ReCAM jsonl records (id = item number, with a ``source``
field) for a two-stage validation batch on the site.
"""

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from recam.records import PLACEHOLDER, Question

BLANK = "_____"


@dataclass(frozen=True)
class BlindItem:
    number: int  # 1..N, the order annotators see
    source: str
    question: Question  # with its original id and label


def blind_items(*, sets: Mapping[str, Sequence[Question]], seed: int = 0) -> list[BlindItem]:
    """Every question of every source, shuffled with ``seed`` and numbered from 1."""
    pooled = [(source, q) for source, questions in sets.items() for q in questions]
    random.Random(seed).shuffle(pooled)
    return [BlindItem(number=i, source=s, question=q) for i, (s, q) in enumerate(pooled, start=1)]


def _blanked(question: Question) -> str:
    return question.question.replace(PLACEHOLDER, BLANK, 1)


def _options(question: Question) -> list[str]:
    return [f"   {i}. {option}" for i, option in enumerate(question.options)]


def noarticle_markdown(items: Sequence[BlindItem]) -> str:
    lines = [
        "# Which word fills the blank? (without the article)",
        "",
        "For each item choose the option (0-4) that you think fills the blank, or -1 if you cannot choose.",
        "",
    ]
    for item in items:
        lines += [f"## Item {item.number}", "", _blanked(item.question), "", *_options(item.question), ""]
    return "\n".join(lines)


def witharticle_markdown(items: Sequence[BlindItem]) -> str:
    lines = [
        "# Which word fills the blank? (with the article)",
        "",
        "For each item read the article, then choose the option (0-4) that fills the blank, or -1 if none fits or",
        "more than one fits. Also mark whether more than one option fits equally well (multiple_fit) and whether",
        "an option is ungrammatical in the sentence (ungrammatical).",
        "",
    ]
    for item in items:
        article = " ".join(item.question.article.split())
        lines += [f"## Item {item.number}", "", "**Article.** " + article, "",
                  "**Question.** " + _blanked(item.question), "", *_options(item.question), ""]  # fmt: skip
    return "\n".join(lines)


def key_json(items: Sequence[BlindItem]) -> dict:
    """Item number -> its source, original id, label and answer (never shown to annotators)."""
    return {
        str(item.number): {
            "source": item.source,
            "id": item.question.id,
            "label": item.question.label,
            "answer": item.question.answer,
        }
        for item in items
    }


def batch_records(items: Sequence[BlindItem]) -> list[dict]:
    """ReCAM jsonl records, id = item number, plus ``source`` and the original id."""
    return [
        {**item.question.to_json(), "id": item.number, "source": item.source, "source_id": item.question.id}
        for item in items
    ]
