import numpy as np

from datagen.targets.contextual import equal_error_threshold


def test_equal_error_threshold_balances_the_two_error_rates():
    rng = np.random.default_rng(0)
    same = rng.uniform(0.7, 1.0, 4000)
    different = rng.uniform(0.2, 0.8, 4000)
    t = equal_error_threshold(same=same, different=different)
    # P(same < t) = (t - 0.7) / 0.3 and P(different > t) = (0.8 - t) / 0.6 meet at t = 0.7333
    assert abs(t - 0.7333) < 0.01
    assert abs(np.mean(same < t) - np.mean(different > t)) < 0.02


def test_equal_error_threshold_moves_with_the_distributions():
    rng = np.random.default_rng(1)
    low = equal_error_threshold(same=rng.uniform(0.5, 0.9, 1000), different=rng.uniform(0.1, 0.6, 1000))
    high = equal_error_threshold(same=rng.uniform(0.8, 1.0, 1000), different=rng.uniform(0.4, 0.9, 1000))
    assert low < high
