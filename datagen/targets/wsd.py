"""Word senses for Subtask 2 (§3.3), behind one ``--wsd`` setting.

* ``signature`` (default since pipeline version 3): the adapted Lesk of the public implementation of
  2020 (pywsd's ``adapted_lesk``: signature words shared with the context), with pywsd's own
  precomputed signatures, by ``datagen.targets.signature_lesk``, over the whole summary + passage
  (``--wsd-context text``).
  Default by the rule "the paper's stated context (§3.3) with the cited algorithm as publicly
  implemented when ReCAM was built", ties included; docs/results/2026-11-24-candidates-v3.md gives the held-out check on dev
  and trial. ``signature-mfs``: the same overlap, ties to WordNet's most frequent sense.
* ``lesk``: our phrase-overlap adapted Lesk (Banerjee and Pedersen 2002, ``datagen.targets.lesk``), the
  default of pipeline versions 1-2 (with ``--wsd-context window``).
* ``pywsd``: PyPI ``pywsd`` 1.2.5 ``adapted_lesk`` (the public implementation of 2020, the likeliest
  tool the organisers ran) over the same lemmatised context (``--wsd-context``); it costs the
  package's import (a second WordNet and a warm-up, 10-46 s wall per process at load 1-10). pywsd's import warms up with
  NLTK's perceptron tagger and punkt, which are NLTK data (no PyPI package, no ``nltk.download``
  here): ``_import_pywsd`` gives it a tagger that tags each word with the target's own part of speech,
  which is all ``adapted_lesk`` asks of it when the context is already lemmatised.
* ``first-sense``: WordNet's first sense for the part of speech (WordNet orders senses by their
  SemCor ``cntlist`` counts), i.e. a sense-frequency prior.
* ``embedding``: the sense whose gloss (lemma names and definition, mean of the MiniLM encoder's word
  vectors) is closest by cosine to the target's contextual vector in its context window (use it with
  ``--wsd-context window``: it places the target in the middle of its context).

Each disambiguator offers ``senses(lemma, pos)`` and ``disambiguate(lemma=, pos=, context=)`` and
returns a ``lesk.Sense`` (synset name, score, max depth) like ``AdaptedLesk``.
"""

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from datagen.targets.config import DEFAULT_WSD, WSD_CHOICES
from datagen.targets.lesk import AdaptedLesk, Sense
from datagen.targets.signature_lesk import SignatureLesk

__all__ = ["DEFAULT_WSD", "WSD_CHOICES", "build_disambiguator"]

_PENN = {"NOUN": "NN", "VERB": "VB", "ADJ": "JJ", "ADV": "RB"}
_MORPHY = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}


class FirstSense:
    """WordNet's most frequent sense of the word for its part of speech (no context)."""

    def __init__(self, *, wordnet) -> None:
        self.wordnet = wordnet
        self._lesk = AdaptedLesk(wordnet=wordnet)
        self.senses = self._lesk.senses

    def disambiguate(self, *, lemma: str, pos: str, context: Sequence[tuple[str, str]]) -> Sense | None:
        names = self.senses(lemma, pos)
        if not names:
            return None
        return Sense(synset=names[0], score=0, depth=self.wordnet.synset(names[0]).max_depth())


def _import_pywsd():
    """Import ``pywsd.lesk`` offline (see the module docstring); returns the module."""
    import nltk

    saved = nltk.pos_tag, nltk.sent_tokenize
    nltk.pos_tag = lambda words, *args, **kwargs: [(word, "NN") for word in words]
    nltk.sent_tokenize = lambda text, *args, **kwargs: [text]
    try:
        import pywsd.lesk
        import pywsd.tokenize
        import pywsd.utils
    finally:
        nltk.pos_tag, nltk.sent_tokenize = saved
    return pywsd


class PywsdLesk:
    """``pywsd.lesk.adapted_lesk`` on the lemmatised context window, with the target's POS."""

    def __init__(self, *, wordnet) -> None:
        self.wordnet = wordnet
        self._lesk = AdaptedLesk(wordnet=wordnet)
        self.senses = self._lesk.senses
        self._pywsd = _import_pywsd()
        self.cached = lru_cache(maxsize=200_000)(self._choose)

    def _choose(self, lemma: str, pos: str, context: str) -> str | None:
        penn = _PENN[pos]
        self._pywsd.utils.pos_tag = lambda words, *a, **k: [(word, penn) for word in words]
        synset = self._pywsd.lesk.adapted_lesk(
            context, lemma.replace(" ", "_"), pos=_MORPHY[pos], context_is_lemmatized=True
        )
        return None if synset is None else synset.name()

    def disambiguate(self, *, lemma: str, pos: str, context: Sequence[tuple[str, str]]) -> Sense | None:
        names = self.senses(lemma, pos)
        if not names:
            return None
        text = " ".join(word.lower().replace(" ", "_") for word, _ in context)
        name = self.cached(lemma.lower(), pos, text)
        if name is None or name not in names:  # pywsd found no sense of that POS: the first sense
            name = names[0]
        return Sense(synset=name, score=0, depth=self.wordnet.synset(name).max_depth())


class EmbeddingWSD:
    """Gloss vs context: cosine of the target's contextual vector with each sense's gloss vector."""

    def __init__(self, *, wordnet, encoder) -> None:
        self.wordnet = wordnet
        self.encoder = encoder
        self._lesk = AdaptedLesk(wordnet=wordnet)
        self.senses = self._lesk.senses
        self.gloss_vector = lru_cache(maxsize=None)(self._gloss_vector)

    def _gloss_vector(self, name: str) -> np.ndarray:
        synset = self.wordnet.synset(name)
        words = [lemma.name().replace("_", " ") for lemma in synset.lemmas()][:3]
        text = ", ".join(words) + ": " + synset.definition()
        vectors = self.encoder.embed(sentences=[text.split()])[0]  # Shape: (words, hidden)
        return _unit(vectors.mean(0))

    def disambiguate(self, *, lemma: str, pos: str, context: Sequence[tuple[str, str]]) -> Sense | None:
        names = self.senses(lemma, pos)
        if not names:
            return None
        half = len(context) // 2
        words = [w for w, _ in context[:half]] + [lemma] + [w for w, _ in context[half:]]
        target = _unit(self.encoder.embed(sentences=[words])[0][half])  # Shape: (hidden,)
        scores = [float(self.gloss_vector(name) @ target) for name in names]
        best = int(np.argmax(scores))  # ties: the earlier, more frequent sense
        return Sense(
            synset=names[best],
            score=round(scores[best], 6),
            depth=self.wordnet.synset(names[best]).max_depth(),
        )


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


def build_disambiguator(*, name: str, wordnet, encoder_loader=None):
    """The disambiguator for a ``--wsd`` choice; ``encoder_loader()`` gives the encoder for embedding."""
    if name in ("signature", "signature-mfs"):
        return SignatureLesk(wordnet=wordnet, ties="pywsd" if name == "signature" else "frequency")
    if name == "lesk":
        return AdaptedLesk(wordnet=wordnet)
    if name == "first-sense":
        return FirstSense(wordnet=wordnet)
    if name == "pywsd":
        return PywsdLesk(wordnet=wordnet)
    if name == "embedding":
        if encoder_loader is None:
            from datagen.targets.encoder import load_encoder as encoder_loader
        return EmbeddingWSD(wordnet=wordnet, encoder=encoder_loader())
    raise ValueError(f"unknown word-sense method {name!r}: use one of {', '.join(WSD_CHOICES)}")
