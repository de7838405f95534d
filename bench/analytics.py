"""(e) Statistics cost: per-question analytics of 60 teams x 2,025 questions, and one board's tied ranks.

Pure recam (no Django, no database): the answers are drawn from a 2PL model so the IRT fit has the
structure of a real board. Target: the analytics finish in under 10 s on this machine.
"""

import time

import numpy as np

from recam.analytics import IRT_ITERATIONS, IRT_METHOD, IRT_TOLERANCE, analyse
from recam.stats import DEFAULT_RESAMPLES, accuracy_interval, difference_interval, rank_entries


def _simulated(*, teams: int, questions: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    ability, difficulty = rng.normal(size=teams), rng.normal(size=questions)
    discrimination = rng.uniform(0.5, 2.0, size=questions)
    p = 1 / (1 + np.exp(-discrimination[None, :] * (ability[:, None] - difficulty[None, :])))
    gold = rng.integers(0, 5, size=questions)
    wrong = (gold[None, :] + rng.integers(1, 5, size=(teams, questions))) % 5
    return np.where(rng.random((teams, questions)) < p, gold[None, :], wrong).astype(np.int8), gold


def run_analytics(*, teams: int = 60, questions: int = 2025, board_teams: int = 200, seed: int = 13) -> dict:
    choices, gold = _simulated(teams=teams, questions=questions, seed=seed)
    start, cpu_start = time.perf_counter(), time.process_time()
    result = analyse(
        choices=choices, gold=gold, teams=[f"t{i}" for i in range(teams)], question_ids=list(range(questions))
    )
    analytics_s, analytics_cpu = time.perf_counter() - start, time.process_time() - cpu_start
    board, board_gold = _simulated(teams=board_teams, questions=questions, seed=seed + 1)
    correct = (board == board_gold[None, :]).astype(np.int8)
    start = time.perf_counter()
    ranking = rank_entries(matrix=correct)
    ranks_s = time.perf_counter() - start
    start = time.perf_counter()
    accuracy_interval(correct=correct[0])
    accuracy_interval(correct=correct[1])
    difference_interval(correct=correct[0], other=correct[1])
    intervals_s = time.perf_counter() - start
    flagged = sum(bool(q.flags) for q in result.questions)
    return {
        "analytics_teams": teams,
        "analytics_questions": questions,
        "analytics_seconds": round(analytics_s, 2),
        # CPU-seconds of this process (all its threads): on a shared machine the wall time includes waiting
        "analytics_cpu_seconds": round(analytics_cpu, 2),
        "analytics_target_seconds": 10,
        "irt": f"{IRT_METHOD}; at most {IRT_ITERATIONS} rounds, stop when difficulties move < {IRT_TOLERANCE}",
        "questions_flagged": flagged,
        "board_teams": board_teams,
        "ranks_seconds": round(ranks_s, 3),
        "distinct_ranks": len(set(ranking.ranks)),
        "one_row_intervals_seconds": round(intervals_s, 3),
        "bootstrap_resamples": DEFAULT_RESAMPLES,
    }
