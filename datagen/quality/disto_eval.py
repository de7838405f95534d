"""Validating a DISTO model and ranking distractor generators with it.

* ``evaluate``: AUC of real distractors against sampled negatives of held-out questions (ReCAM dev),
  all negatives together and each kind alone, with a 95% bootstrap interval (scipy.stats.bootstrap,
  percentile method, real and sampled distractors resampled separately; AUC by sklearn's
  roc_auc_score, in the resamples as scipy's Mann-Whitney U over the pair count);
* ``score_options``: the score of every distractor of a file (None at the gold);
* ``rank_sets``: the mean score of each option file's distractors, with a bootstrap interval over
  questions, best first;
* ``rank_on_reference``: the same on the questions every option file wrote, matched by id to a
  labelled reference file (ReCAM dev) whose own distractors are a row, beside the options-only
  accuracy of the quality report's word-frequency judge (a second view);
* ``wordfreq_options``: the word-frequency generator (each question's gold and the four most frequent
  words of the file's option vocabulary), the floor of the ranking.
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


REFERENCE = "reference"


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def aligned(*, name: str, questions: Sequence[Question], reference: dict[int, Question]) -> None:
    """Check that every question of option file ``name`` is a reference question (same id, article,
    question and gold, compared lower-cased and whitespace-normalised); raise ValueError naming the first
    that is not."""
    for q in questions:
        ref = reference.get(q.id)
        if ref is None:
            raise ValueError(f"{name}: question id {q.id} is not in the reference file")
        if not (_same_text(q.article, ref.article) and _same_text(q.question, ref.question)):
            raise ValueError(
                f"{name}: question id {q.id} has another article or question than the reference's"
            )
        if q.answer is None or q.answer.strip().lower() != ref.answer.strip().lower():
            raise ValueError(
                f"{name}: question id {q.id} has the gold {q.answer!r}, the reference {ref.answer!r}"
            )


def wordfreq_accuracy(questions: Sequence[Question]) -> float:
    """Options-only accuracy of the quality report's word-frequency judge (the most frequent option wins;
    calibration does not change the argmax)."""
    from datagen.options.prior import prior_scores
    from datagen.quality.calibration import accuracy

    return accuracy(
        scores=prior_scores(options=[q.options for q in questions]), labels=[q.label for q in questions]
    )


def rank_on_reference(
    *,
    model: DistoModel,
    encoder,
    sets: dict[str, Sequence[Question]],
    reference: Sequence[Question],
    seed: int = 0,
    resamples=RESAMPLES,
) -> dict:
    """Rank option files on the same questions: those every file wrote (``common``, by id).

    The reference file's own distractors are a row (``REFERENCE``), on the questions any file wrote.
    Each row: the mean DISTO score and interval on the common questions, the same on the file's own
    questions (``own``), and the word-frequency judge's options-only accuracy on each; each option
    file's ``minus_reference``: the mean per-question difference from the reference's score on the
    same questions with a paired bootstrap interval. Best first by the common mean.
    """
    by_id = {q.id: q for q in reference}
    for name, questions in sets.items():
        aligned(name=name, questions=questions, reference=by_id)
    written = [{q.id for q in qs} for qs in sets.values()]
    common = sorted(set.intersection(*written)) if written else []
    if len(common) < 2:
        raise ValueError(f"the option files have {len(common)} question(s) in common: too few to rank")
    union, shared = sorted(set.union(*written)), set(common)
    rows, per_question = [], {}
    for name, questions in {**sets, REFERENCE: [by_id[i] for i in union]}.items():
        scores = score_options(model=model, encoder=encoder, questions=questions)
        table = dict(zip((q.id for q in questions), scores, strict=True))
        keep = [q for q in questions if q.id in shared]
        per_question[name] = np.array([np.mean([s for s in table[q.id] if s is not None]) for q in keep])
        rows.append({
            "set": name,
            **set_summary(table=[table[q.id] for q in keep], seed=seed, resamples=resamples),
            "wordfreq_accuracy": wordfreq_accuracy(keep),
            "own": {**set_summary(table=list(table.values()), seed=seed, resamples=resamples),
                    "wordfreq_accuracy": wordfreq_accuracy(questions)},
        })  # fmt: skip
    for row in rows:  # paired: the same questions, so each question's context cancels out
        if row["set"] != REFERENCE:
            row["minus_reference"] = paired_difference(
                per_question[row["set"]] - per_question[REFERENCE], seed=seed, resamples=resamples
            )
    return {"common_ids": common, "ranking": sorted(rows, key=lambda r: -r["mean"])}


def paired_difference(differences: np.ndarray, *, seed: int = 0, resamples=RESAMPLES) -> dict:
    """Mean of per-question differences and its percentile bootstrap interval over questions."""
    from scipy.stats import bootstrap

    ci = bootstrap(
        (differences,), np.mean, n_resamples=resamples, confidence_level=LEVEL, method="percentile",
        random_state=np.random.default_rng(seed),
    )  # fmt: skip
    low, high = ci.confidence_interval
    return {"mean": float(differences.mean()), "low": float(low), "high": float(high)}


def wordfreq_options(*, questions: Sequence[Question], vocabulary: Sequence[str]) -> list[Question]:
    """Each question with its gold (at its place) and the four most frequent words of ``vocabulary``
    (by :func:`datagen.quality.distractor_bench.wordfreq_ranker`) other than the gold as distractors."""
    from datagen.quality.distractor_bench import wordfreq_ranker

    ranked = wordfreq_ranker(None, vocabulary)
    out = []
    for q in questions:
        if q.label is None:
            raise ValueError(f"question {q.id} has no label: the generator keeps the gold")
        gold = q.answer.strip().lower()
        words = [w for w in ranked if w != gold][: len(q.options) - 1]
        if len(words) < len(q.options) - 1:
            raise ValueError(
                f"the vocabulary has {len(words)} word(s) besides question {q.id}'s gold: 4 needed"
            )
        words.reverse()
        options = [q.answer if i == q.label else words.pop() for i in range(len(q.options))]
        out.append(
            Question(id=q.id, article=q.article, question=q.question, options=tuple(options), label=q.label)
        )
    return out
