"""Distractors in the gold's part of speech and inflection, the reuse cap, and the gate on tiny cases."""

from collections import Counter

import pytest

from datagen.nlp import load_nlp
from datagen.options.build import Candidate, check_question
from datagen.options.gate import gate, rank_draw
from datagen.options.gated import build_gated_dataset, cached_scorer, ordered_pool, second_items
from datagen.options.inflection import ReuseCounter, agree, gold_tag, inflect_like, reuse_cap
from lexicon.resources import wordnet as load_wordnet


@pytest.fixture(scope="module")
def nlp():
    return load_nlp()


@pytest.fixture(scope="module")
def wordnet():
    return load_wordnet()


def test_gold_tag_from_the_filled_summary(nlp):
    assert (
        gold_tag(nlp=nlp, question="The council @placeholder plans for a park.", answer="announced") == "VBD"
    )
    assert gold_tag(nlp=nlp, question="Let me @placeholder you of the carnage.", answer="remind") == "VB"
    assert gold_tag(nlp=nlp, question="Two @placeholder were approved.", answer="proposals") == "NNS"
    assert gold_tag(nlp=nlp, question="A @placeholder plan.", answer="new york") is None


def test_candidates_take_the_gold_inflection_or_are_dropped():
    assert inflect_like(word="announce", tag="VBD") == "announced"
    assert inflect_like(word="plunging", tag="VBZ") == "plunges"
    assert inflect_like(word="proposal", tag="NNS") == "proposals"
    assert inflect_like(word="year", tag="VBD") is None  # no verb reading: not a distractor for a verb
    assert inflect_like(word="bigger", tag="JJS") == "biggest"
    shaped = agree(words=["help", "easing", "year", "plunged", "remind"], tag="VBD")
    assert shaped == {"help": "helped", "easing": "eased", "plunged": "plunged", "remind": "reminded"}
    assert agree(words=["year", "years"], tag="NNS") == {"year": "years"}  # one form once
    assert agree(words=["a b", "c"], tag=None) == {"a b": "a b", "c": "c"}


def test_reuse_cap_is_two_percent_with_a_floor():
    assert reuse_cap(10) == 3
    assert reuse_cap(268) == 6
    assert reuse_cap(1000) == 20
    counter = ReuseCounter(cap=2)
    counter.take(["a", "b"])
    counter.take(["a"])
    assert not counter.allows("a")
    assert counter.allows("b")


def _scores():
    article = {"gold": 0.0, "w1": -1, "w2": -1, "w3": -1, "w4": -1, "w5": -1, "w6": 5.0}  # w6 beats gold
    lm = {"gold": -10.0, "w1": -10.1, "w2": -10.5, "w3": -9.5, "w4": -10.8, "w5": -10.2, "w6": -10.0}
    prior = {"gold": -8.0, "w1": -8.0, "w2": -8.0, "w3": -8.2, "w4": -20.0, "w5": -8.1, "w6": -8.0}
    return article, {"lm": lm, "wordfreq": prior}


def test_gate_keeps_answerability_and_prefers_distractors_as_plausible_as_the_gold():
    pool = ["w1", "w2", "w3", "w4", "w5", "w6"]
    article, options_only = _scores()
    # rank 1: all four from below the gold (options-only LM), closest first
    picks, reason = gate(
        gold="gold", pool=pool, article=article, options_only=options_only, target_rank=1, min_rank=1
    )
    assert reason == "gated"
    words = [p.word for p in picks]
    assert "w6" not in words  # the article moves the LM away from the gold: not eligible
    # below the gold, closeness max_s |gap| / spread_s: w1 0.26, w5 0.53, w2 1.31 (LM), w4 2.87 (prior)
    assert words == ["w1", "w5", "w2", "w4"]
    assert picks[0].why["article_margin"] == 1.0
    assert picks[0].why["pmi_margin"] == 0.9  # 1.0 with the article minus 0.1 without
    assert {p.why["side"] for p in picks} == {"below"}
    # a word the options-only LM finds far less likely than the gold is not eligible when the article
    # does not favour the gold against it by more than that: w2 at -30 without the article
    far = {**options_only, "lm": {**options_only["lm"], "w2": -30.0}}
    picks, _ = gate(gold="gold", pool=pool, article=article, options_only=far, target_rank=1, min_rank=1)
    assert "w2" not in [p.word for p in picks]
    assert {p.why["gold_rank"] for p in picks} == {2}  # three below the gold are left: rank 1 is not possible
    none, reason = gate(
        gold="gold",
        pool=pool[:4],
        article={**article, "w1": 1.0},
        options_only=options_only,
        target_rank=1,
        min_rank=1,
    )
    assert none is None
    assert reason == "gate-too-few-answerable"


def test_gate_puts_the_gold_at_the_drawn_options_only_rank_or_the_nearest_it_can():
    pool = ["w1", "w2", "w3", "w4", "w5", "w6"]
    article, options_only = _scores()
    # w3 is the one eligible word the options-only LM scores above the gold (the article reverses it:
    # 1 nat with the article against 0.5 without): rank 2 at most
    picks, _ = gate(gold="gold", pool=pool, article=article, options_only=options_only, target_rank=2)
    assert [p.word for p in picks] == ["w3", "w1", "w5", "w2"]
    assert picks[0].why["side"] == "above"
    lm = options_only["lm"]
    assert sum(lm[p.word] > lm["gold"] for p in picks) == 1  # the gold is second without the article
    picks, _ = gate(gold="gold", pool=pool, article=article, options_only=options_only, target_rank=5)
    assert [p.word for p in picks] == ["w3", "w1", "w5", "w2"]
    assert {p.why["gold_rank"] for p in picks} == {2}
    assert {p.why["gold_rank_target"] for p in picks} == {5}


def test_gate_version_3_never_leaves_the_gold_the_options_only_favourite():
    pool = ["w1", "w2", "w3", "w4", "w5", "w6"]
    article, options_only = _scores()
    # the default rule: a drawn rank of 1 becomes the nearest rank >= 2 (w3 is the one eligible word
    # the options-only LM prefers to the gold)
    picks, reason = gate(gold="gold", pool=pool, article=article, options_only=options_only, target_rank=1)
    assert reason == "gated"
    assert [p.word for p in picks] == ["w3", "w1", "w5", "w2"]
    assert {p.why["gold_rank"] for p in picks} == {2}
    # without w3 no eligible word beats the gold without the article: the question is dropped, while
    # the previous rule (min_rank=1) would have shipped it with the gold as the favourite
    none, reason = gate(
        gold="gold", pool=[w for w in pool if w != "w3"], article=article, options_only=options_only
    )
    assert (none, reason) == (None, "gate-gold-options-favourite")
    kept, reason = gate(
        gold="gold",
        pool=[w for w in pool if w != "w3"],
        article=article,
        options_only=options_only,
        min_rank=1,
    )
    assert reason == "gated"
    assert {p.why["gold_rank"] for p in kept} == {1}


def _second(**changes):
    """The second LM agreeing with the first (same scores), then ``changes`` as (article, options-only)."""
    article, options_only = _scores()
    on, off = dict(article), dict(options_only["lm"])
    for word, (a, o) in changes.items():
        on[word], off[word] = a, o
    return {"article": on, "options_only": off}


def test_gate_version_4_asks_the_same_of_a_second_lm():
    pool = ["w1", "w2", "w3", "w4", "w5", "w6"]
    article, options_only = _scores()
    # a second LM that agrees with the first changes nothing but the recorded why
    picks, reason = gate(gold="gold", pool=pool, article=article, options_only=options_only, second=_second())
    assert reason == "gated"
    assert [p.word for p in picks] == ["w3", "w1", "w5", "w2"]
    assert picks[0].why["gaps"]["lm2"] == -0.5
    assert picks[0].why["second_pmi_margin"] == 1.5
    # w3 is above the gold for the first LM only: the second prefers the gold without the article, so
    # the gold would be its favourite; no word is above for both, and the question is dropped
    none, reason = gate(
        gold="gold", pool=pool, article=article, options_only=options_only, second=_second(w3=(-1.0, -10.5))
    )
    assert (none, reason) == (None, "gate-gold-options-favourite")
    # w1 stops being answerable for the second LM (its article moves it towards w1): not eligible
    picks, _ = gate(
        gold="gold", pool=pool, article=article, options_only=options_only, second=_second(w1=(2.0, -10.1))
    )
    assert "w1" not in [p.word for p in picks]
    assert [p.word for p in picks] == ["w3", "w5", "w2", "w4"]
    # words the second LM did not score are not eligible; a gold it did not score ends the question
    unscored = _second()
    for side in unscored.values():
        side.pop("w5")
    picks, _ = gate(gold="gold", pool=pool, article=article, options_only=options_only, second=unscored)
    assert "w5" not in [p.word for p in picks]
    no_gold = {k: {w: v for w, v in side.items() if w != "gold"} for k, side in _second().items()}
    assert gate(gold="gold", pool=pool, article=article, options_only=options_only, second=no_gold) == (
        None,
        "gate-second-unscored",
    )


def test_gate_version_4_keeps_version_3s_verdict_when_the_first_lm_alone_drops():
    pool = ["w1", "w2", "w4", "w5", "w6"]  # without w3 no eligible word beats the gold without the article
    article, options_only = _scores()
    version_3 = gate(gold="gold", pool=pool, article=article, options_only=options_only)
    assert version_3 == (None, "gate-gold-options-favourite")
    # a second LM cannot save it (eligible and "above" only shrink), whatever it scores, even nothing
    lifted = _second(w1=(-1.0, -5.0), w2=(-1.0, -5.0))  # the second LM would put w1, w2 above the gold
    assert (
        gate(gold="gold", pool=pool, article=article, options_only=options_only, second=lifted) == version_3
    )
    empty = {"article": {}, "options_only": {}}
    assert gate(gold="gold", pool=pool, article=article, options_only=options_only, second=empty) == version_3
    few = ["w1", "w2", "w3"]
    assert gate(gold="gold", pool=few, article=article, options_only=options_only, second=empty) == (
        None,
        "gate-too-few-answerable",
    )


def test_second_items_leave_out_only_questions_the_second_lm_cannot_change(nlp, wordnet):
    """The second LM's short list skips questions version 3 drops; the written questions are the same as
    with every question scored by the second LM (random scores over many questions)."""
    import numpy as np

    rng = np.random.default_rng(5)
    ranking = ["approve", "reject", "delay", "unveil", "scrap", "publish", "debate", "launch", "sign"]
    forms = ["approved", "rejected", "delayed", "unveiled", "scrapped", "published", "debated", "launched"]
    candidates = [
        _candidate(i, f"The council @placeholder plans number {i}.", "announced") for i in range(60)
    ]
    pools = {c.id: [ranking] for c in candidates}
    items, first, second = [], [], []
    for c in candidates:
        words = ["announced", *forms]
        items.append({"id": c.id, "article": c.article, "question": c.question, "answer": "announced"})
        off = {w: float(v) for w, v in zip(words, rng.normal(-10, 1, len(words)), strict=True)}
        on = {w: off[w] + float(v) for w, v in zip(words, rng.normal(0, 1, len(words)), strict=True)}
        first.append({"id": c.id, "article": on, "options_only": off})
        off2 = {w: float(v) for w, v in zip(words, rng.normal(-10, 1, len(words)), strict=True)}
        on2 = {w: off2[w] + float(v) for w, v in zip(words, rng.normal(0, 1, len(words)), strict=True)}
        second.append({"id": c.id, "article": on2, "options_only": off2})
    listed = {found["id"] for found in second_items(items=items, scores=first, limit=len(forms))}
    assert 0 < len(listed) < len(candidates)  # some questions are left out, some are not
    shared = {
        "candidates": candidates,
        "pools": pools,
        "nlp": nlp,
        "wordnet": wordnet,
        "vectors": None,
        "seed": 3,
    }
    every = build_gated_dataset(scorer=cached_scorer(first, second), **shared)
    short = build_gated_dataset(
        scorer=cached_scorer(first, [s for s in second if s["id"] in listed]), **shared
    )
    assert every.questions  # the comparison is not between two empty files
    assert short.questions == every.questions
    assert short.why == every.why
    assert short.drops == every.drops
    assert {w["source_id"] for w in every.why} <= listed


def test_second_items_short_list_the_first_lms_eligible_words_above_the_gold_first():
    article, options_only = _scores()
    item = {
        "id": 7,
        "article": "A.",
        "question": "Q @placeholder.",
        "answer": "gold",
        "words": [],
        "must": [],
    }
    first = {"id": 7, "article": article, "options_only": options_only["lm"]}
    (found,) = second_items(items=[item], scores=[first], limit=3)
    # eligible by the first LM's PMI margin: w1..w5 (not w6); w3 is above the gold, then by |gap|
    assert found["words"] == ["gold", "w3", "w1", "w5"]
    assert found["must"] == found["words"]
    assert found["top"] == 0
    assert found["open"] == 0
    assert second_items(items=[item], scores=[], limit=3) == []  # no first-stage scores: nothing to score
    scorer = cached_scorer([first], [{"id": 7, **_second()}])
    candidate = Candidate(id=7, article="A.", question="Q @placeholder.", answer="gold")
    on, _off, second = scorer(candidate, ["gold", "w1"])
    assert on is article
    assert second["options_only"]["w3"] == -9.5
    assert cached_scorer([first])(candidate, ["gold"])[2] is None


def test_rank_draw_from_a_lowest_rank():
    draws = Counter(rank_draw(seed=13, question_id=i, low=2) for i in range(4000))
    assert set(draws) == {2, 3, 4, 5}
    assert all(900 < n < 1100 for n in draws.values())  # 1000 expected each
    with pytest.raises(ValueError, match="lowest rank"):
        rank_draw(seed=13, question_id=1, low=6)


def test_rank_draw_is_uniform_and_reproducible():
    draws = [rank_draw(seed=13, question_id=i) for i in range(5000)]
    assert draws == [rank_draw(seed=13, question_id=i) for i in range(5000)]
    counts = Counter(draws)
    assert set(counts) == {1, 2, 3, 4, 5}
    assert all(900 < n < 1100 for n in counts.values())  # 1000 expected each
    assert draws != [rank_draw(seed=14, question_id=i) for i in range(5000)]


def _candidate(i: int, question: str, answer: str) -> Candidate:
    return Candidate(
        id=i, article=f"Something happened in town number {i}.", question=question, answer=answer
    )


def test_gated_build_inflects_caps_reuse_and_records_why(nlp, wordnet):
    candidates = [_candidate(i, f"The council @placeholder plans number {i}.", "announced") for i in range(5)]
    ranking = ["approve", "reject", "delay", "unveil", "scrap", "publish", "year", "debate"]
    pools = {c.id: [ranking] for c in candidates}

    def scorer(candidate, words):
        article = {w: (0.0 if w == candidate.answer else -1.0 - i) for i, w in enumerate(words)}
        return article, {w: -float(len(w)) for w in words}, None

    built = build_gated_dataset(
        candidates=candidates, pools=pools, nlp=nlp, wordnet=wordnet, vectors=None, seed=1, scorer=scorer
    )
    used = Counter(o for q in built.questions for o in q.options if o != "announced")
    assert built.questions
    assert max(used.values()) <= reuse_cap(5)
    for question in built.questions:
        assert all(o.endswith("ed") for o in question.options)  # VBD like the gold; "year" never
        assert check_question(question=question, gold="announced", wordnet=wordnet) == []
    assert all(
        len(w["options"]) == 4 and all(v["rule"] == "gate" for v in w["options"].values()) for w in built.why
    )
    assert built.excluded["pos-or-inflection"] >= 1
    assert sum(built.drops.values()) + len(built.questions) == 5


def test_ordered_pool_counts_rankers_then_rank():
    assert ordered_pool([["a", "b", "c"], ["c", "d"]]) == ["c", "a", "b", "d"]


def test_a_small_positive_margin_is_recorded_with_its_sign():
    words = ["w1", "w2", "w3", "w4"]
    article = {"gold": -1.0, **{w: -1.0 - 2e-6 * (i + 1) for i, w in enumerate(words)}}
    lm = {"gold": -1.0, **{w: -1.0 - 1e-6 * (i + 1) for i, w in enumerate(words)}}
    picks, reason = gate(
        gold="gold", pool=words, article=article, options_only={"lm": lm}, target_rank=1, min_rank=1
    )
    assert reason == "gated"
    margins = sorted(p.why["pmi_margin"] for p in picks)
    assert margins == pytest.approx([1e-6, 2e-6, 3e-6, 4e-6], rel=1e-3)  # rounding to 4 places wrote 0.0
    assert all(p.why["article_margin"] > 0 for p in picks)
