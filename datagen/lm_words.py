"""The LM as a word ranker and as the gate's judge: a thin wrapper over :mod:`baselines.lm_scorer`.

Many words per question are scored in chunks of ``CHUNK`` options (the shared-prefix scorer copies
the article's KV cache once per option; a chunk keeps that copy small); the last chunk is padded by
repeating its first word and the padding is discarded.
"""

from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np
from tqdm import tqdm

from baselines.lm_scorer import LoadedLM, option_logprobs
from datagen.options import Candidate
from datagen.retrieval import Ranked

CHUNK = 24


def word_logprobs(
    lm: LoadedLM, *, candidate: Candidate, words: Sequence[str], with_article: bool, article_tokens: int = 400
) -> np.ndarray:
    """Log-likelihood of the summary filled with each word (given the article, or alone)."""
    words = list(words)
    chunks = [words[i : i + CHUNK] for i in range(0, len(words), CHUNK)]
    width = len(chunks[0])
    padded = [chunk + [chunk[0]] * (width - len(chunk)) for chunk in chunks]
    scores = option_logprobs(
        lm,
        articles=[candidate.article] * len(padded),
        questions=[candidate.question] * len(padded),
        options=padded,
        article_tokens=article_tokens,
        with_article=with_article,
        batch_size=1,
    )
    return np.concatenate([row[: len(chunk)] for row, chunk in zip(scores, chunks, strict=True)])


def lm_ranking(lm: LoadedLM, *, candidate: Candidate, vocabulary: Sequence[str], top: int = 10) -> Ranked:
    """The LM ranker: the vocabulary ordered by how well each word fills the summary given the article.

    Like a reader's :class:`~datagen.retrieval.Ranked`: the gold's 1-based rank and the ``top`` words.
    """
    words = list(vocabulary)
    scores = word_logprobs(lm, candidate=candidate, words=words, with_article=True)
    order = sorted(range(len(words)), key=lambda i: (-scores[i], words[i]))
    ranked = [words[i] for i in order]
    gold_rank = ranked.index(candidate.answer) + 1 if candidate.answer in ranked else None
    return Ranked(id=candidate.id, gold_rank=gold_rank, top=tuple(ranked[:top]))


def lm_word_scorer(lm: LoadedLM, *, article_tokens: int = 400):
    """The gate's judge: (candidate, words) -> (article-aware scores, options-only scores) by word."""

    def score(candidate: Candidate, words: Sequence[str]) -> tuple[Mapping[str, float], Mapping[str, float]]:
        found = []
        for with_article in (True, False):
            values = word_logprobs(
                lm, candidate=candidate, words=words, with_article=with_article, article_tokens=article_tokens
            )
            found.append(dict(zip(words, map(float, values), strict=True)))
        return found[0], found[1]

    return score


def question_ranker(lm: LoadedLM, *, article_tokens: int = 400):
    """A ReCAM question ranker for the distractor benchmark: vocabulary by LM fit given the article."""

    @lru_cache(maxsize=4)
    def _rank(question, vocab: tuple[str, ...]) -> list[str]:
        candidate = Candidate(id=question.id, article=question.article, question=question.question, answer="")
        scores = word_logprobs(
            lm, candidate=candidate, words=vocab, with_article=True, article_tokens=article_tokens
        )
        return [vocab[i] for i in sorted(range(len(vocab)), key=lambda i: (-scores[i], vocab[i]))]

    return lambda question, vocab: _rank(question, tuple(vocab))


@lru_cache(maxsize=2)
def loaded_lm(model_path: str | None) -> LoadedLM:
    from baselines.lm_scorer import load_causal_lm

    return load_causal_lm(model_path=model_path, threads=2)


def gate_scores(
    *, items: Sequence[Mapping], lm_model: str | None = None, progress: bool = False
) -> list[dict]:
    """The gate's LM scores for many questions (the unit a Celery task runs; the LM loads once per process).

    ``items``: ``{"id", "article", "question", "answer", "words"}`` (the gold first among ``words``);
    returns ``{"id", "article": {word: score}, "options_only": {word: score}}`` per item.
    """
    score = lm_word_scorer(loaded_lm(lm_model))
    found = []
    for item in tqdm(items, desc="gate scores", unit="q", disable=not progress):
        candidate = Candidate(
            id=item["id"], article=item["article"], question=item["question"], answer=item["answer"]
        )
        article, options_only = score(candidate, item["words"])
        found.append({"id": item["id"], "article": dict(article), "options_only": dict(options_only)})
    return found
