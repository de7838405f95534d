"""Adapted Lesk as the public implementation of 2020 computes it: a sense's signature words against
the bag of context words (``--wsd signature``, the default).

PyPI ``pywsd`` 1.2.5 ``adapted_lesk`` (the implementation of Banerjee and Pedersen 2002 that was
public when ReCAM was built) scores a sense by ``len(signature & set(context))``, where the signature
is the lower-cased, lemmatised, stop-word-free bag of

* the sense's definition, examples and lemma names,
* the lemma names of its hypernyms, hyponyms, instance hypernyms and instance hyponyms,
* the lemma names of its member/part/substance holonyms and meronyms and its similar-to senses.

Because the score is a set overlap, it stays cheap over the paper's whole context (§3.3: "we
concatenate each summary sentence with the corresponding passage"), which our phrase-overlap Lesk
(``datagen.lesk``) can only afford over a window. We compute it here on NLTK's WordNet, already
loaded by the pipeline, instead of importing pywsd: its import loads a second WordNet and a
signature cache (about 20 s and 400 MB per process, more than a 1,000-pair run's whole Lesk stage).

Ties are frequent (a third of the gold nouns and verbs of ReCAM's Subtask 2 files have two senses
with the top overlap). pywsd ranks ``sorted((overlap, synset), reverse=True)``, and wn's synsets
compare by name, so a tie goes to the synset whose *name sorts last*: ``ties="pywsd"`` (``--wsd
signature``, the default) reproduces that, by the rule "reproduce the likeliest tool of the organisers
exactly". ``ties="frequency"`` (``--wsd signature-mfs``) gives a tie to WordNet's earlier sense (the
SemCor frequency order), the usual most-frequent-sense fallback of WSD. The stop words are pywsd's own list
(NLTK's English list and punctuation, a static set in ``pywsd/stopwords.py``, read from that file
without importing the package). One stated difference: pywsd lemmatises each signature word
with NLTK's lemmatiser and a tagger's guess of its POS (the tagger is NLTK data, not installed here);
we put each signature word's WordNet base forms for every POS into the signature ("selling" gives
"selling" and "sell"), and a context word (spaCy's lemma) counts if its WordNet base form is there. ``tests/datagen/test_wsd.py``
measures how often the two choose the same sense.
"""

import importlib.util
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from datagen.lesk import AdaptedLesk, Sense

_WORD = re.compile(r"[a-z][a-z0-9]*(?:[-'][a-z0-9]+)*")
HYPER_HYPO = ("hypernyms", "hyponyms", "instance_hypernyms", "instance_hyponyms")
TIES = ("pywsd", "frequency")
ADAPTED = (
    "member_holonyms",
    "part_holonyms",
    "substance_holonyms",
    "member_meronyms",
    "part_meronyms",
    "substance_meronyms",
    "similar_tos",
)


@lru_cache(maxsize=1)
def pywsd_stop_words() -> frozenset[str]:
    """pywsd 1.2.5's stop words, from its ``stopwords.py`` (importing ``pywsd`` would warm it up)."""
    spec = importlib.util.find_spec("pywsd")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the package 'pywsd' is not installed: run `make setup`")
    path = Path(next(iter(spec.submodule_search_locations))) / "stopwords.py"
    module_spec = importlib.util.spec_from_file_location("_pywsd_stopwords", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return frozenset(module.stopwords)


class SignatureLesk:
    """pywsd's adapted Lesk overlap (signature words shared with the context) on NLTK's WordNet."""

    def __init__(self, *, wordnet, stop_words: frozenset[str] | None = None, ties: str = "pywsd") -> None:
        if ties not in TIES:
            raise ValueError(f"ties must be one of {', '.join(TIES)}, got {ties!r}")
        self.ties = ties
        self.wordnet = wordnet
        self.stop_words = pywsd_stop_words() if stop_words is None else stop_words
        self._lesk = AdaptedLesk(wordnet=wordnet)
        self.senses = self._lesk.senses  # the same sense inventory (and order) as our Lesk
        self.signature = lru_cache(maxsize=None)(self._signature)
        self._norm = lru_cache(maxsize=None)(self._normalise)
        self._forms = lru_cache(maxsize=None)(self._base_forms)

    def _normalise(self, word: str) -> str:
        return self.wordnet.morphy(word) or word

    def _signature(self, name: str) -> frozenset[str]:
        synset = self.wordnet.synset(name)
        words = [w for text in (synset.definition(), *synset.examples()) for w in _WORD.findall(text.lower())]
        related = [synset]
        for relation in HYPER_HYPO + ADAPTED:
            related.extend(getattr(synset, relation)())
        words.extend(lemma.lower() for other in related for lemma in other.lemma_names())
        return frozenset(form for w in words if w not in self.stop_words for form in self._forms(w))

    def _base_forms(self, word: str) -> frozenset[str]:
        forms = {self.wordnet.morphy(word, pos) for pos in "nvar"} - {None}
        return frozenset(forms or {word})

    def disambiguate(self, *, lemma: str, pos: str, context: Sequence[tuple[str, str]]) -> Sense | None:
        """The sense of (lemma, spaCy pos) sharing the most signature words with the context's lemmas."""
        names = self.senses(lemma, pos)
        if not names:
            return None
        # pywsd is given the whole text, which contains the target word itself
        bag = frozenset(self._norm(word.lower()) for word in (lemma, *(w for w, _ in context)))
        scores = [len(self.signature(name) & bag) for name in names]
        if self.ties == "pywsd":  # the highest (overlap, name), as pywsd's reverse sort ranks them
            best_score, best_name = max(zip(scores, names, strict=True))
        else:  # the first of the best: WordNet's earlier, more frequent sense
            best_score = max(scores)
            best_name = names[scores.index(best_score)]
        return Sense(synset=best_name, score=best_score, depth=self.wordnet.synset(best_name).max_depth())
