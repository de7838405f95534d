"""recam.stats against known cases: identical files tie, one differing question ties, clearly better ranks above."""

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from recam.stats import (
    accuracy_interval,
    correctness,
    difference_interval,
    mcnemar_exact,
    pairwise_mcnemar,
    rank_entries,
)


def _vector(p: float, n: int = 2025, seed: int = 0) -> np.ndarray:
    return (np.random.default_rng(seed).random(n) < p).astype(np.int8)


def test_correctness_counts_a_missing_prediction_as_wrong():
    assert correctness(predictions={0: 1, 2: 3}, gold={2: 3, 0: 1, 1: 4}).tolist() == [1, 0, 1]


def test_identical_files_tie():
    x = _vector(0.6)
    ranking = rank_entries(matrix=np.stack([x, x.copy()]))
    assert ranking.ranks == (1, 1)
    assert ranking.tied_with == ((1,), (0,))
    assert ranking.p_adjusted[0, 1] == 1.0


def test_a_file_differing_on_one_question_ties_with_its_original():
    x = _vector(0.6)
    y = x.copy()
    y[np.flatnonzero(x == 0)[0]] = 1  # one more right answer
    ranking = rank_entries(matrix=np.stack([y, x]))
    assert y.mean() > x.mean()
    assert ranking.ranks == (1, 1)


def test_a_clearly_better_file_ranks_above():
    x = _vector(0.5)
    better = x.copy()
    better[np.flatnonzero(x == 0)[:200]] = 1  # +10 points on the same questions
    ranking = rank_entries(matrix=np.stack([x, better]))
    assert ranking.ranks == (2, 1)
    assert ranking.tied_with == ((), ())
    assert ranking.better_than == ((), (0,))


def test_ranks_count_only_significantly_better_entries_with_holm():
    base = _vector(0.5, seed=1)
    up = base.copy()
    up[np.flatnonzero(base == 0)[:300]] = 1
    near = up.copy()
    near[np.flatnonzero(up == 0)[:3]] = 1
    ranking = rank_entries(matrix=np.stack([base, up, near]))
    assert ranking.ranks == (3, 1, 1)  # up and near tie; both beat base
    assert ranking.tied_with[1] == (2,)
    raw = pairwise_mcnemar(np.stack([base, up, near]))
    # Holm: the adjusted p-value of a pair is never below the raw one.
    assert np.all(ranking.p_adjusted >= raw - 1e-15)


def test_vectorised_pvalues_equal_scipy_binomtest():
    rng = np.random.default_rng(3)
    m = (rng.random((6, 300)) < np.linspace(0.3, 0.7, 6)[:, None]).astype(np.int8)
    p = pairwise_mcnemar(m)
    for i in range(6):
        for j in range(6):
            if i != j:
                assert p[i, j] == pytest.approx(mcnemar_exact(correct=m[i], other=m[j]), rel=1e-9)
    assert mcnemar_exact(correct=[1, 1, 0], other=[1, 0, 0]) == scipy_stats.binomtest(1, 1, 0.5).pvalue


def test_interval_is_seeded_and_contains_the_estimate():
    x = _vector(0.614)
    first, second = accuracy_interval(correct=x), accuracy_interval(correct=x)
    assert first == second
    assert first.lo < first.estimate < first.hi
    # one standard error is about sqrt(p(1-p)/n): the 95% half width is close to 1.96 of them
    se = math.sqrt(x.mean() * (1 - x.mean()) / x.size)
    assert first.half_width == pytest.approx(1.96 * se, rel=0.15)
    assert accuracy_interval(correct=x, seed=1) != first


def test_degenerate_vectors_give_a_point_interval():
    interval = accuracy_interval(correct=[1, 1, 1])
    assert (interval.lo, interval.hi) == (1.0, 1.0)
    assert difference_interval(correct=[1, 0], other=[1, 0]).hi == 0.0
    with pytest.raises(ValueError, match="non-empty"):
        accuracy_interval(correct=[])
    with pytest.raises(ValueError, match="differ in length"):
        difference_interval(correct=[1, 0], other=[1])


def test_paired_drop_interval_is_narrower_than_unpaired_widths():
    same = _vector(0.6, seed=4)
    cross = same.copy()
    cross[np.flatnonzero(same == 1)[:60]] = 0  # 3 points lower on the same questions
    drop = difference_interval(correct=same, other=cross)
    assert drop.estimate == pytest.approx(60 / same.size)
    assert 0 < drop.lo < drop.estimate < drop.hi
    # pairing: far narrower than the two accuracy intervals combined
    assert drop.half_width < accuracy_interval(correct=same).half_width


@pytest.mark.parametrize("paired", [False, True])
def test_intervals_cover_the_truth_near_the_nominal_rate(paired):
    """Seeded simulation: 300 data sets; coverage within 3 binomial standard errors of 95%."""
    rng = np.random.default_rng(2021)
    runs, n, covered = 300, 400, 0
    for run in range(runs):
        if paired:  # drop between two correlated systems: true difference 0.05
            a = (rng.random(n) < 0.65).astype(np.int8)
            b = np.where(rng.random(n) < 0.8, a, (rng.random(n) < 0.65 - 0.25).astype(np.int8))
            truth = 0.65 - (0.8 * 0.65 + 0.2 * 0.40)
            interval = difference_interval(correct=a, other=b, seed=run)
        else:
            truth = 0.62
            interval = accuracy_interval(correct=(rng.random(n) < truth).astype(np.int8), seed=run)
        covered += interval.lo <= truth <= interval.hi
    tolerance = 3 * math.sqrt(0.95 * 0.05 / runs)
    assert abs(covered / runs - 0.95) <= tolerance, covered / runs


@pytest.mark.parametrize("seed", range(6))
def test_holm_adjust_equals_statsmodels_on_random_inputs(seed):
    from statsmodels.stats.multitest import multipletests

    from recam.stats import holm_adjust

    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 400))
    p = rng.random(size) ** 3
    p[rng.random(size) < 0.2] = 1.0  # ties at 1, as pairs with no discordant question give
    p[: size // 4] = p[0]  # and ties anywhere else
    expected = multipletests(p, alpha=0.05, method="holm")[1]
    np.testing.assert_allclose(holm_adjust(p), expected, rtol=0, atol=1e-15)


def test_pairwise_counts_updated_for_changed_rows_equal_a_full_count():
    from recam.stats import PairwiseCounts, _right_wrong

    rng = np.random.default_rng(7)
    matrix = (rng.random((12, 300)) < np.linspace(0.3, 0.8, 12)[:, None]).astype(np.int8)
    keys = list(range(12))
    counts = PairwiseCounts()
    np.testing.assert_array_equal(counts.update(keys=keys, matrix=matrix), _right_wrong(matrix))
    assert counts.rows_computed_ == 12
    for step in range(5):  # one team re-uploads, one joins, one leaves: only those rows are computed
        changed = int(rng.integers(len(keys)))
        matrix[changed] = rng.random(300) < 0.6
        keys[changed] = 100 + step
        matrix = np.vstack([matrix[1:], (rng.random((1, 300)) < 0.5).astype(np.int8)])
        keys = [*keys[1:], 200 + step]
        got = counts.update(keys=keys, matrix=matrix)
        np.testing.assert_array_equal(got, _right_wrong(matrix))
        assert counts.rows_computed_ <= 2
        np.testing.assert_array_equal(counts.p_values_, pairwise_mcnemar(matrix))
        fast, full = rank_entries(matrix=matrix, p_values=counts.p_values_), rank_entries(matrix=matrix)
        assert (fast.ranks, fast.tied_with) == (full.ranks, full.tied_with)
        np.testing.assert_array_equal(fast.p_adjusted, full.p_adjusted)
