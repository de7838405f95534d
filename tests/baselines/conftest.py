"""Small real inputs for the reader tests: trial/dev records, GloVe rows for their words, WordNet."""

from pathlib import Path

import pytest
import torch

from baselines.data import ClozeExample, from_question, tokenize
from recam.records import read_questions


@pytest.fixture(autouse=True)
def _one_thread():
    torch.set_num_threads(1)  # a shared CPU: more threads are slower, and results stay comparable


@pytest.fixture(scope="session")
def trial_path(recam_data_dir) -> Path:
    return recam_data_dir / "trail_data" / "Task_1_Imperceptibility.jsonl"


@pytest.fixture(scope="session")
def dev_path(recam_data_dir) -> Path:
    return recam_data_dir / "training_data" / "Task_1_dev.jsonl"


@pytest.fixture(scope="session")
def trial_examples(trial_path) -> list[ClozeExample]:
    return [from_question(q) for q in read_questions(trial_path)[:40]]


@pytest.fixture(scope="session")
def dev_examples(dev_path) -> list[ClozeExample]:
    return [from_question(q) for q in read_questions(dev_path)[:12]]


@pytest.fixture(scope="session")
def vectors(trial_examples, dev_examples):
    """The packaged GloVe 6B 50d, restricted to the words the test examples use."""
    from lexicon.vectors import load_vectors

    words = set()
    for example in [*trial_examples, *dev_examples]:
        words.update(tokenize(example.article + " " + example.question))
        words.update(w.lower() for w in example.options or ())
    return load_vectors(vocabulary=words)


@pytest.fixture(scope="session")
def wordnet():
    from lexicon.resources import wordnet

    return wordnet()


TEXTS = [
    "The council approved the new budget after a long debate about schools and roads.",
    "Forty-seven staff have lost their jobs at the factory, the union said on Monday.",
    "Scientists found that the river had become warmer over the past decade.",
    "The team won the final match with a late goal in extra time.",
]


@pytest.fixture(scope="session")
def tiny_tokenizer():
    """A byte-level BPE tokenizer trained in the test on a few sentences (offline, fast)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=["<pad>", "<unk>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(TEXTS * 3 + ["Summary: @placeholder"], trainer=trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", unk_token="<unk>")


def tiny_llama(vocab_size: int, seed: int = 0):
    """A randomly initialised two-layer Llama (hidden size 32)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=vocab_size, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
    )  # fmt: skip
    return LlamaForCausalLM(config).eval()


@pytest.fixture(scope="session")
def tiny_lm_dir(tmp_path_factory, tiny_tokenizer) -> Path:
    """The tiny Llama and its tokenizer saved as a Hugging Face model directory."""
    directory = tmp_path_factory.mktemp("tiny-llama")
    tiny_llama(len(tiny_tokenizer), seed=2).save_pretrained(directory)
    tiny_tokenizer.save_pretrained(directory)
    return directory
