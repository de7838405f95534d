"""The LM's two-stage word scoring (short list by first token, then exact) on a tiny LM and the real one."""

import numpy as np
import pytest

from baselines.lm_scorer import load_causal_lm, option_logprobs
from datagen.lm_words import gate_scores, item_key, loaded_lm, score_blank, split_at_blank
from recam.records import read_questions


def test_split_keeps_the_tokens_of_the_filled_question():
    assert split_at_blank("Let me @placeholder you of it.") == (" Let me", " {} you of it.")
    assert split_at_blank("@placeholder rose.") == ("", " {} rose.")
    assert split_at_blank('He said "@placeholder" {x}') == (' He said "', '{}" {{x}}')
    head, template = split_at_blank('He said "@placeholder" {x}')
    assert head + template.format("no") == ' He said "no" {x}'
    with pytest.raises(ValueError, match="no @placeholder"):
        split_at_blank("no blank here")


@pytest.fixture(scope="module")
def dev2(recam_data_dir):
    return read_questions(recam_data_dir / "training_data" / "Task_2_dev.jsonl")


def test_exact_scores_rank_words_as_the_whole_filled_question_does(tiny_lm, dev2):
    lm = load_causal_lm(model_path=str(tiny_lm), device="cpu")
    for q in dev2[:3]:
        scores = score_blank(
            lm, article=q.article, question=q.question, words=q.options, must=q.options, top=2
        )
        whole = option_logprobs(lm, articles=[q.article], questions=[q.question], options=[q.options])[0]
        part = np.array([scores.article[o] for o in q.options])
        # the difference is the log-likelihood of the words before the blank: one constant per question
        assert np.ptp(whole - part) < 1e-3
        assert sorted(scores.ranking) == sorted(q.options)
        assert set(scores.options_only) == set(q.options)


def test_short_list_scores_only_required_and_top_words(tiny_lm, dev2):
    lm = load_causal_lm(model_path=str(tiny_lm), device="cpu")
    q = dev2[0]
    vocab = sorted({x.answer for x in dev2[:80]} | {q.answer})
    scores = score_blank(lm, article=q.article, question=q.question, words=vocab, must=[q.answer], top=3)
    assert q.answer in scores.article
    assert 1 + 3 <= len(scores.article) <= 1 + 3 + 3  # the gold, 3 with the article, up to 3 more without
    assert scores.proposed == [w for w in scores.article if w != q.answer]
    assert scores.ranking[:3] == sorted(scores.ranking[:3], key=lambda w: (-scores.article[w], w))
    assert sorted(scores.ranking) == vocab


def test_gate_scores_return_ranks_and_pools(tiny_lm, dev2):
    loaded_lm.cache_clear()
    items = [
        {"id": q.id, "article": q.article, "question": q.question, "answer": q.answer,
         "words": list(dict.fromkeys([q.answer, *q.options])), "must": [q.answer], "top": 2}
        for q in dev2[:2]
    ]  # fmt: skip
    found = gate_scores(items=items, lm_model=str(tiny_lm))
    for item, result in zip(items, found, strict=True):
        assert result["id"] == item["id"]
        assert 1 <= result["gold_rank"] <= 5
        assert item["answer"] not in result["top"]
        assert set(result["article"]) == set(result["options_only"])
    assert item_key(items[0]) != item_key({**items[0], "top": 3})


@pytest.mark.slow
def test_real_model_exact_scores_match_the_quality_report_up_to_a_constant(dev2):
    lm = load_causal_lm(device="cpu")
    q = dev2[1]
    scores = score_blank(lm, article=q.article, question=q.question, words=q.options, must=q.options, top=1)
    whole = option_logprobs(lm, articles=[q.article], questions=[q.question], options=[q.options])[0]
    part = np.array([scores.article[o] for o in q.options])
    assert np.ptp(whole - part) < 1e-3


def test_open_vocabulary_words_are_whole_admitted_words_scored_like_the_rest(tiny_lm, dev2):
    lm = load_causal_lm(model_path=str(tiny_lm), device="cpu")
    q = dev2[2]
    refused = []

    def admit(word):
        if word.startswith("a"):
            refused.append(word)
            return None
        return word

    scores = score_blank(
        lm, article=q.article, question=q.question, words=[q.answer], must=[q.answer], top=1, open_top=3,
        open_filter=admit,
    )  # fmt: skip
    opened = [w for w in scores.proposed if w != q.answer]
    assert len(opened) == 3
    for word in opened:
        assert word.isalpha()
        assert word.islower()
        assert len(word) >= 3
        assert not word.startswith("a")
        assert word in scores.article
        assert word in scores.options_only
    none = score_blank(lm, article=q.article, question=q.question, words=[q.answer], must=[q.answer], top=1)
    assert none.proposed == []
