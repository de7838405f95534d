"""Uncertainty for the leaderboard: bootstrap intervals over questions and statistically tied ranks.

Pure (no Django). Inputs are per-question correctness vectors (1 = right, 0 = wrong) over the SAME
questions in the same order (the gold ids, sorted), as ``correctness`` builds them.

- Intervals: ``scipy.stats.bootstrap`` (percentile method, seeded, 1,000 resamples by default), over
  questions; the drop (Acc minus Acc. Cross) is bootstrapped paired, both vectors resampled together.
- Ranks: rank = 1 + the number of entries significantly better than this one (as LMArena ranks), where
  "significantly better" is an exact McNemar test (two-sided binomial test on the discordant questions,
  ``scipy.stats.binomtest``'s p-value, computed vectorised from ``scipy.stats.binom``) and the p-values
  of all pairs are corrected together with Holm's step-down method (``holm_adjust``: vectorised numpy,
  tested equal to ``statsmodels.stats.multitest.multipletests(method="holm")``, which runs a full
  ``gc.collect()`` on every call: ~180 ms in a worker whose heap holds torch).
  Entries with the same rank share it ("tied").
- ``PairwiseCounts`` keeps the discordant counts of every pair between calls, so a change of one
  entry costs one matrix-vector product (its row and column), not the whole matrix.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as scipy_stats

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 20210401
DEFAULT_LEVEL = 0.95
DEFAULT_ALPHA = 0.05
METHOD = "percentile"
TEST_NAME = "exact McNemar test (two-sided), Holm-corrected over all pairs"


@dataclass(frozen=True)
class Interval:
    estimate: float
    lo: float
    hi: float

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2


@dataclass(frozen=True)
class Ranking:
    ranks: tuple[int, ...]  # 1 + number of entries significantly better, per entry (input order)
    tied_with: tuple[tuple[int, ...], ...]  # indexes of the other entries sharing the rank
    better: np.ndarray  # [i, j]: entry i is significantly better than entry j
    p_adjusted: np.ndarray  # symmetric matrix of Holm-adjusted p-values (1 on the diagonal)
    test: str = TEST_NAME
    alpha: float = DEFAULT_ALPHA

    @property
    def better_than(self) -> tuple[tuple[int, ...], ...]:
        """Per entry, the indexes of the entries significantly worse than it (built when asked: n x n)."""
        return tuple(tuple(int(j) for j in np.flatnonzero(row)) for row in self.better)


def correctness(*, predictions: Mapping[int, int], gold: Mapping[int, int]) -> np.ndarray:
    """0/1 vector over the gold ids in sorted order; a missing prediction is wrong (as the scorer counts)."""
    ids = sorted(gold)
    return np.fromiter((predictions.get(i, -1) == gold[i] for i in ids), dtype=np.int8, count=len(ids))


def answer_strings(*, predictions: Mapping[int, int], gold: Mapping[int, int]) -> tuple[str, str]:
    """(chosen option per gold id, "-" if none; "1"/"0" right or wrong per gold id), gold ids sorted.

    >>> answer_strings(predictions={1: 2, 3: 0}, gold={3: 0, 1: 4, 2: 1})
    ('2-0', '001')
    """
    ids = sorted(gold)
    choices = "".join(str(predictions[i]) if i in predictions else "-" for i in ids)
    correct = (correctness(predictions=predictions, gold=gold) + ord("0")).astype(np.uint8).tobytes().decode()
    return choices, correct


def _as_vector(values: Sequence[int] | np.ndarray) -> np.ndarray:
    vector = np.asarray(values, dtype=np.float64)
    if vector.ndim != 1 or vector.size == 0:
        raise ValueError(f"expected a non-empty 1-d correctness vector, got shape {vector.shape}")
    return vector


def accuracy_interval(
    *,
    correct: Sequence[int] | np.ndarray,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> Interval:
    """Percentile bootstrap interval of the accuracy, resampling questions with replacement."""
    vector = _as_vector(correct)
    estimate = float(vector.mean())
    if np.all(vector == vector[0]):  # every resample has the same mean: the interval is the point
        return Interval(estimate, estimate, estimate)
    result = scipy_stats.bootstrap(
        (vector,),
        np.mean,
        n_resamples=resamples,
        confidence_level=level,
        method=METHOD,
        rng=np.random.default_rng(seed),
        vectorized=True,
    )
    ci = result.confidence_interval
    return Interval(estimate, float(ci.low), float(ci.high))


def _difference(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(a, axis=axis) - np.mean(b, axis=axis)


def difference_interval(
    *,
    correct: Sequence[int] | np.ndarray,
    other: Sequence[int] | np.ndarray,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> Interval:
    """Paired bootstrap interval of accuracy(correct) - accuracy(other) over the same questions (the drop)."""
    a, b = _as_vector(correct), _as_vector(other)
    if a.shape != b.shape:
        raise ValueError(f"paired vectors differ in length: {a.size} and {b.size}")
    estimate = float(a.mean() - b.mean())
    if np.all(a - b == (a - b)[0]):
        return Interval(estimate, estimate, estimate)
    result = scipy_stats.bootstrap(
        (a, b),
        _difference,
        n_resamples=resamples,
        confidence_level=level,
        method=METHOD,
        paired=True,
        rng=np.random.default_rng(seed),
        vectorized=True,
    )
    ci = result.confidence_interval
    return Interval(estimate, float(ci.low), float(ci.high))


def mcnemar_exact(*, correct: Sequence[int] | np.ndarray, other: Sequence[int] | np.ndarray) -> float:
    """Exact two-sided McNemar p-value of one pair (``scipy.stats.binomtest`` on the discordant questions)."""
    a, b = np.asarray(correct, dtype=bool), np.asarray(other, dtype=bool)
    only_a, only_b = int(np.sum(a & ~b)), int(np.sum(~a & b))
    if only_a + only_b == 0:
        return 1.0
    return float(scipy_stats.binomtest(only_a, only_a + only_b, 0.5).pvalue)


def _right_wrong(matrix: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """[i, j]: questions row i got right and row j got wrong (of ``rows`` against all rows, or all pairs).

    float32 matrix products (BLAS) are exact here: the counts stay far below 2**24.
    """
    m = np.asarray(matrix, dtype=np.float32)
    part = m if rows is None else m[rows]
    return np.rint(part @ (1.0 - m).T).astype(np.int64)  # Shape: (len(rows) or n, n)


def _p_values(only_a: np.ndarray, only_b: np.ndarray) -> np.ndarray:
    """Exact two-sided McNemar p-values from the discordant counts each way (elementwise)."""
    discordant = only_a + only_b
    p = np.minimum(1.0, 2.0 * scipy_stats.binom.cdf(np.minimum(only_a, only_b), discordant, 0.5))
    p[discordant == 0] = 1.0
    return p


def mcnemar_p_values(right_wrong: np.ndarray) -> np.ndarray:
    """Exact two-sided McNemar p-values from the (n x n) counts of ``_right_wrong``.

    For p = 1/2 the binomial is symmetric, so the two-sided exact p-value is min(1, 2 * P(X <= min(b, c)))
    with X ~ Binomial(b + c, 1/2): the value ``binomtest`` returns (tests check the two agree).
    """
    p = _p_values(right_wrong, right_wrong.T)
    np.fill_diagonal(p, 1.0)
    return p


def pairwise_mcnemar(matrix: np.ndarray) -> np.ndarray:
    """Exact McNemar p-values of every pair of rows of a (entries x questions) 0/1 matrix, vectorised."""
    return mcnemar_p_values(_right_wrong(matrix))


def holm_adjust(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values, in the input order (what ``multipletests(method="holm")`` returns).

    >>> holm_adjust([0.01, 0.04, 0.03]).round(2).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=np.float64)
    order = np.argsort(p, kind="stable")
    m = p.size
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])  # never below the previous step
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


class PairwiseCounts:
    """The discordant counts of every pair of entries, updated for the entries that changed only.

    ``update(keys=..., matrix=...)`` takes the rows now on the board, each with a key that changes when
    its answers change (e.g. the counted score id and the gold sha256). Rows whose key was seen before
    keep their counts; the changed ones get a new row and column (one product against the board).
    The result equals ``_right_wrong(matrix)`` exactly (integer counts); tests check it.
    """

    def __init__(self) -> None:
        self.keys_: tuple = ()
        self.right_wrong_ = np.zeros((0, 0), dtype=np.int64)
        self.p_values_ = np.ones((0, 0))  # the pairs' exact McNemar p-values, updated the same way
        self.rows_computed_ = 0  # rows computed by the last update (the cost, for benchmarks)

    def update(self, *, keys: Sequence, matrix: np.ndarray) -> np.ndarray:
        keys = tuple(keys)
        if len(keys) != len(matrix):
            raise ValueError(f"{len(keys)} keys for {len(matrix)} rows")
        old = {key: i for i, key in enumerate(self.keys_)}
        kept = [i for i, key in enumerate(keys) if key in old]
        changed = np.array([i for i, key in enumerate(keys) if key not in old], dtype=np.int64)
        n = len(keys)
        counts = np.zeros((n, n), dtype=np.int64)
        p_values = np.ones((n, n))
        if kept:
            source = np.array([old[keys[i]] for i in kept])
            counts[np.ix_(kept, kept)] = self.right_wrong_[np.ix_(source, source)]
            p_values[np.ix_(kept, kept)] = self.p_values_[np.ix_(source, source)]
        if changed.size:
            rows = _right_wrong(matrix, changed)  # Shape: (changed, n): changed right, others wrong
            counts[changed, :] = rows
            m = np.asarray(matrix, dtype=np.float32)
            counts[:, changed] = np.rint((1.0 - m[changed]) @ m.T).T.astype(np.int64)
            fresh = _p_values(counts[changed, :], counts[:, changed].T)  # Shape: (changed, n)
            p_values[changed, :] = fresh
            p_values[:, changed] = fresh.T
            p_values[changed, changed] = 1.0
        self.keys_, self.right_wrong_, self.p_values_ = keys, counts, p_values
        self.rows_computed_ = int(changed.size)
        return counts


def rank_entries(
    *,
    matrix: np.ndarray,
    alpha: float = DEFAULT_ALPHA,
    right_wrong: np.ndarray | None = None,
    p_values: np.ndarray | None = None,
) -> Ranking:
    """Ranks with statistical ties for the rows of a (entries x questions) 0/1 matrix.

    ``right_wrong`` or ``p_values`` (from ``PairwiseCounts``) save recounting the pairs when known.
    """
    m = np.asarray(matrix)
    n = m.shape[0]
    if n == 0:
        return Ranking((), (), np.zeros((0, 0), dtype=bool), np.ones((0, 0)), alpha=alpha)
    if p_values is not None:
        p = p_values
    else:
        p = mcnemar_p_values(_right_wrong(m) if right_wrong is None else right_wrong)
    upper = np.triu_indices(n, k=1)
    adjusted = np.ones((n, n))
    if upper[0].size:
        corrected = holm_adjust(p[upper])
        adjusted[upper] = corrected
        adjusted.T[upper] = corrected
    accuracy = m.mean(axis=1)
    significant = adjusted <= alpha
    np.fill_diagonal(significant, False)
    better = significant & (accuracy[:, None] > accuracy[None, :])  # [i, j]: i significantly better than j
    ranks = 1 + better.sum(axis=0)
    return Ranking(tuple(int(r) for r in ranks), tied_with(ranks), better, adjusted, alpha=alpha)


def tied_with(ranks: Sequence[int] | np.ndarray) -> tuple[tuple[int, ...], ...]:
    """For each entry, the indexes of the others with the same rank (grouped once, not n x n).

    >>> tied_with([1, 2, 2, 4])
    ((), (2,), (1,), ())
    """
    groups: dict[int, list[int]] = {}
    for index, rank in enumerate(ranks):
        groups.setdefault(int(rank), []).append(index)
    return tuple(tuple(j for j in groups[int(rank)] if j != i) for i, rank in enumerate(ranks))
