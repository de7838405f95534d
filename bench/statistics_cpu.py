"""(j) Statistics CPU per score change at 10 / 100 / 500 teams x 2,025 questions, in process (pure ``recam.stats``).

A burst of 20 score changes (20 teams' counted files change). Three ways, CPU seconds (``process_time``):

- ``per_change_full``: what scoring did before, per change: all pairs counted again (int32 matrix
  product), ``statsmodels`` Holm (its ``gc.collect()`` included) and the changed row's interval;
- ``per_change_incremental``: one recompute per change, with ``PairwiseCounts`` (one row and column)
  and ``holm_adjust``;
- ``per_burst``: what the debounced statistics task does: one recompute for the 20 changes, divided by 20.

Recomputes per burst with a real worker are counted by (b) (``statistics_recomputes``).
"""

import time

import numpy as np
from scipy import stats as scipy_stats

from recam import stats

QUESTIONS, BURST = 2025, 20


def _old_rank(matrix: np.ndarray) -> None:
    from statsmodels.stats.multitest import multipletests

    m = np.asarray(matrix, dtype=np.int32)
    right_wrong = m @ (1 - m).T
    discordant = right_wrong + right_wrong.T
    p = np.minimum(1.0, 2.0 * scipy_stats.binom.cdf(np.minimum(right_wrong, right_wrong.T), discordant, 0.5))
    p[discordant == 0] = 1.0
    upper = np.triu_indices(len(m), k=1)
    multipletests(p[upper], alpha=0.05, method="holm")


def _cpu(function) -> float:
    start = time.process_time()
    function()
    return time.process_time() - start


def _one(teams: int, seed: int = 3) -> dict:
    rng = np.random.default_rng(seed)
    quality = np.linspace(0.3, 0.8, teams)[:, None]
    matrix = (rng.random((teams, QUESTIONS)) < quality).astype(np.int8)  # Shape: (teams, questions)
    keys = list(range(teams))
    counts = stats.PairwiseCounts()
    counts.update(keys=keys, matrix=matrix)  # the worker's warm state before the burst
    changed = rng.choice(teams, size=min(BURST, teams), replace=False)
    new_rows = (rng.random((len(changed), QUESTIONS)) < 0.6).astype(np.int8)

    def full_per_change() -> None:
        m = matrix.copy()
        for row, values in zip(changed, new_rows, strict=True):
            m[row] = values
            _old_rank(m)
            stats.accuracy_interval(correct=values)

    def incremental(per_change: bool) -> None:
        state = stats.PairwiseCounts()
        state.update(keys=keys, matrix=matrix)
        m, k = matrix.copy(), list(keys)
        for step, (row, values) in enumerate(zip(changed, new_rows, strict=True)):
            m[row], k[row] = values, 10_000 + step
            if per_change:
                state.update(keys=k, matrix=m)
                stats.rank_entries(matrix=m, p_values=state.p_values_)
            stats.accuracy_interval(correct=values)
        if not per_change:
            state.update(keys=k, matrix=m)
            stats.rank_entries(matrix=m, p_values=state.p_values_)

    n = len(changed)
    full = _cpu(full_per_change) / n
    warm = stats.PairwiseCounts()
    setup = _cpu(lambda: warm.update(keys=keys, matrix=matrix))
    per_change = (_cpu(lambda: incremental(True)) - setup) / n
    per_burst = (_cpu(lambda: incremental(False)) - setup) / n
    return {
        "teams": teams,
        "changes": n,
        "cpu_ms_per_change_full_before": round(full * 1000, 1),
        "cpu_ms_per_change_incremental": round(per_change * 1000, 1),
        "cpu_ms_per_change_one_recompute_per_burst": round(per_burst * 1000, 1),
    }


def run_statistics_cpu(*, teams=(10, 100, 500)) -> dict:
    import os

    rows = [_one(t) for t in teams]
    return {
        "questions": QUESTIONS,
        "burst": BURST,
        "target": "<= 50 ms CPU of statistics per score change at 500 teams, averaged over a burst",
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "rows": rows,
    }
