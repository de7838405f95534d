"""Gate version 6 (docs/explanation/validity.md, rules T, D, U): contrast words, their fit and the margin."""

import math

import pytest

from datagen.options.build import Candidate
from datagen.options.contrast import (
    T_OPEN,
    TRIAL_MEDIAN,
    U_MARGIN,
    contrast_forms,
    contrast_lemmas,
    contrast_score,
    gate_contrast,
    second_short_list,
)
from datagen.options.valid import build_contrast_dataset
from datagen.options.validity import form_problem, option_problem
from lexicon.resources import wordnet as load_wordnet
from recam.siblings import sibling_leaks


@pytest.fixture(scope="module")
def wordnet():
    return load_wordnet()


def test_thresholds_are_the_stated_ones():
    assert pytest.approx(math.log(2)) == U_MARGIN
    assert set(T_OPEN) == {"lm", "lm2"}
    for name, value in T_OPEN.items():  # the trial file's median, at least ln 3
        assert value == pytest.approx(max(math.log(3), TRIAL_MEDIAN[name]))


@pytest.mark.parametrize(
    ("gold", "tag", "expected"),
    [
        ("rose", "VBD", {"fell", "decreased"}),  # its own antonym, and its hypernym increase's
        ("won", "VBD", {"lost", "failed"}),
        ("approved", "VBN", {"disapproved"}),
        ("rejected", "VBD", {"accepted", "approved"}),
        ("increase", "NN", {"decrease"}),
    ],
)
def test_contrast_words_are_antonyms_in_the_golds_form(gold, tag, expected, wordnet):
    forms = contrast_forms(gold=gold, tag=tag, article="An article about something else.", wordnet=wordnet)
    assert expected <= set(forms)
    for form in forms:  # every contrast word passes the form rules, and none is the gold
        assert form != gold
        assert form_problem(word=form, tag=tag, wordnet=wordnet) is None


def test_contrast_words_leave_out_sisters_antonyms_and_multi_word_lemmas(wordnet):
    lemmas = contrast_lemmas(gold="cut", tag="VBD", wordnet=wordnet)
    assert "oxidise" not in lemmas
    assert "odourise" not in lemmas
    assert all("_" not in lemma for lemma in contrast_lemmas(gold="rose", tag="VBD", wordnet=wordnet))
    assert "sit_down" not in contrast_lemmas(gold="rose", tag="VBD", wordnet=wordnet)


def test_a_contrast_word_in_the_article_is_left_out(wordnet):
    article = "Profits at the firm fall for a third year as sales decrease in Europe."
    forms = contrast_forms(gold="rose", tag="VBD", article=article, wordnet=wordnet)
    assert "fell" not in forms
    assert "decreased" not in forms


def test_words_with_no_antonym_give_no_contrast(wordnet):
    assert contrast_forms(gold="warned", tag="VBD", article="x", wordnet=wordnet) == []


def test_contrast_words_are_exempt_from_the_near_synonym_rule_but_not_the_form_rule(wordnet):
    # "fell" is a WordNet sister of "rose": refused as a pool word by rule N1, kept as a contrast word
    assert option_problem(word="fell", gold="rose", tag="VBD", wordnet=wordnet) == "near-synonym"
    assert "fell" in contrast_forms(gold="rose", tag="VBD", article="x", wordnet=wordnet)


def _lms(gold, words):
    """words: word -> (SmolLM2 options-only, Gemma options-only, Gemma article); the gold's are (0, 0, 0)."""
    lead = {"article": {gold: 0.0}, "options_only": {gold: 0.0}}
    second = {"article": {gold: 0.0}, "options_only": {gold: 0.0}}
    for word, (off1, off2, on2) in words.items():
        lead["options_only"][word], lead["article"][word] = off1, off1
        second["options_only"][word], second["article"][word] = off2, on2
    return lead, second


def test_gate_6_takes_the_open_decided_contrasts_first_then_pool_words_that_the_article_decides():
    words = {
        "c1": (0.5, 0.2, -1.0),  # fits better than the gold without the article; the article reverses it
        "c2": (-1.0, -0.5, -0.8),  # the gold leads by <= T_OPEN under both LMs; decided by > ln 2
        "c3": (-T_OPEN["lm"] - 0.2, 0.0, -2.0),  # SmolLM2: the gold leads by more than T_OPEN (T2)
        "c4": (0.0, 0.0, -0.5),  # fits, but the article's margin 0.5 < ln 2 (U)
        "p1": (-0.2, -0.2, -0.3),  # closest pool word, not decided (U): never a distractor
        "p2": (-0.4, -0.4, -1.0),
        "p3": (-3.0, -3.0, -4.0),
        "p4": (-0.6, -0.5, -0.9),
    }
    lead, second = _lms("g", words)
    prior = dict.fromkeys(["g", *words], 0.0)
    picks, reason = gate_contrast(gold="g", contrast=["c1", "c2", "c3", "c4"], pool=["p1", "p2", "p3", "p4"],
                                  lead=lead, second=second, prior=prior)  # fmt: skip
    assert reason == "gated"
    assert [p.word for p in picks] == ["c1", "c2", "p2", "p4"]
    assert [p.why["contrast"] for p in picks] == [True, True, False, False]
    assert all(p.why["article_margin_lm2"] >= U_MARGIN for p in picks)
    assert contrast_score(picks) == (2, pytest.approx(0.2))  # min over the LMs of the best contrast lead


@pytest.mark.parametrize(
    ("contrasts", "reason"),
    [
        ({"c1": (0.0, -T_OPEN["lm2"] - 0.1, -2.0), "c2": (0.0, 0.0, -2.0)}, "target-contrast-not-open"),
        ({"c1": (0.0, 0.0, -2.0), "c2": (0.0, 0.0, -0.6)}, "contrast-not-decided"),  # U fails for c2
    ],
)
def test_gate_6_drops_a_target_without_two_open_decided_contrasts(contrasts, reason):
    pool = {f"p{i}": (-1.0, -1.0, -2.0) for i in range(4)}
    lead, second = _lms("g", {**contrasts, **pool})
    prior = dict.fromkeys(["g", *contrasts, *pool], 0.0)
    picks, found = gate_contrast(gold="g", contrast=list(contrasts), pool=list(pool), lead=lead,
                                 second=second, prior=prior)  # fmt: skip
    assert picks is None
    assert found == reason


def test_gate_6_needs_four_decided_distractors():
    words = {"c1": (0.0, 0.0, -2.0), "c2": (0.0, 0.0, -2.0), "p1": (-1.0, -1.0, -2.0), "p2": (1.0, 1.0, 1.0)}
    lead, second = _lms("g", words)
    picks, reason = gate_contrast(gold="g", contrast=["c1", "c2"], pool=["p1", "p2"], lead=lead, second=second,
                                  prior=dict.fromkeys(["g", *words], 0.0))  # fmt: skip
    assert (picks, reason) == (None, "too-few-distractors")


def test_the_second_lms_short_list_holds_the_contrasts_and_pool_words_below_the_gold_first():
    off = {"g": 0.0, "c1": 0.0, "c2": -1.0, "p1": -0.1, "p2": -0.5, "p3": 0.3}  # c2 fits (1.0 <= T_OPEN)
    article = {"g": 0.0, "c1": -1.0, "c2": -1.0, "p1": 0.5, "p2": -1.0, "p3": -2.0}
    chosen = second_short_list(gold="g", contrast=["c1", "c2"], pool=["p1", "p2", "p3"], article=article,
                               options_only=off, limit=2)  # fmt: skip
    assert chosen == ["g", "c1", "c2", "p3", "p2"]  # p1 scores above the gold with the article: last
    lost = second_short_list(gold="g", contrast=["c1", "c2"], pool=["p1"], article=article,
                             options_only={**off, "c2": -T_OPEN["lm"] - 0.1})  # fmt: skip
    assert lost is None  # c2 no longer fits without the article under SmolLM2: nothing for Gemma


def _candidate(cid, question, answer, article="Shares in the company moved after the results on Monday."):
    return Candidate(id=cid, article=article, question=question, answer=answer, subtask="2")


def test_build_writes_one_question_per_summary_with_the_most_contrast_distractors(wordnet):
    from datagen.nlp import load_nlp

    a = _candidate("a", "Shares in the firm @placeholder sharply after the results.", "rose")
    b = _candidate("b", "Shares in the firm rose sharply after the @placeholder.", "results")
    c = _candidate("c", "The club @placeholder the final on penalties.", "won", article="A match report.")
    pool = ["jumped", "slipped", "traded", "opened", "closed", "played", "hosted", "reached", "missed"]
    pools = {x.id: [pool] for x in (a, b, c)}
    contrasts = {
        x.id: contrast_forms(gold=x.answer, tag="VBD", article=x.article, wordnet=wordnet) for x in (a, c)
    }
    contrasts["b"] = []

    def scorer(candidate, words):
        gold = candidate.answer
        off = {w: (0.0 if w == gold else -0.5) for w in words}
        on = {w: (0.0 if w == gold else -1.0) for w in words}
        return on, off, {"article": on, "options_only": off}

    built = build_contrast_dataset(candidates=[a, b, c], pools=pools, contrasts=contrasts, nlp=load_nlp(),
                                   wordnet=wordnet, vectors=None, seed=13, scorer=scorer)  # fmt: skip
    assert [s.id for s in built.sources] == ["a", "c"]
    assert built.drops["target-no-contrast"] == 1  # b: "results" has no contrast word
    assert sibling_leaks(built.questions) == []
    for why in built.why:
        flags = [w["contrast"] for w in why["options"].values()]
        assert sum(flags) >= 2
    first = {o for i, o in enumerate(built.questions[0].options) if i != built.questions[0].label}
    assert {"fell", "decreased"} <= first


def test_the_report_counts_contrast_distractors_for_gate_6():
    from datagen.options.finish import _gate_ranks

    why = [
        {"options": {"a": {"contrast": True}, "b": {"contrast": True}, "c": {"contrast": False}}},
        {"options": {"a": {"contrast": True}, "b": {"contrast": True}, "c": {"contrast": True}}},
        {"options": {"a": {"contrast": True}, "b": {"contrast": True}, "c": {"contrast": False}}},
    ]
    assert _gate_ranks(why) == {"contrast_distractors": {"2": 2, "3": 1}}


def test_contrast_words_come_in_the_same_order_whatever_the_hash_seed():
    import os
    import subprocess
    import sys

    code = (
        "from lexicon.resources import wordnet; from datagen.options.contrast import contrast_forms; "
        "print(contrast_forms(gold='found', tag='VBD', article='x', wordnet=wordnet()))"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(runs) == 1
    assert "lost" in next(iter(runs))
