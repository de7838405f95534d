"""Distractor benchmark (issue #16): rankers propose distractors for ReCAM dev; ReCAM's four real ones judge.

For each question the ranker orders the candidate vocabulary (every option word of the file, the
gold excluded); the question's four real distractors are the relevant items. Metrics (those of CDGP,
Chiang et al. 2022): P@1 (the first proposal is a real distractor), F1@3 (precision@3 = hits/3,
recall@3 = hits/4), MRR (1 / rank of the first real distractor; 0 when none is ranked) and NDCG@10
(binary gains, ideal DCG from min(4, 10) hits). Means over questions, in percent.

Rankers (the rows):

* ``wordfreq``: the vocabulary by English word frequency, the question unseen;
* ``ga``, ``att``, ``att-gloss``: the paper's three readers (§3.5), trained in candidate-set mode on
  *other* labelled ReCAM questions (``--reader-train``, e.g. the subtask's trial set, overlap-filtered
  against the benchmark's articles), ranking the vocabulary for each question (:func:`reader_ranker`);
* ``readers``: the three readers' pool, ordered as ``datagen options --ranker readers`` orders it;
* ``lm``: the LM ranker, :func:`datagen.options.lm_words.question_ranker`: the vocabulary by the LM's two-stage
  score of each word filled into the question given the article;
* ``both``: the readers' and the LM's pool, as ``datagen options --ranker both`` orders it.

A pool (:func:`pooled`) is :func:`datagen.options.gated.ordered_pool` over each ranker's first ``POOL_TOP``
words (the words option generation takes from each), then every other word by reciprocal-rank fusion
(``1/(60 + rank)`` summed, the usual constant), so that MRR still sees a whole ranking.

Rankings can be kept in a jsonl file (:func:`cached`), keyed by the ranker's identity and what it sees:
the LM rows take seconds a question, and a stopped run resumes there.
"""

import hashlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from datagen.options.prior import word_logfreq
from recam.records import Question

K_NDCG = 10
RRF_K = 60
POOL_TOP = 10  # each ranker's words in the pool: the readers' top 10 (datagen.options.retrieval.TOP_K)
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


def _rrf(rankings: Sequence[Sequence[str]], vocab: Sequence[str]) -> list[str]:
    score = dict.fromkeys(vocab, 0.0)
    for ranking in rankings:
        for position, word in enumerate(ranking, start=1):
            if word in score:
                score[word] += 1 / (RRF_K + position)
    return sorted(vocab, key=lambda w: (-score[w], w))


def fused(*rankers: Ranker) -> Ranker:
    """Reciprocal-rank fusion of several rankers."""

    def rank(question: Question, vocab: Sequence[str]) -> list[str]:
        return _rrf([ranker(question, vocab) for ranker in rankers], vocab)

    return rank


def pooled(*rankers: Ranker, top: int = POOL_TOP) -> Ranker:
    """The pool option generation builds from these rankers, then the rest by reciprocal-rank fusion."""
    from datagen.options.gated import ordered_pool

    def rank(question: Question, vocab: Sequence[str]) -> list[str]:
        rankings = [ranker(question, vocab) for ranker in rankers]
        pool = ordered_pool([ranking[:top] for ranking in rankings])
        rest = set(pool)
        return pool + [w for w in _rrf(rankings, vocab) if w not in rest]

    return rank


def cached(ranker: Ranker, *, path: str | Path, identity: Mapping) -> Ranker:
    """``ranker`` whose rankings are appended to the jsonl file ``path`` as they are computed and read
    back on a rerun. The key is the SHA-256 of ``identity`` (model, scoring rule, settings) and of what
    the ranker sees (the question's id, article, text and the vocabulary), so another ranker or
    another question never reads a stored ranking. A truncated last line (a stopped run) is ignored."""
    path = Path(path)
    stored: dict[str, list[str]] = {}
    if path.is_file():
        text = path.read_text(encoding="utf-8")
        if text and not text.endswith("\n"):  # a stopped run's partial line: the next record starts afresh
            with path.open("a", encoding="utf-8") as handle:
                handle.write("\n")
        for line in text.splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            stored[record["key"]] = record["ranking"]
    ident = json.dumps(dict(identity), sort_keys=True)

    def rank(question: Question, vocab: Sequence[str]) -> list[str]:
        seen = [ident, str(question.id), question.article, question.question, list(vocab)]
        key = hashlib.sha256(json.dumps(seen).encode()).hexdigest()
        if key not in stored:
            stored[key] = list(ranker(question, vocab))
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps({"key": key, "id": str(question.id), "ranking": stored[key]}) + "\n")
        return stored[key]

    return rank
