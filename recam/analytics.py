"""Per-question analytics of a closed phase: who got each question right, which options were picked, item fit.

Pure (no Django). Input: a (teams x questions) matrix of chosen options (0-4, -1 for none) and the gold
options. Libraries: ``scipy.stats.pearsonr`` (vectorised point-biserial r) for discrimination (item vs
rest score); the 2-parameter IRT fit (girth.twopl_jml's joint maximum likelihood with vectorised steps,
abilities by ``girth.ability_map``) lives in ``recam.irt`` and is re-exported here. Why:
docs/statistics.md ("Item response theory").

Flags, by stated rules (not tuned on any data):
- ``strong_agree_wrong``: more than half of the strong teams (the top quarter by accuracy, at least 3
  teams) chose the same wrong option: a likely mislabelled or ambiguous question. Only raised when the
  strong teams are at most half of the board (6 teams or more): on a smaller board "strong" would take in
  teams below the median (on 3 teams, everyone), and the flag would mark every question most teams miss;
- ``none_right``: no team chose the gold option;
- ``unpicked_distractors``: wrong options no team chose. Only raised with at least as many teams as
  distractors (4): with fewer, some distractor is unpicked on every question by arithmetic.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as scipy_stats

from recam.irt import (  # re-exported: the IRT fit moved to recam.irt
    ABILITY_BOUNDS,
    DIFFICULTY_BOUNDS,
    DISCRIMINATION_BOUNDS,
    IRT_ITERATIONS,
    IRT_METHOD,
    IRT_TOLERANCE,
    fit_2pl,
    irt_fit,
)

OPTIONS = 5
STRONG_SHARE = 0.25  # the top quarter of teams by accuracy
STRONG_MIN = 3
AGREE_SHARE = 0.5  # more than half of the strong teams on one wrong option
__all__ = [
    "ABILITY_BOUNDS",
    "DIFFICULTY_BOUNDS",
    "DISCRIMINATION_BOUNDS",
    "IRT_ITERATIONS",
    "IRT_METHOD",
    "IRT_TOLERANCE",
    "OPTIONS",
    "Analytics",
    "QuestionStats",
    "TeamStats",
    "analyse",
    "fit_2pl",
]


@dataclass(frozen=True)
class QuestionStats:
    question_id: int
    gold: int
    share_correct: float
    pick_rates: tuple[float, ...]  # share of teams per option 0-4
    discrimination_pb: float | None  # point-biserial r of the item against the rest score
    irt_difficulty: float | None
    irt_discrimination: float | None
    flags: tuple[str, ...]
    strong_wrong_option: int | None = None
    unpicked_distractors: tuple[int, ...] = ()


@dataclass(frozen=True)
class TeamStats:
    team: str
    accuracy: float
    ability: float | None


@dataclass(frozen=True)
class Analytics:
    questions: list[QuestionStats]
    teams: list[TeamStats]
    irt_method: str = IRT_METHOD
    notes: list[str] = field(default_factory=list)


def _point_biserial(correct: np.ndarray) -> np.ndarray:
    """Item-rest point-biserial r per question (nan where the item or the rest score does not vary).

    The point-biserial r is Pearson's r with a 0/1 variable, so all questions go through one
    vectorised ``scipy.stats.pearsonr(..., axis=0)`` (the same value as ``pointbiserialr`` per item).
    """
    item = correct.astype(float)
    rest = item.sum(axis=1, keepdims=True) - item
    out = np.full(correct.shape[1], np.nan)
    ok = (item.min(axis=0) != item.max(axis=0)) & (rest.min(axis=0) != rest.max(axis=0))
    if ok.any():
        out[ok] = scipy_stats.pearsonr(item[:, ok], rest[:, ok], axis=0).statistic
    return out


def _value(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def analyse(
    *,
    choices: np.ndarray,
    gold: Sequence[int],
    teams: Sequence[str],
    question_ids: Sequence[int],
    irt: bool = True,
    irt_iterations: int = IRT_ITERATIONS,
) -> Analytics:
    """Per-question and per-team analytics of a (teams x questions) matrix of chosen options."""
    choices = np.asarray(choices, dtype=np.int8)
    gold_arr = np.asarray(gold, dtype=np.int8)
    if (
        choices.ndim != 2
        or choices.shape != (len(teams), len(gold_arr))
        or len(question_ids) != len(gold_arr)
    ):
        raise ValueError(
            f"choices {choices.shape} do not match {len(teams)} teams x {len(gold_arr)} questions"
        )
    correct = (choices == gold_arr[None, :]).astype(np.int8)
    n_teams = len(teams)
    accuracy = correct.mean(axis=1) if n_teams else np.zeros(0)
    picks = np.stack([(choices == k).mean(axis=0) for k in range(OPTIONS)], axis=1) if n_teams else None
    notes: list[str] = []
    pb = _point_biserial(correct) if n_teams >= 3 else np.full(len(gold_arr), np.nan)
    nan = np.full(len(gold_arr), np.nan)
    difficulty, discrimination, ability = (
        irt_fit(correct=correct, notes=notes, max_iteration=irt_iterations)
        if irt
        else (nan, nan, np.full(n_teams, np.nan))
    )
    strong = _strong(accuracy)
    if n_teams and not strong.size:
        notes.append(f"strong_agree_wrong not flagged: fewer than {2 * STRONG_MIN} teams")
    flag_unpicked = n_teams >= OPTIONS - 1
    if n_teams and not flag_unpicked:
        notes.append(f"unpicked_distractors not flagged: fewer teams than distractors ({OPTIONS - 1})")
    questions = []
    for q, qid in enumerate(question_ids):
        rates = tuple(float(r) for r in picks[q]) if picks is not None else (0.0,) * OPTIONS
        flags, agree = [], None
        if n_teams and correct[:, q].sum() == 0:
            flags.append("none_right")
        if strong.size:
            wrong = choices[strong, q][choices[strong, q] != gold_arr[q]]
            wrong = wrong[wrong >= 0]
            if wrong.size:
                option, count = np.unique(wrong, return_counts=True)
                if count.max() > AGREE_SHARE * strong.size:
                    agree = int(option[count.argmax()])
                    flags.append("strong_agree_wrong")
        unpicked = tuple(k for k in range(OPTIONS) if k != gold_arr[q] and n_teams and rates[k] == 0.0)
        if unpicked and flag_unpicked:
            flags.append("unpicked_distractors")
        questions.append(
            QuestionStats(
                question_id=int(qid),
                gold=int(gold_arr[q]),
                share_correct=float(correct[:, q].mean()) if n_teams else 0.0,
                pick_rates=rates,
                discrimination_pb=_value(pb[q]),
                irt_difficulty=_value(difficulty[q]),
                irt_discrimination=_value(discrimination[q]),
                flags=tuple(flags),
                strong_wrong_option=agree,
                unpicked_distractors=unpicked,
            )
        )
    team_stats = [
        TeamStats(team=name, accuracy=float(accuracy[i]), ability=_value(ability[i]))
        for i, name in enumerate(teams)
    ]
    return Analytics(questions=questions, teams=team_stats, notes=notes)


def _strong(accuracy: np.ndarray) -> np.ndarray:
    """Indexes of the strong teams: the top quarter by accuracy, at least STRONG_MIN; none when that would
    be more than half of the teams (then "strong" would include teams below the median)."""
    k = max(STRONG_MIN, int(np.ceil(STRONG_SHARE * accuracy.size)))
    if 2 * k > accuracy.size:
        return np.zeros(0, dtype=int)
    return np.argsort(-accuracy, kind="stable")[:k]
