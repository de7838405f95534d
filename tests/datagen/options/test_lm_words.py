"""The LM's two-stage word scoring (short list by first token, then exact) on a tiny LM and the real one."""

import numpy as np
import pytest

from baselines.lm_scorer import load_causal_lm, option_logprobs
from datagen.options.lm_words import gate_scores, item_key, loaded_lm, score_blank, split_at_blank
from recam.records import read_questions


def test_split_keeps_the_tokens_of_the_filled_question():
    assert split_at_blank("Let me @placeholder you of it.") == (" Let me", " {} you of it.")
    assert split_at_blank("@placeholder rose.") == ("", " {} rose.")
    assert split_at_blank('He said "@placeholder" {x}') == (' He said "', '{}" {{x}}')
    head, template = split_at_blank('He said "@placeholder" {x}')
    assert head + template.format("no") == ' He said "no" {x}'
    with pytest.raises(ValueError, match="no @placeholder"):
        split_at_blank("no blank here")


def test_window_keeps_the_word_and_the_next_k_words_and_what_is_glued_to_the_blank():
    question = "Let me @placeholder you of the carnage, he said {x}."
    assert split_at_blank(question, window=None) == split_at_blank(question)
    assert split_at_blank(question, window=0) == (" Let me", " {}")
    assert split_at_blank(question, window=2) == (" Let me", " {} you of")
    assert split_at_blank(question, window=4) == (" Let me", " {} you of the carnage,")
    assert split_at_blank(question, window=7) == split_at_blank(question)  # 7 words after the blank
    assert split_at_blank(question, window=50) == split_at_blank(question)
    assert split_at_blank("The @placeholder's plan to go", window=0) == (" The", " {}'s")
    assert split_at_blank('He said "@placeholder" rose now', window=1) == (' He said "', '{}" rose')
    with pytest.raises(ValueError, match="0 or more"):
        split_at_blank(question, window=-1)


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
    assert item_key(items[0]) != item_key({**items[0], "window": 4})


def test_a_window_scores_the_question_cut_after_k_words(tiny_lm, dev2):
    lm = load_causal_lm(model_path=str(tiny_lm), device="cpu")
    for q in dev2[:3]:
        head, tail = q.question.split("@placeholder", 1)
        cut = head + "@placeholder" + " ".join(tail.split(" ")[:3])  # the blank, then 2 words
        assert len(tail.split()) > 2, q.question
        windowed = score_blank(lm, article=q.article, question=q.question, words=q.options, must=q.options,
                               top=1, window=2)  # fmt: skip
        shorter = score_blank(lm, article=q.article, question=cut, words=q.options, must=q.options, top=1)
        whole = score_blank(
            lm, article=q.article, question=q.question, words=q.options, must=q.options, top=1
        )
        for name in ("article", "options_only"):
            for o in q.options:
                assert getattr(windowed, name)[o] == pytest.approx(getattr(shorter, name)[o], abs=1e-4)
        # the rest of the summary adds log-likelihood: the whole scores are lower
        assert all(whole.article[o] < windowed.article[o] for o in q.options)


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


def _sharp_tiny_lm(tiny_lm, attn: str):
    """A 2-layer random Llama with large weights (peaked, context-dependent scores) on SmolLM2's tokenizer."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from baselines.lm_scorer import LoadedLM

    tokenizer = AutoTokenizer.from_pretrained(str(tiny_lm))
    torch.manual_seed(3)
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048, initializer_range=0.3,
        attn_implementation=attn,
    )  # fmt: skip
    return LoadedLM(
        model=LlamaForCausalLM(config).eval(), tokenizer=tokenizer, device="cpu", name="sharp-tiny", sha256=""
    )


@pytest.mark.parametrize("attn", ["sdpa", "eager"])
def test_packed_continuations_score_as_one_row_each(tiny_lm, dev2, attn, monkeypatch):
    import torch

    import datagen.options.lm_words as lm_words

    lm = _sharp_tiny_lm(tiny_lm, attn)
    assert lm_words._packable(lm.model)
    q = dev2[4]
    vocab = sorted({x.answer for x in dev2[:200]})[:70]  # more words than one pack (24) or chunk (48)
    head, template = split_at_blank(q.question)
    conts = [lm.tokenizer.encode(template.format(w), add_special_tokens=False) for w in vocab]
    found = {}
    with torch.inference_mode():
        for name, fn in (("packed", lm_words._exact_packed), ("rows", lm_words._exact_repeated)):
            ctx = lm_words._context(lm, article=q.article, head=head, with_article=True, article_tokens=60)
            cache, logp = lm_words._encode_context(lm, ctx)
            found[name] = np.array(
                fn(lm, cache=cache, first_logp=logp, context_len=len(ctx), continuations=conts)
            )
            assert cache.get_seq_length() == len(ctx)  # the context's cache is left as it was
    assert np.ptp(found["rows"]) > 1.0  # the scores differ from word to word: a real check
    np.testing.assert_allclose(found["packed"], found["rows"], atol=1e-4)
    # the mask matters: letting continuations see each other changes the scores
    monkeypatch.setattr(
        lm_words, "_packed_mask",
        lambda lengths, *, context_len, device, dtype, eager: (
            torch.zeros((1, 1, sum(lengths), context_len + sum(lengths)), dtype=dtype) if eager
            else torch.ones((1, 1, sum(lengths), context_len + sum(lengths)), dtype=torch.bool)
        ),
    )  # fmt: skip
    with torch.inference_mode():
        ctx = lm_words._context(lm, article=q.article, head=head, with_article=True, article_tokens=60)
        cache, logp = lm_words._encode_context(lm, ctx)
        leaky = np.array(
            lm_words._exact_packed(
                lm, cache=cache, first_logp=logp, context_len=len(ctx), continuations=conts
            )
        )
    assert np.abs(leaky - found["rows"]).max() > 1e-2


def test_sliding_window_models_use_one_row_per_continuation():
    from types import SimpleNamespace

    from datagen.options.lm_words import _packable

    def model(**config):
        return SimpleNamespace(config=SimpleNamespace(**config))

    assert _packable(model(_attn_implementation="sdpa"))
    assert _packable(
        model(_attn_implementation="sdpa", layer_types=["full_attention"] * 2, sliding_window=None)
    )
    assert not _packable(
        model(_attn_implementation="sdpa", layer_types=["sliding_attention", "full_attention"])
    )
    assert not _packable(model(_attn_implementation="sdpa", sliding_window=512))
    assert not _packable(model(_attn_implementation="flash_attention_2"))
