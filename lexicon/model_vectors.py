"""Word vectors from models, shaped like ``lexicon.vectors.WordVectors``: a spaCy pipeline's static table,
a Hugging Face encoder run on the word alone, and the concatenation of several sources."""

import hashlib
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path

import numpy as np

from lexicon import resources
from lexicon.files import file_sha256


class SpacyWordVectors:
    """The static vectors of a spaCy pipeline (e.g. en_core_web_md's 300d table), WordVectors-shaped."""

    def __init__(self, *, model: str | Path) -> None:
        import spacy

        pipes = ["tagger", "parser", "ner", "lemmatizer", "attribute_ruler", "senter", "tok2vec"]
        self._vocab = spacy.load(model, exclude=pipes).vocab
        self.dim: int = int(self._vocab.vectors.shape[1])
        self.name = f"spacy:{Path(str(model)).name} ({self._vocab.vectors.shape[0]}x{self.dim})"
        self._vectors_file = Path(str(model)) / "vocab" / "vectors"

    @cached_property
    def sha256(self) -> str:
        if self._vectors_file.is_file():
            return file_sha256(self._vectors_file)
        return hashlib.sha256(self.name.encode()).hexdigest()

    def _key(self, word: str) -> str | None:
        for form in (word, word.lower()):
            if form and self._vocab.has_vector(form):
                return form
        return None

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self._key(word) is not None

    def get(self, word: str) -> np.ndarray | None:
        key = self._key(word)
        return None if key is None else np.array(self._vocab.get_vector(key), dtype=np.float32)

    def matrix(self, words: Iterable[str]) -> tuple[np.ndarray, list[bool]]:
        words = list(words)
        out = np.zeros((len(words), self.dim), dtype=np.float32)  # Shape: (num_words, dim)
        found = []
        for i, word in enumerate(words):
            vector = self.get(word)
            found.append(vector is not None)
            if vector is not None:
                out[i] = vector
        return out, found


class EncoderWordVectors:
    """A word's vector from a Hugging Face encoder run on the word alone (MiniLM by default).

    The vector is the mean over the word's WordPiece tokens (no [CLS]/[SEP]) of the states of every
    transformer layer averaged (``layers="all"``, the default: better for abstractness) or of the
    last layer only (``layers="last"``). Every non-empty word has one, since WordPiece never fails;
    empty strings are reported missing.
    """

    def __init__(self, *, model_dir: Path | None = None, layers: str = "all", batch_size: int = 256) -> None:
        if layers not in ("all", "last"):
            raise ValueError(f"layers must be 'all' or 'last', got {layers!r}")
        from transformers import AutoModel, AutoTokenizer

        self.model_dir = Path(model_dir) if model_dir is not None else resources.encoder_model_dir()
        self._tokenizer = AutoTokenizer.from_pretrained(self.model_dir)
        self._model = AutoModel.from_pretrained(self.model_dir).eval()
        self.dim: int = int(self._model.config.hidden_size)
        label = self.model_dir.name if self.model_dir.name != "model" else self.model_dir.parent.name
        self.name = f"encoder:{label}:{layers}-layers ({self.dim}d)"
        self.layers = layers
        self.batch_size = batch_size

    @cached_property
    def sha256(self) -> str:
        weights = sorted(self.model_dir.glob("*.safetensors")) or sorted(self.model_dir.glob("*.bin"))
        joined = "".join(file_sha256(path) for path in weights)
        return hashlib.sha256(joined.encode()).hexdigest()

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and bool(word.strip())

    def get(self, word: str) -> np.ndarray | None:
        out, found = self.matrix([word])
        return out[0] if found[0] else None

    def matrix(self, words: Iterable[str]) -> tuple[np.ndarray, list[bool]]:
        import torch

        words = list(words)
        found = [bool(word.strip()) for word in words]
        out = np.zeros((len(words), self.dim), dtype=np.float32)  # Shape: (num_words, dim)
        todo = [i for i, ok in enumerate(found) if ok]
        for start in range(0, len(todo), self.batch_size):
            batch = todo[start : start + self.batch_size]
            encoded = self._tokenizer(
                [words[i] for i in batch], padding=True, return_tensors="pt", return_special_tokens_mask=True
            )
            special = encoded.pop("special_tokens_mask")
            with torch.no_grad():
                output = self._model(**encoded, output_hidden_states=self.layers == "all")
            if self.layers == "all":
                states = torch.stack(output.hidden_states[1:]).mean(0)  # Shape: (batch, seq_len, hidden)
            else:
                states = output.last_hidden_state  # Shape: (batch, seq_len, hidden)
            mask = (
                (encoded["attention_mask"] * (1 - special)).unsqueeze(-1).float()
            )  # Shape: (batch, seq_len, 1)
            pooled = (states * mask).sum(1) / mask.sum(1).clamp(min=1.0)  # Shape: (batch, hidden)
            out[batch] = pooled.numpy()
        return out, found


class ConcatVectors:
    """Several vector sources side by side; a word is found only if every source has it."""

    def __init__(self, *, parts: Iterable) -> None:
        self.parts = list(parts)
        self.dim: int = sum(part.dim for part in self.parts)
        self.name = " + ".join(part.name for part in self.parts)

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256("".join(part.sha256 for part in self.parts).encode()).hexdigest()

    def __contains__(self, word: object) -> bool:
        return all(word in part for part in self.parts)

    def get(self, word: str) -> np.ndarray | None:
        out, found = self.matrix([word])
        return out[0] if found[0] else None

    def matrix(self, words: Iterable[str]) -> tuple[np.ndarray, list[bool]]:
        words = list(words)
        blocks, flags = zip(*(part.matrix(words) for part in self.parts), strict=True)
        found = [all(column) for column in zip(*flags, strict=True)] if words else []
        out = np.concatenate(blocks, axis=1)  # Shape: (num_words, sum of dims)
        out[[i for i, ok in enumerate(found) if not ok]] = 0.0
        return out, found
