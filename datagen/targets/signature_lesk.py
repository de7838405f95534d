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
(``datagen.targets.lesk``) can only afford over a window.

**Signatures.** pywsd ships them precomputed (``pywsd/data/signatures/signatures.pkl``, the
``adapted`` column); ``signatures="pywsd"`` (the default) reads that file with pandas, without importing
the ``pywsd`` package, whose import also loads a second WordNet and warms up a tagger (10-46 s wall per
process, measured at load 1-10; the file alone adds about 3.5 CPU-s and 0.33 GB peak memory to a
candidates run). ``signatures="wordnet"`` computes them from
NLTK's WordNet by the rule above (and fills in any synset the file lacks): pywsd lemmatises each
signature word with NLTK's lemmatiser and a tagger's guess of its POS (NLTK data, not installed here),
so we put each word's WordNet base forms for every POS into the signature instead ("selling" gives
"selling" and "sell"). The stop words are pywsd's own list (NLTK's English list and punctuation, a
static set in ``pywsd/stopwords.py``, read from that file). A context word (spaCy's lemma) counts if
its WordNet base form is in the signature.

**Ties** are frequent (docs/results/2026-11-24-candidates-v3.md: ``signature`` and ``signature-mfs`` differ only in the tie
rule, by 6 points on ReCAM's Subtask 2 dev file and 15 on trial). pywsd ranks ``sorted((overlap, synset), reverse=True)``, and wn's synsets
compare by name, so a tie goes to the synset whose *name sorts last*: ``ties="pywsd"`` (``--wsd
signature``, the default) reproduces that, by the rule "reproduce the likeliest tool of the organisers
exactly". ``ties="frequency"`` (``--wsd signature-mfs``) gives a tie to WordNet's earlier sense (the
SemCor frequency order), the usual most-frequent-sense fallback of WSD.
``tests/datagen/targets/test_signature_lesk.py`` checks that we choose pywsd's sense.
"""

import importlib.util
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from datagen.targets.lesk import PART_WHOLE, AdaptedLesk, Sense

_WORD = re.compile(r"[a-z][a-z0-9]*(?:[-'][a-z0-9]+)*")
HYPER_HYPO = ("hypernyms", "hyponyms", "instance_hypernyms", "instance_hyponyms")
TIES = ("pywsd", "frequency")
SIGNATURES = ("pywsd", "wordnet")
ADAPTED = (*PART_WHOLE, "similar_tos")


@lru_cache(maxsize=1)
def pywsd_stop_words() -> frozenset[str]:
    """pywsd 1.2.5's stop words, from its ``stopwords.py`` (importing ``pywsd`` would warm it up)."""
    path = _pywsd_dir() / "stopwords.py"
    module_spec = importlib.util.spec_from_file_location("_pywsd_stopwords", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return frozenset(module.stopwords)


@lru_cache(maxsize=1)
def pywsd_signatures():
    """pywsd 1.2.5's precomputed signatures (a pandas DataFrame, one column per synset name)."""
    import pandas as pd

    return pd.read_pickle(_pywsd_dir() / "data" / "signatures" / "signatures.pkl")


def _pywsd_dir() -> Path:
    spec = importlib.util.find_spec("pywsd")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the package 'pywsd' is not installed: run `make setup`")
    return Path(next(iter(spec.submodule_search_locations)))


class SignatureLesk:
    """pywsd's adapted Lesk overlap (signature words shared with the context) on NLTK's WordNet."""

    def __init__(
        self,
        *,
        wordnet,
        stop_words: frozenset[str] | None = None,
        ties: str = "pywsd",
        signatures: str = "pywsd",
    ) -> None:
        if ties not in TIES:
            raise ValueError(f"ties must be one of {', '.join(TIES)}, got {ties!r}")
        if signatures not in SIGNATURES:
            raise ValueError(f"signatures must be one of {', '.join(SIGNATURES)}, got {signatures!r}")
        self.ties = ties
        self._cached = pywsd_signatures() if signatures == "pywsd" else None
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
        if self._cached is not None and name in self._cached.columns:
            return frozenset(self._cached[name]["adapted"])
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
