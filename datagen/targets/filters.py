"""The filters of §3.4: lemma, synonyms/antonyms, GloVe and contextual similarity.

The synonym/antonym pool has two scopes: ``all`` (the paper's wording: every sense of the word, every
part of speech, no WSD) and ``sense`` (the lemmas and antonyms of the target's chosen sense only).

Each function answers one question about one candidate and names what it matched, so the pipeline
can count how many candidates each filter removed and the fidelity report can say why.
"""

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from datagen.nlp import Analysis, Token

DEFAULT_GLOVE_MAX = 0.85
# Calibrated for the default encoder (MiniLM-L6) by ``python -m datagen.targets.contextual`` (equal-error point
# of same-word and different-word cosines on 200 XSum pairs); the paper's 0.85 was for BERT-large.
DEFAULT_CONTEXTUAL_MAX = 0.679
PAPER_CONTEXTUAL_MAX = 0.85


@dataclass(frozen=True)
class PassageIndex:
    """What the filters look up in a passage: lemmas, lower-cased words and 2-3 word phrases."""

    lemmas: frozenset[str]
    words: tuple[str, ...]  # distinct lower-cased words with a letter, in first-seen order
    phrases: frozenset[str]  # lemma and word n-grams (n <= 3) joined by "_", as WordNet spells them


def passage_index(passage: Analysis) -> PassageIndex:
    lemmas = [t.lemma.lower() for t in passage.tokens]
    lowers = [t.lower for t in passage.tokens]
    phrases: set[str] = set(lemmas) | set(lowers)
    for seq in (lemmas, lowers):
        for n in (2, 3):
            phrases.update("_".join(seq[i : i + n]) for i in range(len(seq) - n + 1))
    words = tuple(dict.fromkeys(w for w in lowers if any(c.isalpha() for c in w)))
    return PassageIndex(lemmas=frozenset(lemmas), words=words, phrases=frozenset(phrases))


def lemma_match(*, token: Token, index: PassageIndex) -> str | None:
    """The token's lemma if the lemmatized passage contains it (§3.4, filtering by lemmas)."""
    lemma = token.lemma.lower()
    return lemma if lemma in index.lemmas else None


@lru_cache(maxsize=100_000)
def _pool(wordnet, lemma: str) -> frozenset[str]:
    pool: set[str] = set()
    for synset in wordnet.synsets(lemma):
        for name in synset.lemmas():
            pool.add(name.name().lower())
            pool.update(antonym.name().lower() for antonym in name.antonyms())
    pool.discard(lemma)
    return frozenset(pool)


def synonym_antonym_pool(*, wordnet, lemma: str) -> frozenset[str]:
    """Every synonym and antonym over all senses of ``lemma`` (every POS), without the word itself."""
    return _pool(wordnet, lemma.lower().replace(" ", "_"))


@lru_cache(maxsize=100_000)
def _sense_pool(wordnet, synset: str) -> frozenset[str]:
    pool: set[str] = set()
    for name in wordnet.synset(synset).lemmas():
        pool.add(name.name().lower())
        pool.update(antonym.name().lower() for antonym in name.antonyms())
    return frozenset(pool)


def sense_synonym_antonym_pool(*, wordnet, synset: str, lemma: str) -> frozenset[str]:
    """The lemmas of one synset and their antonyms, without the word itself."""
    return _sense_pool(wordnet, synset) - {lemma.lower().replace(" ", "_")}


def synonym_antonym_match(
    *, wordnet, token: Token, index: PassageIndex, synset: str | None = None
) -> str | None:
    """A synonym or antonym of the token that occurs in the passage, if any: of its chosen sense
    ``synset`` when given, else of any sense (the paper's pool)."""
    if synset is not None:
        hits = sense_synonym_antonym_pool(wordnet=wordnet, synset=synset, lemma=token.lemma) & index.phrases
        hits -= {token.lower}
        return min(hits) if hits else None
    hits = synonym_antonym_pool(wordnet=wordnet, lemma=token.lemma) & index.phrases
    if not hits:
        hits = synonym_antonym_pool(wordnet=wordnet, lemma=token.lower) & index.phrases
    return min(hits) if hits else None


def _unit_rows(array: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(array, axis=1, keepdims=True)  # Shape: (rows, 1)
    return np.divide(array, norms, out=np.zeros_like(array), where=norms > 0)


def glove_passage_matrix(*, vectors, index: PassageIndex) -> tuple[np.ndarray, tuple[str, ...]]:
    """Unit vectors of the passage words that have one, and those words."""
    array, found = vectors.matrix(index.words)  # Shape: (num_words, dim)
    words = tuple(w for w, ok in zip(index.words, found, strict=True) if ok)
    return _unit_rows(array[np.asarray(found, dtype=bool)]), words


def glove_match(
    *, vectors, word: str, passage: tuple[np.ndarray, tuple[str, ...]], threshold: float = DEFAULT_GLOVE_MAX
) -> tuple[str, float] | None:
    """The most similar passage word if its GloVe cosine with ``word`` exceeds ``threshold``."""
    matrix, words = passage
    vector = vectors.get(word)
    if vector is None or not words:
        return None
    norm = float(np.linalg.norm(vector))
    if norm == 0:
        return None
    cosines = matrix @ (vector / norm)  # Shape: (num_words,)
    best = int(np.argmax(cosines))
    return (words[best], float(cosines[best])) if cosines[best] > threshold else None


def contextual_match(
    *, token_vector: np.ndarray, passage_vectors: np.ndarray, threshold: float = DEFAULT_CONTEXTUAL_MAX
) -> tuple[int, float] | None:
    """The passage token (index, cosine) most similar to a summary token, if above ``threshold``."""
    if passage_vectors.shape[0] == 0:
        return None
    norm = float(np.linalg.norm(token_vector))
    if norm == 0:
        return None
    cosines = _unit_rows(passage_vectors) @ (token_vector / norm)  # Shape: (num_passage_tokens,)
    best = int(np.argmax(cosines))
    return (best, float(cosines[best])) if cosines[best] > threshold else None
