"""Fixtures of the datagen tests: a tiny random causal LM saved as a Hugging Face directory."""

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tiny_lm(tmp_path_factory) -> Path:
    """A randomly initialised 1-layer Llama with SmolLM2's tokenizer (read from the packaged GGUF)."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from baselines.lm_scorer import default_model_path

    gguf = default_model_path()
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=2048,
    )  # fmt: skip
    path = tmp_path_factory.mktemp("tiny-lm")
    LlamaForCausalLM(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path
