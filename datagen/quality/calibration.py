"""Temperature calibration, entropy, effective number of options and contextual MI.

Definitions after Liusie et al. (``../shared/papers/004``, RACE++): for one question with calibrated
option probabilities ``p``, the effective number of options is ``exp(H(p))`` (1 .. 5); the contextual
mutual information is ``H(answer | options) - H(answer | article, options)``, the entropy of the
options-only distribution minus the entropy of the article-aware one. Dataset figures are the means
over questions (the paper plots per-question values; we report their mean).

Calibration (Guo et al., 2017): probabilities are ``softmax(scores / T)`` with one temperature ``T``
per scorer. **Rule:** ``T`` maximises the likelihood of the gold labels, fitted k-fold (``K_FOLDS``
folds by question position, seeded): each question's probabilities use a ``T`` fitted on the other
folds only, so no question calibrates itself. The paper matched accuracy to mean confidence instead;
maximum likelihood is the standard fit and uses the same labels. Files without labels: ``T = 1``.
"""

from collections.abc import Sequence

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import log_softmax, softmax
from scipy.stats import entropy

from recam import metrics

K_FOLDS = 5
LOG_T_BOUNDS = (-6.0, 6.0)  # T between 0.0025 and 403


def nll(*, scores: np.ndarray, labels: np.ndarray, temperature: float) -> float:
    """Mean negative log-likelihood of the labels under ``softmax(scores / temperature)``."""
    logp = log_softmax(np.asarray(scores, dtype=float) / temperature, axis=1)
    return float(-logp[np.arange(len(labels)), labels].mean())


def fit_temperature(*, scores: np.ndarray, labels: np.ndarray) -> float:
    """The maximum-likelihood temperature (searched on log T within ``LOG_T_BOUNDS``)."""
    if len(labels) == 0:
        return 1.0
    result = minimize_scalar(
        lambda log_t: nll(scores=scores, labels=labels, temperature=float(np.exp(log_t))),
        bounds=LOG_T_BOUNDS,
        method="bounded",
    )
    return float(np.exp(result.x))


def fold_of(*, n: int, folds: int = K_FOLDS, seed: int = 13) -> np.ndarray:
    """A seeded assignment of ``n`` questions to ``folds`` folds of (nearly) equal size."""
    order = np.random.default_rng(seed).permutation(n)
    assignment = np.empty(n, dtype=int)
    assignment[order] = np.arange(n) % folds
    return assignment


def kfold_probabilities(
    *, scores: np.ndarray, labels: Sequence[int | None], folds: int = K_FOLDS, seed: int = 13
) -> tuple[np.ndarray, list[float]]:
    """Calibrated probabilities of every question, each from a T fitted on the other folds.

    Returns the probabilities and the fitted temperatures (one per fold; ``[1.0]`` without labels or
    with fewer questions than folds, when T = 1 is used for all).
    """
    scores = np.asarray(scores, dtype=float)
    if any(label is None for label in labels) or len(labels) < folds:
        return softmax(scores, axis=1), [1.0]
    gold = np.asarray(labels, dtype=int)
    fold = fold_of(n=len(gold), folds=folds, seed=seed)
    probs = np.empty_like(scores)
    temperatures = []
    for k in range(folds):
        held = fold == k
        t = fit_temperature(scores=scores[~held], labels=gold[~held])
        temperatures.append(t)
        probs[held] = softmax(scores[held] / t, axis=1)
    return probs, temperatures


def entropies(probs: np.ndarray) -> np.ndarray:
    """Per-question entropy in nats."""
    return entropy(np.asarray(probs, dtype=float), axis=1)


def effective_options(probs: np.ndarray) -> np.ndarray:
    """Per-question effective number of options, ``exp(H)``."""
    return np.exp(entropies(probs))


def contextual_mi(*, options_only: np.ndarray, with_article: np.ndarray) -> np.ndarray:
    """Per-question ``H(answer | options) - H(answer | article, options)`` in nats (may be negative)."""
    return entropies(options_only) - entropies(with_article)


def accuracy(*, scores: np.ndarray, labels: Sequence[int]) -> float:
    """Share of questions whose best-scoring option is the gold (first maximum on ties), by the one scorer."""
    predictions = [int(i) for i in np.argmax(np.asarray(scores), axis=1)]
    return metrics.accuracy(predictions=predictions, references=list(labels))["accuracy"]
