"""Distractor benchmark (issue #16): rankers propose distractors for ReCAM dev; ReCAM's four real ones judge.

For each question the ranker orders the candidate vocabulary (every option word of the file, the
gold excluded); the question's four real distractors are the relevant items. Metrics (those of CDGP,
Chiang et al. 2022): P@1 (the first proposal is a real distractor), F1@3 (precision@3 = hits/3,
recall@3 = hits/4), MRR (1 / rank of the first real distractor; 0 when none is ranked) and NDCG@10
(binary gains, ideal DCG from min(4, 10) hits). Means over questions, in percent.

Rankers: ``wordfreq`` (the vocabulary by English word frequency, the question unseen), ``lm`` (the
LM ranker, :func:`datagen.lm_words.question_ranker`: the vocabulary by the LM's two-stage score of each word
filled into the question given the article)
and ``both`` (reciprocal-rank fusion of the two, ``1/(60 + rank)`` summed, the usual constant).
"""

import math
from collections.abc import Callable, Sequence

import numpy as np

from datagen.prior import word_logfreq
from recam.records import Question

K_NDCG = 10
RRF_K = 60
Ranker = Callable[[Question, Sequence[str]], list[str]]


def vocabulary(questions: Sequence[Question]) -> list[str]:
    return sorted({o.strip().lower() for q in questions for o in q.options})


def distractors(question: Question) -> set[str]:
    return {o.strip().lower() for i, o in enumerate(question.options) if i != question.label}


def question_metrics(*, ranked: Sequence[str], relevant: set[str]) -> dict[str, float]:
    hits = [w in relevant for w in ranked]
    at3 = sum(hits[:3])
    p3, r3 = at3 / 3, at3 / len(relevant)
    first = next((i for i, h in enumerate(hits) if h), None)
    dcg = sum(1 / math.log2(i + 2) for i, h in enumerate(hits[:K_NDCG]) if h)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), K_NDCG)))
    return {
        "P@1": float(bool(hits[:1] and hits[0])),
        "F1@3": 0.0 if at3 == 0 else 2 * p3 * r3 / (p3 + r3),
        "MRR": 0.0 if first is None else 1 / (first + 1),
        "NDCG@10": dcg / ideal,
    }


def evaluate(*, questions: Sequence[Question], ranker: Ranker, vocab: Sequence[str], progress=None) -> dict:
    rows = []
    for question in questions:
        gold = question.answer.strip().lower()
        ranked = [w for w in ranker(question, [w for w in vocab if w != gold]) if w != gold]
        rows.append(question_metrics(ranked=ranked, relevant=distractors(question)))
        if progress is not None:
            progress(1)
    return {key: 100 * float(np.mean([r[key] for r in rows])) for key in rows[0]} | {"questions": len(rows)}


def wordfreq_ranker(question: Question, vocab: Sequence[str]) -> list[str]:
    return sorted(vocab, key=lambda w: (-word_logfreq(w), w))


def remembered(ranker: Ranker) -> Ranker:
    """``ranker`` computed once per question and vocabulary (the ``lm`` and ``both`` rows share it)."""
    seen: dict[tuple[str, tuple[str, ...]], list[str]] = {}

    def rank(question: Question, vocab: Sequence[str]) -> list[str]:
        key = (str(question.id), tuple(vocab))
        if key not in seen:
            seen[key] = list(ranker(question, vocab))
        return seen[key]

    return rank


def fused(*rankers: Ranker) -> Ranker:
    """Reciprocal-rank fusion of several rankers."""

    def rank(question: Question, vocab: Sequence[str]) -> list[str]:
        score = dict.fromkeys(vocab, 0.0)
        for ranker in rankers:
            for position, word in enumerate(ranker(question, vocab), start=1):
                score[word] += 1 / (RRF_K + position)
        return sorted(vocab, key=lambda w: (-score[w], w))

    return rank
