"""Valid test items (docs/explanation/validity.md): option forms, near-synonyms, contrast, gate version 5, one per summary."""

import json

import pytest

from datagen.options.build import Candidate
from datagen.options.gate import gate_valid, openness, pmi_draw
from datagen.options.valid import build_valid_dataset
from datagen.options.validity import context_cosines, filled_words, form_problem, is_antonym, option_problem
from lexicon.resources import wordnet as load_wordnet
from recam.siblings import sibling_leaks


@pytest.fixture(scope="module")
def wordnet():
    return load_wordnet()


@pytest.mark.parametrize(
    ("word", "tag", "problem"),
    [
        ("olds", "NNS", "form-minor-reading"),  # "old" is an adjective; its noun has no tagged use
        ("limps", "VBZ", "form-rare"),
        ("windowed", "VBD", "form-rare"),
        ("extradites", "VBZ", "form-rare"),
        ("help", "VBD", "form-not-inflection"),  # a bare "help" where the sentence needs "helped"
        ("helped", "VBD", None),
        ("utilized", "VBN", None),
        ("fell", "VBD", None),
        ("artefacts", "NNS", None),
        ("unseat", "VB", None),
    ],
)
def test_option_forms(word, tag, problem, wordnet):
    assert form_problem(word=word, tag=tag, wordnet=wordnet) == problem


@pytest.mark.parametrize(
    ("gold", "word", "tag"),
    [
        ("eased", "cruised", "VBD"),
        ("spins", "turns", "VBZ"),
        ("employed", "utilized", "VBN"),
        ("turns", "spins", "VBZ"),
    ],
)
def test_near_synonyms_are_refused_both_ways(gold, word, tag, wordnet):
    assert option_problem(word=word, gold=gold, tag=tag, wordnet=wordnet) == "near-synonym"


@pytest.mark.parametrize(
    ("gold", "word", "tag"),
    [("rose", "fell", "VBD"), ("approved", "rejected", "VBD"), ("won", "lost", "VBD")],
)
def test_antonyms_are_contrast_words_and_not_refused(gold, word, tag, wordnet):
    assert is_antonym(word=word, gold=gold, tag=tag, wordnet=wordnet)
    assert option_problem(word=word, gold=gold, tag=tag, wordnet=wordnet, synonyms=False) is None


def test_unrelated_words_are_neither(wordnet):
    assert not is_antonym(word="announced", gold="rose", tag="VBD", wordnet=wordnet)
    assert option_problem(word="announced", gold="rose", tag="VBD", wordnet=wordnet) is None


def test_filled_words_keep_what_is_glued_to_the_blank():
    words, where = filled_words("The @placeholder's plan (in @placeholder", "council")
    assert words[where[0]] == "council"
    assert words[where[0] + 1].startswith("'s")


VECTORS = {"rose": [1.0, 0.0], "climbed": [0.9, 0.1], "fell": [0.0, 1.0]}


class _Encoder:
    """A stand-in encoder: a word's vector is fixed by the word, so cosines are known."""

    def embed(self, *, sentences):
        import numpy as np

        return [np.array([VECTORS.get(w, [0.5, 0.5]) for w in s]) for s in sentences]


def test_context_cosines_compare_the_filled_word_with_the_gold():
    cosines = context_cosines(encoder=_Encoder(), question="Shares @placeholder today.", gold="rose",
                              words=["climbed", "fell"])  # fmt: skip
    assert cosines["climbed"] > 0.99
    assert cosines["fell"] == pytest.approx(0.0)


def _scores(gold_lm, gold_pmi, words):
    """article and options-only scores from (options-only, pmi) pairs per word."""
    off = {"g": gold_lm, **{w: lm for w, (lm, _) in words.items()}}
    pmi = {"g": gold_pmi, **{w: p for w, (_, p) in words.items()}}
    return {w: off[w] + pmi[w] for w in off}, off


def test_gate_5_reaches_both_drawn_ranks_and_prefers_contrast_words():
    # above/below the gold options-only (lm 0) x above/below it by PMI (0)
    words = {f"{q}{i}": (lm * i, pmi * i) for q, lm, pmi in (("aa", 1, 1), ("ab", 1, -1), ("ba", -1, 1), ("bb", -1, -1))
             for i in range(1, 5)}  # fmt: skip
    article, off = _scores(0.0, 0.0, words)
    prior = dict.fromkeys(off, 0.0)
    for rank in range(2, 6):
        for prank in range(1, 6):
            picks, reason = gate_valid(gold="g", pool=list(words), article=article,
                                       options_only={"lm": off, "wordfreq": prior}, target_rank=rank,
                                       pmi_rank=prank)  # fmt: skip
            assert reason == "gated"
            chosen = [p.word for p in picks]
            assert 1 + sum(off[w] > off["g"] for w in chosen) == rank
            assert 1 + sum(article[w] - off[w] > 0 for w in chosen) == prank
    picks, _ = gate_valid(gold="g", pool=list(words), article=article, options_only={"lm": off},
                          target_rank=2, pmi_rank=1, contrast=frozenset({"bb4"}))  # fmt: skip
    assert "bb4" in [p.word for p in picks]  # the contrast word first, though the farthest of its group
    assert openness(picks) > 0


def test_gate_5_drops_a_gold_that_is_the_options_only_favourite():
    words = {"b1": (-1, 1), "b2": (-2, 2), "b3": (-1, -1), "b4": (-2, -2)}
    article, off = _scores(0.0, 0.0, words)
    picks, reason = gate_valid(gold="g", pool=list(words), article=article, options_only={"lm": off},
                               target_rank=3, pmi_rank=2)  # fmt: skip
    assert picks is None
    assert reason == "gate-gold-options-favourite"


def test_pmi_draw_is_uniform_and_its_own():
    draws = [pmi_draw(seed=13, question_id=i) for i in range(2000)]
    assert set(draws) == {1, 2, 3, 4, 5}
    assert all(abs(draws.count(r) / 2000 - 0.2) < 0.04 for r in range(1, 6))


ARTICLE = "Voters went to the polls on Thursday across the region."


def _candidate(cid, question, answer, article=ARTICLE):
    return Candidate(id=cid, article=article, question=question, answer=answer, subtask="2", scores={})


def test_one_question_per_summary_and_no_sibling_leak(wordnet):
    from datagen.nlp import load_nlp
    from datagen.options.inflection import gold_tag

    a = _candidate("a", "Early @placeholder suggest a narrow win in the region's centre of power.", "results")
    b = _candidate("b", "Early results suggest a narrow win in the region's @placeholder of power.", "centre")
    c = _candidate("c", "Turnout in the @placeholder was low.", "election", article="Another article.")
    pool = ["talks", "plans", "fears", "hopes", "claims", "reports", "figures", "signs", "heart", "edge",
            "middle", "seat", "base", "core", "poll", "vote", "contest", "race"]  # fmt: skip
    pools = {x.id: [pool] for x in (a, b, c)}
    built = build_valid_dataset(candidates=[a, b, c], pools=pools, nlp=load_nlp(), wordnet=wordnet,
                                vectors=None, seed=13, scorer=None)  # fmt: skip
    assert [s.id for s in built.sources] == ["a", "c"]  # the first of the summary, without a gate
    assert built.drops["one-per-summary"] == 1
    assert sibling_leaks(built.questions) == []
    everything = build_valid_dataset(candidates=[a, b, c], pools=pools, nlp=load_nlp(), wordnet=wordnet,
                                     vectors=None, seed=13, scorer=None, per_summary="one")  # fmt: skip
    assert len(everything.questions) == 2
    with pytest.raises(ValueError, match="sibling leak"):
        build_valid_dataset(candidates=[a, b, c], pools=pools, nlp=load_nlp(), wordnet=wordnet, vectors=None,
                            seed=13, scorer=None, per_summary="all")  # fmt: skip
    for question in built.questions:  # every option passes the form rules, in the gold's tag
        tag = gold_tag(nlp=load_nlp(), question=question.question, answer=question.answer)
        others = [o for i, o in enumerate(question.options) if i != question.label]
        assert tag in ("NN", "NNS")
        assert all(form_problem(word=o, tag=tag, wordnet=wordnet) is None for o in others)
    json.dumps([q.to_json() for q in built.questions])


def test_gate_5_keeps_the_lead_lms_reason_when_the_second_lm_has_no_scores():
    words = {"b1": (-1, 1), "b2": (-2, 2), "b3": (-1, -1), "b4": (-2, -2)}
    article, off = _scores(0.0, 0.0, words)
    empty = {"article": {}, "options_only": {}}
    picks, reason = gate_valid(gold="g", pool=list(words), article=article, options_only={"lm": off},
                               target_rank=3, pmi_rank=2, second=empty)  # fmt: skip
    assert picks is None
    assert reason == "gate-gold-options-favourite"  # not "gate-second-unscored": the lead LM decides
