"""Per-question analytics of a closed phase: who got each question right, which options were picked, item fit.

Pure (no Django). Input: a (teams x questions) matrix of chosen options (0-4, -1 for none) and the gold
options. Libraries: ``scipy.stats.pointbiserialr`` for discrimination (item vs rest score) and
``girth.twopl_jml`` for the 2-parameter IRT fit (difficulty, discrimination) with team abilities.

Flags, by stated rules (not tuned on any data):
- ``strong_agree_wrong``: more than half of the strong teams (the top quarter by accuracy, at least 3
  teams) chose the same wrong option: a likely mislabelled or ambiguous question;
- ``none_right``: no team chose the gold option;
- ``unpicked_distractors``: wrong options no team chose.
"""

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as scipy_stats

OPTIONS = 5
STRONG_SHARE = 0.25  # the top quarter of teams by accuracy
STRONG_MIN = 3
AGREE_SHARE = 0.5  # more than half of the strong teams on one wrong option
# Joint maximum likelihood alternates item and ability updates; its estimates stop moving after a few
# rounds on boards of this size (docs/statistics.md), and each round costs one optimisation per item.
IRT_ITERATIONS = 5


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
    irt_method: str = "girth.twopl_jml"
    notes: list[str] = field(default_factory=list)


def _point_biserial(correct: np.ndarray) -> np.ndarray:
    """Item-rest point-biserial r per question (nan where the item or the rest score does not vary)."""
    totals = correct.sum(axis=1)
    out = np.full(correct.shape[1], np.nan)
    for q in range(correct.shape[1]):
        item = correct[:, q]
        rest = totals - item
        if item.min() == item.max() or rest.min() == rest.max():
            continue
        out[q] = scipy_stats.pointbiserialr(item, rest).statistic
    return out


def _irt(
    correct: np.ndarray, notes: list[str], max_iteration: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """2PL fit over the items that vary (girth wants items x persons); nan for the others."""
    import girth

    n_teams, n_items = correct.shape
    difficulty, discrimination = np.full(n_items, np.nan), np.full(n_items, np.nan)
    ability = np.full(n_teams, np.nan)
    varied = correct.min(axis=0) != correct.max(axis=0)
    if n_teams < 3 or varied.sum() < 2:
        notes.append("IRT not fitted: fewer than 3 teams or 2 questions that separate them")
        return difficulty, discrimination, ability
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        data = correct[:, varied].T.astype(int)
        fit = girth.twopl_jml(data, options={"max_iteration": max_iteration})
        difficulty[varied], discrimination[varied] = fit["Difficulty"], fit["Discrimination"]
        ability[:] = girth.ability_map(data, fit["Difficulty"], fit["Discrimination"])
    return difficulty, discrimination, ability


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
        _irt(correct, notes, irt_iterations) if irt else (nan, nan, np.full(n_teams, np.nan))
    )
    strong = _strong(accuracy)
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
        if unpicked:
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
    """Indexes of the strong teams: the top quarter by accuracy, at least STRONG_MIN (none if fewer teams)."""
    if accuracy.size < STRONG_MIN:
        return np.zeros(0, dtype=int)
    k = max(STRONG_MIN, int(np.ceil(STRONG_SHARE * accuracy.size)))
    return np.argsort(-accuracy, kind="stable")[:k]
