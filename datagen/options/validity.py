"""Valid test items (docs/explanation/validity.md): option forms (F), near-synonyms (N), contrast words (C).

Pure functions on one distractor and its gold, with the external resources (WordNet reader, an
encoder) as parameters. The rules are stated in docs/explanation/validity.md before they were measured.
"""

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from datagen.options.inflection import UPOS_OF_TAG
from recam.records import PLACEHOLDER

ZIPF_FLOOR = 2.5  # F2: wordfreq Zipf frequency (English) below this is too rare for an option
# N2: the 90th percentile of the in-context cosine between the gold and ReCAM's distractors on the
# ReCAM Subtask 2 trial file (MiniLM-L6), by :func:`context_threshold` (docs/explanation/validity.md, "Measured")
CONTEXT_MAX = 0.4284  # 4,000 pairs of 1,000 questions, 2026-11-26
WORDNET_POS = {"NOUN": ("n",), "VERB": ("v",), "ADJ": ("a", "s"), "ADV": ("r",)}


def upos(tag: str | None) -> str | None:
    return UPOS_OF_TAG.get(tag) if tag else None


@lru_cache(maxsize=65536)
def zipf(word: str) -> float:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


def _lemmas(word: str, upos_: str) -> tuple[str, ...]:
    from lemminflect import getAllLemmas

    return tuple(getAllLemmas(word, upos=upos_).get(upos_, ()))


def _count(wordnet, lemma: str, pos: Sequence[str]) -> tuple[int, int]:
    """(synsets, SemCor-tagged occurrences) of ``lemma`` in the WordNet parts of speech ``pos``."""
    synsets = [s for p in pos for s in wordnet.synsets(lemma, pos=p)]
    key = lemma.lower().replace(" ", "_")
    count = sum(n.count() for s in synsets for n in s.lemmas() if n.name().lower() == key)
    return len(synsets), count


def form_problem(*, word: str, tag: str | None, wordnet) -> str | None:
    """Rule F: why ``word`` is no admissible option form in the gold's slot (``tag``), or None."""
    if " " in word.strip():
        return None  # multi-word options are left to the other checks
    if zipf(word) < ZIPF_FLOOR:
        return "form-rare"
    universal = upos(tag)
    if universal is None:
        return None
    from lemminflect import getAllInflections, getInflection

    lemmas = _lemmas(word, universal)
    inflected = {
        f.lower()
        for lemma in lemmas
        for f in (*getInflection(lemma, tag=tag), *getAllInflections(lemma, upos=universal).get(tag, ()))
    }
    if word.lower() not in inflected:
        return "form-not-inflection"
    pos = WORDNET_POS[universal]
    other = [p for p in ("n", "v", "a", "r") if p not in pos]
    names = set(lemmas) | {m for m in [wordnet.morphy(word.lower(), pos[0])] if m}
    minor = []
    for lemma in names:
        _, count = _count(wordnet, lemma, pos)
        others, _none = _count(wordnet, lemma, other)
        minor.append(bool(others) and count == 0)
    if minor and all(minor):
        return "form-minor-reading"
    return None


def _gold_synsets(*, gold: str, tag: str | None, wordnet) -> list:
    universal = upos(tag)
    pos = WORDNET_POS.get(universal, ("n", "v", "a", "s", "r"))
    lemmas = set(_lemmas(gold, universal)) if universal else set()
    lemmas |= {m for p in pos if (m := wordnet.morphy(gold.lower(), p[0] if p != "s" else "a"))}
    lemmas.add(gold.lower())
    return list(dict.fromkeys(s for name in lemmas for p in pos for s in wordnet.synsets(name, pos=p)))


def _up(synset) -> list:
    return [*synset.hypernyms(), *synset.instance_hypernyms()]


def _down(synset) -> list:
    return [*synset.hyponyms(), *synset.instance_hyponyms()]


@lru_cache(maxsize=65536)
def _neighbours(synset) -> frozenset:
    """Rule N1: the synset, its lateral links, and every synset within two hypernym/hyponym steps."""
    found = {synset}
    for relation in ("similar_tos", "also_sees", "verb_groups", "entailments"):
        found.update(getattr(synset, relation)())
    for parent in _up(synset):
        found.update([parent, *_up(parent), *_down(parent)])  # grandparents and sisters
    for child in _down(synset):
        found.update([child, *_down(child)])
    return frozenset(found)


def wordnet_neighbour(*, word: str, gold: str, tag: str | None, wordnet) -> bool:
    """Rule N1: one of ``word``'s synsets (in the gold's part of speech) is within two steps of a gold
    synset (:func:`_neighbours`)."""
    gold_synsets = _gold_synsets(gold=gold, tag=tag, wordnet=wordnet)
    near = set().union(*(_neighbours(s) for s in gold_synsets)) if gold_synsets else set()
    return any(s in near for s in _gold_synsets(gold=word, tag=tag, wordnet=wordnet))


def is_antonym(*, word: str, gold: str, tag: str | None, wordnet) -> bool:
    """Rule C: ``word`` is a WordNet antonym of a gold sense in the gold's part of speech (through the
    lemmas' antonyms, and for adjectives through those of the sense's similar-tos)."""
    word_synsets = set(_gold_synsets(gold=word, tag=tag, wordnet=wordnet))
    for synset in _gold_synsets(gold=gold, tag=tag, wordnet=wordnet):
        for s in [synset, *synset.similar_tos()]:
            for lemma in s.lemmas():
                if {a.synset() for a in lemma.antonyms()} & word_synsets:
                    return True
    return False


def filled_words(question: str, word: str) -> tuple[list[str], list[int]]:
    """The summary's whitespace words with the blank filled by ``word``, and the filled positions."""
    before, after = question.split(PLACEHOLDER, 1)
    head, tail, fill = before.split(), after.split(), word.split()
    return [*head, *fill, *tail], list(range(len(head), len(head) + len(fill)))


def context_cosines(*, encoder, question: str, gold: str, words: Sequence[str]) -> dict[str, float]:
    """Rule N2's measure: cosine of each word's contextual embedding in the filled summary with the gold's."""
    if not words:
        return {}
    filled = [filled_words(question, w) for w in [gold, *words]]
    vectors = encoder.embed(sentences=[f[0] for f in filled])  # per sentence: Shape: (words, hidden)
    means = []
    for (_, where), array in zip(filled, vectors, strict=True):
        v = array[where].mean(axis=0)  # Shape: (hidden,)
        n = float(np.linalg.norm(v))
        means.append(v / n if n > 0 else v)
    gold_vector = means[0]
    return {w: float(v @ gold_vector) for w, v in zip(words, means[1:], strict=True)}


def context_threshold(*, questions, encoder, percentile: float = 90.0) -> dict:
    """Rule N2's tau: the ``percentile`` of the gold-distractor cosines over labelled ReCAM questions."""
    cosines = []
    for question in questions:
        others = [o for i, o in enumerate(question.options) if i != question.label]
        cosines.extend(
            context_cosines(
                encoder=encoder, question=question.question, gold=question.answer, words=others
            ).values()
        )
    return {
        "percentile": percentile,
        "threshold": float(np.percentile(cosines, percentile)),
        "pairs": len(cosines),
        "questions": len(questions),
    }


def option_problem(*, word: str, gold: str, tag: str | None, wordnet, synonyms: bool = True) -> str | None:
    """Rules F and (with ``synonyms``; an antonym is exempt) N1 for one distractor: the first reason
    it is refused, or None."""
    problem = form_problem(word=word, tag=tag, wordnet=wordnet)
    if problem is None and synonyms and wordnet_neighbour(word=word, gold=gold, tag=tag, wordnet=wordnet):
        problem = "near-synonym"
    return problem
