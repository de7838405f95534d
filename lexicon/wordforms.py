"""Word forms on WordNet: base forms, synonyms, and derived forms of a word (the option filters of §3.5).

An option must not be the gold word in another guise: an inflection (``policies``/``policy``, by
WordNet's morphy), a synonym (any sense), or a derived form (``economy``/``economic``,
``decide``/``decision``, ``success``/``successful``). Derived forms come from WordNet's derivational
links and pertainyms; a shared Porter stem of at least :data:`MIN_STEM` letters catches the pairs
WordNet does not link. The WordNet reader is a parameter (``lexicon.resources.wordnet()``).
"""

from functools import lru_cache

from nltk.stem import PorterStemmer

MIN_STEM = 4  # shorter shared stems are mostly chance: car/care, war/warm
_STEMMER = PorterStemmer()


def lemma_forms(word: str, *, wordnet) -> frozenset[str]:
    """The word and all its WordNet base forms for every part of speech (``policies`` -> ``policy``)."""
    return _lemma_forms(word.lower().strip(), wordnet)


@lru_cache(maxsize=200_000)
def _lemma_forms(word: str, wordnet) -> frozenset[str]:
    forms = {word}
    for pos in ("n", "v", "a", "r"):
        # every analysis, not morphy()'s first: "losses" is a WordNet noun itself, and also "loss" + -es
        forms.update(base.lower() for base in wordnet._morphy(word, pos))
    return frozenset(forms)


def synonyms(word: str, *, wordnet) -> frozenset[str]:
    """Every lemma of every synset of ``word`` (all senses, all parts of speech), lower-cased."""
    return _synonyms(word.lower().strip(), wordnet)


@lru_cache(maxsize=50_000)
def _synonyms(word: str, wordnet) -> frozenset[str]:
    names: set[str] = set()
    for synset in wordnet.synsets(word.replace(" ", "_")):
        names.update(lemma.name().replace("_", " ").lower() for lemma in synset.lemmas())
    return frozenset(names)


def derived_forms(word: str, *, wordnet) -> frozenset[str]:
    """WordNet's derivationally related forms and pertainyms of the word's own lemmas, all senses.

    Only the lemmas spelt like the word (or one of its base forms) count, not their synonyms':
    ``economy`` -> ``economic``, ``economist``, ...; ``economic`` -> ``economy``, ``economics``.
    """
    return _derived_forms(word.lower().strip(), wordnet)


@lru_cache(maxsize=200_000)
def _derived_forms(word: str, wordnet) -> frozenset[str]:
    names: set[str] = set()
    for form in _lemma_forms(word, wordnet):
        for lemma in wordnet.lemmas(form.replace(" ", "_")):
            for related in (*lemma.derivationally_related_forms(), *lemma.pertainyms()):
                names.add(related.name().replace("_", " ").lower())
    return frozenset(names)


@lru_cache(maxsize=200_000)
def _stems(word: str, wordnet) -> frozenset[str]:
    """Porter stems of at least MIN_STEM letters of a one-word ``word`` and of its base forms."""
    if " " in word:
        return frozenset()
    stems = {_STEMMER.stem(form) for form in _lemma_forms(word, wordnet)}
    return frozenset(s for s in stems if len(s) >= MIN_STEM)


def is_derived_form(*, word: str, gold: str, wordnet) -> bool:
    """Whether ``word`` and ``gold`` are derived forms of one another (either direction, or one stem).

    >>> from lexicon.resources import wordnet
    >>> [is_derived_form(word=w, gold="economy", wordnet=wordnet()) for w in ("economic", "ecology")]
    [True, False]
    """
    word, gold = word.lower().strip(), gold.lower().strip()
    word_forms, gold_forms = _lemma_forms(word, wordnet), _lemma_forms(gold, wordnet)
    if word_forms & _derived_forms(gold, wordnet) or gold_forms & _derived_forms(word, wordnet):
        return True
    return bool(_stems(word, wordnet) & _stems(gold, wordnet))
