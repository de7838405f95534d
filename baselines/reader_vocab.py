"""A trained reader's vocabularies (words, candidates, gloss words) and their growth.

A reader meets words it was not trained on at prediction time; each new word with a vector gets a fixed
(untrained) embedding row from the word vectors, and each new candidate its WordNet gloss for the
gloss reader. ``TrainedReader`` (baselines.trained_reader) builds on this class.
"""

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

from baselines.data import encode_tokens, tokenize
from baselines.reader_config import ReaderConfig
from baselines.readers import ReaderBase


def fixed_vectors(vectors, words: Sequence[str]) -> torch.Tensor:
    """Rows for ``words`` (a word of several tokens gets the mean of its tokens' vectors)."""
    rows = np.zeros((len(words), vectors.dim), dtype=np.float32)  # Shape: (num_words, dim)
    for i, word in enumerate(words):
        found = [v for v in (vectors.get(t) for t in (tokenize(word) or [word])) if v is not None]
        if found:
            rows[i] = np.mean(found, axis=0)
    return torch.from_numpy(rows)


class ReaderVocabulary:
    """The vocabularies of a reader and its module's embedding rows for them, grown together."""

    def __init__(
        self,
        *,
        config: ReaderConfig,
        module: ReaderBase,
        words: list[str],
        candidates: list[str],
        gloss_words: list[str],
        candidate_glosses: list[tuple[int, ...]],
        candidate_set: tuple[str, ...] | None,
        vectors=None,
        wordnet=None,
        info: dict | None = None,
    ) -> None:
        self.config = config
        self.module = module
        self.words = list(words)
        self.word_index = {w: i for i, w in enumerate(self.words)}
        self.candidates = list(candidates)
        self.candidate_index = {c: i for i, c in enumerate(self.candidates)}
        self.gloss_words = list(gloss_words)
        self.gloss_index = {w: i for i, w in enumerate(self.gloss_words)}
        self.candidate_glosses = list(candidate_glosses)
        self.candidate_set = candidate_set
        self.vectors = vectors
        self.wordnet = wordnet
        self.info = dict(info or {})

    def _vectors(self):
        if self.vectors is None:
            from lexicon.vectors import load_vectors

            path = self.info.get("vectors_path")
            self.vectors = load_vectors(Path(path) if path else None)
            expected = self.info.get("vectors_sha256")
            if expected and self.vectors.sha256 != expected:
                raise ValueError(
                    f"the word vectors {self.vectors.name} differ from the ones this model was trained "
                    "with: pass the same vectors (GLOVE_PATH) to load()"
                )
        return self.vectors

    def _wordnet(self):
        if self.wordnet is None:
            from lexicon.resources import wordnet

            self.wordnet = wordnet()
        return self.wordnet

    def add_words(self, tokens: set[str]) -> None:
        vectors = self._vectors()
        new = sorted(t for t in tokens if t not in self.word_index and vectors.get(t) is not None)
        if new:
            self.module.extend_words(fixed_vectors(vectors, new))
            for word in new:
                self.word_index[word] = len(self.words)
                self.words.append(word)

    def add_candidates(self, keys: Sequence[str]) -> None:
        new = [k for k in dict.fromkeys(keys) if k not in self.candidate_index]
        if not new:
            return
        vectors = self._vectors()
        if self.config.reader == "att-gloss":
            from lexicon.glosses import gloss

            texts = [tokenize(gloss(word=k, wordnet=self._wordnet())) for k in new]
            fresh = sorted({t for text in texts for t in text if t not in self.gloss_index})
            self.module.extend_gloss_words(fixed_vectors(vectors, fresh))
            for word in fresh:
                self.gloss_index[word] = len(self.gloss_words)
                self.gloss_words.append(word)
            limit = self.config.max_gloss_tokens
            self.candidate_glosses += [encode_tokens(t, self.gloss_index, limit=limit) for t in texts]
        else:
            self.candidate_glosses += [(1,)] * len(new)
        self.module.extend_candidates(fixed_vectors(vectors, new))
        for key in new:
            self.candidate_index[key] = len(self.candidates)
            self.candidates.append(key)
