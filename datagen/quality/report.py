"""Per-question quality report: does a question need its article? (pure core).

For each question: the five option scores of the LM with the article and without it (options-only,
the question alone), and of the word-frequency prior (:mod:`datagen.options.prior`). Per dataset: accuracy
with the article, options-only accuracy by both scorers, effective number of options and contextual
MI (:mod:`datagen.quality.calibration`), and the questions flagged as answerable without the article.

**Flag rule** (fixed before any measurement): a question is flagged when a calibrated options-only
scorer (the LM or the prior) gives the gold option probability >= ``FLAG_PROBABILITY`` = 0.5, i.e.
more than all four distractors together: a reader that never sees the article answers it by chance
of at least a coin toss. The report names which scorer(s) flagged it.

Scores are cached per question (``cache.jsonl``, keyed by a hash of the scorer's identity and the
text it sees), appended after each batch: an interrupted run resumes where it stopped.
"""

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from datagen.options.prior import NAME as PRIOR
from datagen.options.prior import prior_scores, wordfreq_version
from datagen.quality import calibration
from recam.records import Question
from recam.siblings import shared_articles, sibling_leaks

FLAG_PROBABILITY = 0.5
REPORT_VERSION = "quality-2"  # 2: the PMI rule, the sibling check, the generating run's yield
LM = "lm"
# with_article -> (n, 5) scores for a batch of questions
ScoreFn = Callable[[Sequence[Question], bool], np.ndarray]


def cache_key(*, scorer: str, question: Question, with_article: bool) -> str:
    """Hash of what a scorer sees of one question (the article only when it is given)."""
    text = json.dumps(
        [scorer, question.article if with_article else None, question.question, list(question.options)]
    )
    return hashlib.sha256(text.encode()).hexdigest()


def load_cache(path: Path) -> dict[str, list[float]]:
    """Cached scores; a torn last line (an interrupted write) is ignored."""
    cache: dict[str, list[float]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
                cache[record["key"]] = record["scores"]
            except (json.JSONDecodeError, KeyError, TypeError):
                continue
    return cache


def cached_scores(
    *,
    questions: Sequence[Question],
    score_fn: ScoreFn,
    scorer: str,
    with_article: bool,
    cache_path: Path,
    batch_size: int = 16,
    progress: Callable | None = None,
) -> np.ndarray:
    """``(n, 5)`` scores from the cache, computing (and appending) the missing ones batch by batch."""
    cache = load_cache(cache_path)
    keys = [cache_key(scorer=scorer, question=q, with_article=with_article) for q in questions]
    missing = [i for i, k in enumerate(keys) if k not in cache]
    cache_path.parent.mkdir(parents=True, exist_ok=True)
    with cache_path.open("a", encoding="utf-8") as handle:
        for start in range(0, len(missing), batch_size):
            chunk = missing[start : start + batch_size]
            scores = np.asarray(score_fn([questions[i] for i in chunk], with_article), dtype=float)
            for i, row in zip(chunk, scores, strict=True):
                cache[keys[i]] = [float(x) for x in row]
                handle.write(json.dumps({"key": keys[i], "scores": cache[keys[i]]}) + "\n")
            handle.flush()
            if progress is not None:
                progress(len(chunk))
    return np.array([cache[k] for k in keys], dtype=float)


def build_report(
    *,
    questions: Sequence[Question],
    lm_with: np.ndarray,
    lm_without: np.ndarray,
    provenance: dict,
    disto: dict | None = None,
) -> dict:
    """The report (a JSON-ready dict; schema in docs/reference/quality-report.md) from the LM's two score matrices.

    ``disto`` (optional): ``{"scores": per question the five options' DISTO scores, None at the gold,
    "model": what identifies the model}``; it adds a ``disto`` field per question and a summary.
    """
    labels = [q.label for q in questions]
    if any(label is None for label in labels):
        raise ValueError("the quality report needs gold labels on every question")
    prior = prior_scores(options=[q.options for q in questions])
    scores = {"with_article": lm_with, LM: lm_without, PRIOR: prior}
    probs, temps = {}, {}
    for name, matrix in scores.items():
        probs[name], temps[name] = calibration.kfold_probabilities(scores=matrix, labels=labels)
    eff = {name: calibration.effective_options(probs[name]) for name in (LM, PRIOR)}
    mi = calibration.contextual_mi(options_only=probs[LM], with_article=probs["with_article"])
    rows, flagged = [], 0
    for i, q in enumerate(questions):
        by = [name for name in (LM, PRIOR) if probs[name][i, q.label] >= FLAG_PROBABILITY]
        flagged += bool(by)
        rows.append(_question_row(q=q, i=i, scores=scores, probs=probs, eff=eff, mi=mi, flagged_by=by))
    report = {
        "with_article_accuracy": calibration.accuracy(scores=lm_with, labels=labels),
        # the zero-shot PMI rule: each option by its with-article minus its options-only log-likelihood
        "pmi_accuracy": calibration.accuracy(scores=lm_with - lm_without, labels=labels),
        "siblings": sibling_row(questions),
        "options_only_accuracy": {
            n: calibration.accuracy(scores=scores[n], labels=labels) for n in (LM, PRIOR)
        },
        "effective_options": {n: float(eff[n].mean()) for n in (LM, PRIOR)},
        "contextual_mi": float(mi.mean()),
        "n_questions": len(questions),
        "flagged": {
            "count": flagged,
            "share": flagged / len(questions) if questions else 0.0,
            "rule": f"calibrated options-only P(gold) >= {FLAG_PROBABILITY} by the LM or the prior",
        },
        "calibration": {"rule": "max-likelihood T, 5-fold by question", "temperatures": temps},
        "scorers": provenance.get("scorers", {}),
        "versions": {
            "report": REPORT_VERSION,
            "wordfreq": wordfreq_version(),
            **provenance.get("versions", {}),
        },
        "input": provenance.get("input", {}),
        "questions": rows,
    }
    if disto is not None:
        _add_disto(report, disto)
    return report


def _add_disto(report: dict, disto: dict) -> None:
    scores = disto["scores"]
    if len(scores) != len(report["questions"]):
        raise ValueError(f"{len(scores)} rows of DISTO scores for {len(report['questions'])} questions")
    for row, per_option in zip(report["questions"], scores, strict=True):
        row["disto"] = [None if s is None else round(float(s), 4) for s in per_option]
    values = [s for per_option in scores for s in per_option if s is not None]
    report["disto"] = {
        "mean_distractor_score": float(np.mean(values)) if values else None,
        "distractors": len(values),
        "model": disto.get("model", {}),
    }


def sibling_row(questions: Sequence[Question]) -> dict:
    """The set-level sibling check (:mod:`recam.siblings`): leaks, their pairs, shared articles."""
    leaks = sibling_leaks(questions)
    return {
        "leaks": len(leaks),
        "pairs": [leak.describe() for leak in leaks[:20]],
        "articles_with_several_questions": len(shared_articles(questions)),
        "refused": bool(leaks),
    }


def _question_row(*, q, i, scores, probs, eff, mi, flagged_by) -> dict:
    def r(values) -> list[float]:
        return [round(float(x), 4) for x in values]

    return {
        "id": q.id,
        "label": q.label,
        "options": list(q.options),
        "scores": {name: r(matrix[i]) for name, matrix in scores.items()},
        "probabilities": {name: r(p[i]) for name, p in probs.items()},
        "effective_options": {name: round(float(e[i]), 4) for name, e in eff.items()},
        "contextual_mi": round(float(mi[i]), 4),
        "flagged": bool(flagged_by),
        "flagged_by": flagged_by,
    }


def generation_row(report_path: Path) -> dict | None:
    """The yield and cost of the ``datagen options`` run that wrote the input (its ``.report.json``)."""
    if not report_path.is_file():
        return None
    found = json.loads(report_path.read_text(encoding="utf-8"))
    candidates = sum(found.get("sizes", {}).get("Candidates", {}).values())
    written = sum(found.get("sizes", {}).get("Questions", {}).values())
    return {
        "report": str(report_path),
        "candidates": candidates,
        "written": written,
        "yield": written / candidates if candidates else None,
        "gate_version": found.get("provenance", {}).get("options", {}).get("gate_version"),
        "cost": found.get("cost"),
        "explanation": found.get("explanation"),
    }


def summary_line(report: dict) -> str:
    oo, eff = report["options_only_accuracy"], report["effective_options"]
    return (
        f"{report['n_questions']} questions: with-article {100 * report['with_article_accuracy']:.1f}%, "
        f"options-only LM {100 * oo[LM]:.1f}% / {PRIOR} {100 * oo[PRIOR]:.1f}%, "
        f"effective options LM {eff[LM]:.2f} / {PRIOR} {eff[PRIOR]:.2f}, "
        f"contextual MI {report['contextual_mi']:.3f} nats, flagged {report['flagged']['count']}"
        + _disto_summary(report)
    )


def _disto_summary(report: dict) -> str:
    mean = report.get("disto", {}).get("mean_distractor_score")
    return "" if mean is None else f", mean DISTO of the distractors {mean:.3f}"
