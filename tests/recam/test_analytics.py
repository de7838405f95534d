"""recam.analytics on constructed data: pick rates, discrimination, IRT ordering and the three flags."""

import numpy as np
import pytest

from recam.analytics import analyse, fit_2pl


def _constructed():
    """12 teams x 6 questions; gold is option 0 everywhere except question 5 (gold 1)."""
    rng = np.random.default_rng(0)
    ability = np.linspace(-2, 2, 12)
    difficulty = np.array([-1.5, -0.5, 0.0, 0.5, 1.5, 0.0])
    gold = np.array([0, 0, 0, 0, 0, 1])
    choices = np.empty((12, 6), dtype=np.int8)
    for t in range(12):
        for q in range(6):
            right = rng.random() < 1 / (1 + np.exp(-2 * (ability[t] - difficulty[q])))
            choices[t, q] = gold[q] if right else 1 + (t + q) % 3  # options 1-3 as distractors, never 4
    choices[:, 2] = 2  # nobody right on question 2; everyone (the strong teams too) picks option 2
    choices[:, 5] = np.where(np.arange(12) >= 9, 3, 1)  # the 3 strongest agree on wrong option 3
    return choices, gold, [f"t{i:02d}" for i in range(12)]


def test_pick_rates_share_correct_and_flags():
    choices, gold, teams = _constructed()
    result = analyse(choices=choices, gold=gold, teams=teams, question_ids=[10, 11, 12, 13, 14, 15])
    by_id = {q.question_id: q for q in result.questions}
    assert by_id[12].share_correct == 0.0
    assert by_id[12].pick_rates == (0.0, 0.0, 1.0, 0.0, 0.0)
    assert "none_right" in by_id[12].flags
    assert "strong_agree_wrong" in by_id[15].flags
    assert by_id[15].strong_wrong_option == 3
    assert by_id[15].share_correct == pytest.approx(9 / 12)
    assert 4 in by_id[10].unpicked_distractors  # option 4 is never chosen
    assert "unpicked_distractors" in by_id[10].flags
    for q in result.questions:
        assert sum(q.pick_rates) == pytest.approx(1.0)


def test_discrimination_and_irt_order_items_and_teams():
    choices, gold, teams = _constructed()
    result = analyse(choices=choices, gold=gold, teams=teams, question_ids=list(range(6)))
    easy, hard = result.questions[0], result.questions[4]
    assert easy.share_correct > hard.share_correct
    assert easy.irt_difficulty < hard.irt_difficulty
    assert result.questions[2].irt_difficulty is None  # no variation: not fitted
    assert result.questions[2].discrimination_pb is None
    # question 5 is answered right by the 9 weakest teams only: negative discrimination
    assert result.questions[5].discrimination_pb < 0
    abilities = [t.ability for t in result.teams]
    accuracies = [t.accuracy for t in result.teams]
    assert np.corrcoef(abilities, accuracies)[0, 1] > 0.8


def test_shape_mismatch_is_refused():
    with pytest.raises(ValueError, match="do not match"):
        analyse(choices=np.zeros((2, 3)), gold=[0, 0], teams=["a", "b"], question_ids=[0, 1])


def _synthetic_2pl(*, items: int, persons: int, seed: int):
    """Known 2PL parameters and girth's own simulator (items x persons 0/1)."""
    from girth.synthetic import create_synthetic_irt_dichotomous

    rng = np.random.default_rng(seed)
    difficulty = np.linspace(-2, 2, items)
    discrimination = rng.uniform(0.5, 2.5, items)
    thetas = rng.normal(size=persons)
    data = create_synthetic_irt_dichotomous(difficulty, discrimination, thetas, seed=seed)
    return data, difficulty, discrimination


def test_fit_2pl_recovers_known_difficulty_and_discrimination_order():
    """Rule: with 1,000 simulated persons the estimates rank the true parameters (Spearman >= 0.9 for
    difficulty, >= 0.7 for discrimination, which needs more data to estimate)."""
    from scipy import stats

    data, difficulty, discrimination = _synthetic_2pl(items=30, persons=1000, seed=3)
    fit = fit_2pl(data)
    assert stats.spearmanr(fit["Difficulty"], difficulty).statistic >= 0.9
    assert stats.spearmanr(fit["Discrimination"], discrimination).statistic >= 0.7


def test_fit_2pl_agrees_with_girth_twopl_jml():
    """The vectorised steps solve the same conditional problems as girth.twopl_jml (same start, bounds,
    identification and stopping rule), so the two fits agree."""
    import girth

    data, _, _ = _synthetic_2pl(items=25, persons=120, seed=5)
    ours, theirs = fit_2pl(data), girth.twopl_jml(data)
    for key in ("Difficulty", "Discrimination"):
        assert np.corrcoef(ours[key], theirs[key])[0, 1] >= 0.99
    assert np.median(np.abs(ours["Difficulty"] - theirs["Difficulty"])) < 0.05


def test_vectorised_point_biserial_equals_scipy_per_item():
    from scipy import stats

    from recam.analytics import _point_biserial

    rng = np.random.default_rng(7)
    correct = (rng.random((40, 30)) < np.linspace(0.1, 0.9, 30)).astype(np.int8)
    correct[:, 0] = 1  # does not vary: no r
    got = _point_biserial(correct)
    assert np.isnan(got[0])
    totals = correct.sum(axis=1)
    for q in range(1, 30):
        expected = stats.pointbiserialr(correct[:, q], totals - correct[:, q]).statistic
        assert got[q] == pytest.approx(expected)


def test_irt_not_fitted_when_fewer_than_two_teams_are_mixed():
    """Teams with all or none right leave the JML fit (as in girth); one mixed team cannot be scaled."""
    choices = np.array([[0, 0, 0], [0, 0, 1], [1, 1, 1]])  # all right, mixed, all wrong
    result = analyse(choices=choices, gold=[0, 0, 0], teams=["a", "b", "c"], question_ids=[1, 2, 3])
    assert any("IRT not fitted" in note for note in result.notes)
    assert all(q.irt_difficulty is None for q in result.questions)
    assert [q.share_correct for q in result.questions] == pytest.approx([2 / 3, 2 / 3, 1 / 3])


def test_small_boards_do_not_raise_flags_that_arithmetic_forces():
    """3 teams (two with the same file) as on a practice board: "strong" would be everyone and, with fewer
    teams than distractors, some distractor is unpicked on every question; neither flag is raised then."""
    gold = np.zeros(40, dtype=np.int8)
    rng = np.random.default_rng(1)
    weak = rng.integers(1, 5, size=40).astype(np.int8)  # always wrong
    strong = np.where(rng.random(40) < 0.8, 0, 1).astype(np.int8)
    choices = np.stack([strong, weak, weak])
    result = analyse(choices=choices, gold=gold, teams=["s", "w1", "w2"], question_ids=list(range(40)))
    flags = {f for q in result.questions for f in q.flags}
    assert "strong_agree_wrong" not in flags  # the two weak teams agree on a wrong option everywhere
    assert "unpicked_distractors" not in flags
    assert any("strong_agree_wrong not flagged" in note for note in result.notes)
    assert any("unpicked_distractors not flagged" in note for note in result.notes)
    assert all(q.unpicked_distractors for q in result.questions)  # the data column is still filled
    # from 6 teams on (the top 3 are at most half) the flag is raised again
    six = np.concatenate([np.stack([gold + 0, gold + 0, gold + 0]), np.stack([weak] * 3)])
    six[:3, 0] = 2  # the three best agree on wrong option 2 on question 0
    result = analyse(choices=six, gold=gold, teams=list("abcdef"), question_ids=list(range(40)))
    assert "strong_agree_wrong" in result.questions[0].flags
    assert result.questions[0].strong_wrong_option == 2
