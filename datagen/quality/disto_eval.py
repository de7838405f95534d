"""Validating a DISTO model and ranking distractor generators with it.

* ``evaluate``: AUC of real distractors against sampled negatives of held-out questions (ReCAM dev),
  all negatives together and each kind alone, with a 95% bootstrap interval (scipy.stats.bootstrap,
  percentile method, real and sampled distractors resampled separately; AUC by sklearn's
  roc_auc_score, in the resamples as scipy's Mann-Whitney U over the pair count);
* ``score_options``: the score of every distractor of a file (None at the gold);
* ``rank_sets``: the mean score of each option file's distractors, with a bootstrap interval over
  questions, best first.
"""

from collections.abc import Sequence

import numpy as np

from datagen.quality.disto import NEGATIVE_KINDS, DistoModel, Example, examples_for, vocabulary_of
from recam.records import Question

RESAMPLES = 1000
LEVEL = 0.95


def auc_interval(
    *, labels: Sequence[int], scores: Sequence[float], seed: int = 0, resamples=RESAMPLES
) -> dict:
    """ROC AUC and its percentile bootstrap interval, real and sampled distractors resampled separately.

    The AUC of a resample is the Mann-Whitney U of the real scores against the others over
    ``n_real * n_other`` (what roc_auc_score computes, ties counted half).
    """
    from scipy.stats import bootstrap, mannwhitneyu
    from sklearn.metrics import roc_auc_score

    y, s = np.asarray(labels), np.asarray(scores, dtype=float)
    if len(set(y.tolist())) < 2:
        raise ValueError("the AUC needs both real distractors and negatives")

    def auc(real, other, axis=-1):
        return mannwhitneyu(real, other, axis=axis).statistic / (real.shape[axis] * other.shape[axis])

    ci = bootstrap(
        (s[y == 1], s[y == 0]), auc, vectorized=True, batch=50, n_resamples=resamples,
        confidence_level=LEVEL, method="percentile", random_state=np.random.default_rng(seed),
    )  # fmt: skip
    low, high = ci.confidence_interval
    return {"auc": float(roc_auc_score(y, s)), "low": float(low), "high": float(high), "n": len(y)}


def evaluate(
    *, model: DistoModel, encoder, questions: Sequence[Question], wordnet, seed: int = 0, resamples=RESAMPLES
) -> dict:
    """AUC (with interval) of the real distractors against all negatives and against each kind."""
    rng = np.random.default_rng(seed)
    examples = examples_for(
        questions=questions, wordnet=wordnet, rng=rng, vocabulary=vocabulary_of(questions)
    )
    scores = model.score(examples=examples, encoder=encoder)
    labels = np.array([e.label for e in examples])
    kinds = np.array([e.kind for e in examples])
    result = {
        "questions": len(questions),
        "all": auc_interval(labels=labels, scores=scores, seed=seed, resamples=resamples),
    }
    for kind in NEGATIVE_KINDS:
        keep = (labels == 1) | (kinds == kind)
        if (kinds == kind).any():
            result[kind] = auc_interval(
                labels=labels[keep], scores=scores[keep], seed=seed, resamples=resamples
            )
    return result


def score_options(*, model: DistoModel, encoder, questions: Sequence[Question]) -> list[list[float | None]]:
    """Per question, the five options' scores with None at the gold."""
    examples, where = [], []
    for i, q in enumerate(questions):
        if q.label is None:
            raise ValueError(f"question {q.id} has no label: DISTO scores distractors against the gold")
        for j, option in enumerate(q.options):
            if j != q.label:
                examples.append(Example(q, option, 1, "scored"))
                where.append((i, j))
    scores = model.score(examples=examples, encoder=encoder) if examples else []
    table: list[list[float | None]] = [[None] * len(q.options) for q in questions]
    for (i, j), s in zip(where, scores, strict=True):
        table[i][j] = float(s)
    return table


def set_summary(*, table: list[list[float | None]], seed: int = 0, resamples=RESAMPLES) -> dict:
    """Mean distractor score of one file and a bootstrap interval over its questions."""
    from scipy.stats import bootstrap

    per_question = np.array([np.mean([s for s in row if s is not None]) for row in table])
    mean = float(per_question.mean())
    if len(per_question) < 2:
        return {"mean": mean, "low": mean, "high": mean, "questions": len(per_question)}
    ci = bootstrap(
        (per_question,), np.mean, n_resamples=resamples, confidence_level=LEVEL, method="percentile",
        random_state=np.random.default_rng(seed),
    )  # fmt: skip
    low, high = ci.confidence_interval
    return {"mean": mean, "low": float(low), "high": float(high), "questions": len(per_question)}


def rank_sets(
    *, model: DistoModel, encoder, sets: dict[str, Sequence[Question]], seed: int = 0, resamples=RESAMPLES
) -> list[dict]:
    """One row per option file (name, mean distractor score, interval, questions), best first."""
    rows = []
    for name, questions in sets.items():
        table = score_options(model=model, encoder=encoder, questions=questions)
        rows.append({"set": name, **set_summary(table=table, seed=seed, resamples=resamples)})
    return sorted(rows, key=lambda r: -r["mean"])
