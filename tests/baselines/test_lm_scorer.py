"""The LM scorer on a tiny random Llama (fast), and once on the packaged SmolLM2 GGUF (slow)."""

import numpy as np
import pytest
import torch

from baselines import lm_scorer
from baselines.lm_scorer import LoadedLM, choose, load_causal_lm, naive_option_logprobs, option_logprobs
from tests.baselines.conftest import TEXTS, tiny_llama


@pytest.fixture(scope="module")
def tiny_lm(tiny_tokenizer) -> LoadedLM:
    model = tiny_llama(len(tiny_tokenizer))
    return LoadedLM(model=model, tokenizer=tiny_tokenizer, device="cpu", name="tiny", sha256="0" * 64)


def _questions():
    articles = [TEXTS[0], TEXTS[1] + " " + TEXTS[2], TEXTS[3]]
    questions = [
        "The council @placeholder the budget.",
        "Staff at the @placeholder lost their jobs.",
        "The team won with a @placeholder goal.",
    ]
    options = [
        ["approved", "rejected", "debated", "won", "found"],
        ["factory", "river", "union", "council", "match"],
        ["late", "warmer", "new", "long", "final"],
    ]
    return {"articles": articles, "questions": questions, "options": options}


@pytest.mark.parametrize("reduction", ["sum", "mean"])
@pytest.mark.parametrize("with_article", [True, False])
@pytest.mark.parametrize("batch_size", [1, 2, 8])
def test_shared_prefix_equals_naive_on_a_tiny_llama(tiny_lm, reduction, with_article, batch_size):
    kwargs = {**_questions(), "reduction": reduction, "with_article": with_article, "article_tokens": 12}
    shared = option_logprobs(tiny_lm, batch_size=batch_size, **kwargs)
    naive = naive_option_logprobs(tiny_lm, **kwargs)
    assert shared.shape == (3, 5)
    assert np.all(shared < 0)
    np.testing.assert_allclose(shared, naive, rtol=1e-4, atol=1e-4)


def test_mean_is_sum_over_continuation_length(tiny_lm):
    data = _questions()
    total = option_logprobs(tiny_lm, **data, reduction="sum")
    mean = option_logprobs(tiny_lm, **data, reduction="mean")
    lengths = np.array(
        [
            [len(lm_scorer.encode_continuation(tiny_lm.tokenizer, question=q, option=o)) for o in opts]
            for q, opts in zip(data["questions"], data["options"], strict=True)
        ]
    )
    np.testing.assert_allclose(mean, total / lengths, rtol=1e-6)


def test_article_window_and_no_article_change_the_context(tiny_lm):
    tok = tiny_lm.tokenizer
    article = TEXTS[1] + " " + TEXTS[2]
    short = lm_scorer.encode_context(tok, article=article, article_tokens=5, with_article=True)
    sep = tok.encode(lm_scorer.SEPARATOR, add_special_tokens=False)
    assert short[:5] == tok.encode(article, add_special_tokens=False)[:5]
    assert short[5:] == sep
    alone = lm_scorer.encode_context(tok, article=article, article_tokens=5, with_article=False)
    assert alone == tok.encode("Summary:", add_special_tokens=False)
    data = _questions()
    with_art = option_logprobs(tiny_lm, **data)
    without = option_logprobs(tiny_lm, **data, with_article=False)
    assert not np.allclose(with_art, without)


class _BosTokenizer:
    """The tiny tokenizer as a model whose tokenizer starts every text with ``<bos>`` (Gemma's GGUF)."""

    def __init__(self, tok, *, add_bos: bool):
        self.tok, self.add_bos_token, self.bos_token_id = tok, add_bos, 7

    def encode(self, text, add_special_tokens=False):
        return self.tok.encode(text, add_special_tokens=add_special_tokens)


def test_the_context_starts_with_bos_only_when_the_tokenizer_asks_for_it(tiny_lm):
    plain = _BosTokenizer(tiny_lm.tokenizer, add_bos=False)
    gemma_like = _BosTokenizer(tiny_lm.tokenizer, add_bos=True)
    for with_article in (True, False):
        kwargs = {"article": TEXTS[1], "article_tokens": 5, "with_article": with_article}
        without = lm_scorer.encode_context(plain, **kwargs)
        assert lm_scorer.encode_context(gemma_like, **kwargs) == [7, *without]
        assert without == lm_scorer.encode_context(tiny_lm.tokenizer, **kwargs)
    assert lm_scorer.bos_prefix(tiny_lm.tokenizer) == []  # the tiny Llama, like SmolLM2, adds none


def test_choose_is_argmax():
    assert choose(np.array([[-3.0, -1.0, -2.0], [-0.5, -4.0, -9.0]])).tolist() == [1, 0]


def test_bad_input_is_rejected(tiny_lm):
    data = _questions()
    with pytest.raises(ValueError, match="reduction"):
        option_logprobs(tiny_lm, **data, reduction="max")
    with pytest.raises(ValueError, match="@placeholder"):
        option_logprobs(tiny_lm, **{**data, "questions": ["no slot here", *data["questions"][1:]]})
    with pytest.raises(ValueError, match="same number of options"):
        option_logprobs(tiny_lm, **{**data, "options": [["a", "b"], *data["options"][1:]]})
    with pytest.raises(ValueError, match="3 articles, 2 questions"):
        option_logprobs(tiny_lm, **{**data, "questions": data["questions"][:2]})


def test_load_causal_lm_from_a_directory(tmp_path, tiny_tokenizer):
    model = tiny_llama(len(tiny_tokenizer), seed=1)
    model.save_pretrained(tmp_path / "tiny")
    tiny_tokenizer.save_pretrained(tmp_path / "tiny")
    lm = load_causal_lm(model_path=str(tmp_path / "tiny"), device="cpu", threads=1)
    assert lm.device == "cpu"
    assert lm.name == "tiny"
    assert len(lm.sha256) == 64
    assert lm.model.dtype == torch.float32
    assert lm.sha256 == lm_scorer.model_sha256(tmp_path / "tiny")
    scores = option_logprobs(lm, **_questions())
    expected = option_logprobs(
        LoadedLM(model=model, tokenizer=tiny_tokenizer, device="cpu", name="", sha256=""), **_questions()
    )
    np.testing.assert_allclose(scores, expected, rtol=1e-5, atol=1e-5)


def test_load_causal_lm_errors(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_causal_lm(model_path=str(tmp_path / "missing"), device="cpu")
    (tmp_path / "weights.bin").write_bytes(b"x")
    with pytest.raises(ValueError, match=r"\.gguf"):
        load_causal_lm(model_path=str(tmp_path / "weights.bin"), device="cpu")
    monkeypatch.setenv("LM_MODEL", str(tmp_path / "from-env"))
    with pytest.raises(FileNotFoundError, match="from-env"):
        load_causal_lm(device="cpu")


def test_the_default_model_is_the_packaged_gguf():
    path = lm_scorer.default_model_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.is_file()


@pytest.mark.slow
def test_real_gguf_shared_prefix_equals_naive_on_dev_questions(dev_path):
    from recam.records import read_questions

    questions = read_questions(dev_path)[:5]
    lm = load_causal_lm(device="cpu", threads=1)
    assert lm.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    data = {
        "articles": [q.article for q in questions],
        "questions": [q.question for q in questions],
        "options": [q.options for q in questions],
    }
    shared = option_logprobs(lm, **data, batch_size=5)
    naive = naive_option_logprobs(lm, **data)
    assert shared.shape == (5, 5)
    np.testing.assert_allclose(shared, naive, rtol=1e-3, atol=2e-3)
    assert (choose(shared) == choose(naive)).all()


def _gemma_gguf():
    from baselines.lm_loading import gemma_model_path

    return gemma_model_path()


@pytest.mark.slow
@pytest.mark.skipif(
    not _gemma_gguf().is_file(), reason="optional Gemma 3 270M GGUF not assembled (scripts/setup.sh)"
)
def test_gemma_gguf_round_trips_and_shared_prefix_equals_naive_on_dev_questions(dev_path):
    from recam.records import read_questions

    questions = read_questions(dev_path)[:3]
    lm = load_causal_lm(model_path=str(_gemma_gguf()), device="cpu", threads=1)
    assert lm.sha256 == "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
    assert lm.model.config.model_type == "gemma3_text"
    for with_article in (True, False):  # Gemma's tokenizer asks for <bos>: every context starts with it
        context = lm_scorer.encode_context(
            lm.tokenizer, article=questions[0].article, article_tokens=400, with_article=with_article
        )
        assert context[0] == lm.tokenizer.bos_token_id
    for text in [questions[0].article[:300], " " + questions[0].question.replace("@placeholder", "naïve")]:
        assert lm.tokenizer.decode(lm.tokenizer.encode(text, add_special_tokens=False)) == text
    data = {
        "articles": [q.article for q in questions],
        "questions": [q.question for q in questions],
        "options": [q.options for q in questions],
    }
    shared = option_logprobs(lm, **data, batch_size=3)
    naive = naive_option_logprobs(lm, **data)
    assert shared.shape == (3, 5)
    np.testing.assert_allclose(shared, naive, rtol=1e-3, atol=2e-3)
    assert (choose(shared) == choose(naive)).all()
