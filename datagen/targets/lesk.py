"""The adapted Lesk algorithm of Banerjee and Pedersen (2002) over WordNet.

* The extended gloss of a sense is its own gloss (definition and examples) followed by the
  definitions of its related synsets: hypernyms, hyponyms, meronyms, holonyms (member, part,
  substance, instance), also-see, attributes and similar-to. Glosses are lower-cased, split into
  words and normalised with WordNet's ``morphy``.
* Two extended glosses overlap in maximal common phrases, found longest first (a word position is
  used once); a phrase of n words scores n**2. Phrases start and end with a non-stop word, so an
  overlap made only of stop words scores nothing.
* A sense of the target scores the sum, over the context words, of its best overlap with any sense
  of that context word (the "local" form of Banerjee & Pedersen 2003 / Patwardhan et al. 2003, which
  avoids scoring every sense combination of the window). Ties go to the earlier, more frequent sense.

This is where the Subtask 2 time goes, so extended glosses are cached per synset and the best
overlap per (sense, context word) pair is cached too (``functools.lru_cache``).
"""

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from spacy.lang.en.stop_words import STOP_WORDS

# the six part-whole relations (WordNet's holonyms and meronyms), shared with datagen.targets.signature_lesk
PART_WHOLE = tuple(
    f"{kind}_{rel}" for rel in ("holonyms", "meronyms") for kind in ("member", "part", "substance")
)
RELATIONS = (
    "hypernyms",
    "instance_hypernyms",
    "hyponyms",
    "instance_hyponyms",
    *PART_WHOLE,
    "also_sees",
    "attributes",
    "similar_tos",
)
WORD_POS = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}
_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")


@dataclass(frozen=True)
class Signature:
    """An extended gloss: its words, its non-stop words, and where each non-stop word occurs."""

    words: tuple[str, ...]
    content: frozenset[str]
    positions: dict[str, tuple[int, ...]]


@dataclass(frozen=True)
class Sense:
    synset: str  # WordNet synset name, e.g. "bank.n.01"
    score: int  # the adapted Lesk score of the chosen sense
    depth: int  # synset.max_depth(): maximal hypernym path length to the root


def _phrases(a: Signature, b: Signature, stop: frozenset[str]) -> list[tuple[int, int, int]]:
    """Candidate common phrases (length, start in a, start in b), each starting at a non-stop word."""
    found = []
    wa, wb = a.words, b.words
    for word in a.content & b.content:
        for i in a.positions[word]:
            for j in b.positions[word]:
                length = 1
                while i + length < len(wa) and j + length < len(wb) and wa[i + length] == wb[j + length]:
                    length += 1
                while wa[i + length - 1] in stop:  # end on a non-stop word (the start is one)
                    length -= 1
                found.append((length, i, j))
    return found


def overlap(a: Signature, b: Signature, *, stop: frozenset[str] = frozenset(STOP_WORDS)) -> int:
    """Sum of squared lengths of the maximal overlapping phrases of two extended glosses."""
    if a.content.isdisjoint(b.content):
        return 0
    candidates = sorted(_phrases(a, b, stop), key=lambda c: (-c[0], c[1], c[2]))
    used_a: set[int] = set()
    used_b: set[int] = set()
    score = 0
    for length, i, j in candidates:
        span_a, span_b = range(i, i + length), range(j, j + length)
        if used_a.isdisjoint(span_a) and used_b.isdisjoint(span_b):
            used_a.update(span_a)
            used_b.update(span_b)
            score += length * length
    return score


class AdaptedLesk:
    """Word sense disambiguation by extended gloss overlaps; ``wordnet`` is NLTK's reader."""

    def __init__(self, *, wordnet, stop_words: frozenset[str] = frozenset(STOP_WORDS)) -> None:
        self.wordnet = wordnet
        self.stop_words = stop_words
        self.signature = lru_cache(maxsize=None)(self._signature)
        self.senses = lru_cache(maxsize=200_000)(self._senses)
        self.relatedness = lru_cache(maxsize=500_000)(self._relatedness)
        self._norm = lru_cache(maxsize=None)(self._normalise)

    def _normalise(self, word: str) -> str:
        return self.wordnet.morphy(word) or word

    def _senses(self, lemma: str, pos: str) -> tuple[str, ...]:
        """Synset names of a word for a spaCy POS, most frequent first (lemma, then lower-cased)."""
        wn_pos = WORD_POS.get(pos)
        if wn_pos is None:
            return ()
        for form in (lemma, lemma.lower()):
            synsets = self.wordnet.synsets(form.replace(" ", "_"), pos=wn_pos)
            if wn_pos == "a":
                synsets = [s for s in synsets if s.pos() in "as"]
            else:
                synsets = [s for s in synsets if s.pos() == wn_pos]
            if synsets:
                return tuple(s.name() for s in synsets)
        return ()

    def _signature(self, name: str) -> Signature:
        synset = self.wordnet.synset(name)
        texts = [synset.definition(), *synset.examples()]
        for relation in RELATIONS:
            # sorted: NLTK's relation lists follow set order, which changes with PYTHONHASHSEED
            related = sorted(getattr(synset, relation)(), key=lambda other: other.name())
            texts.extend(other.definition() for other in related)
        words = tuple(self._norm(w) for text in texts for w in _WORD.findall(text.lower()))
        positions: dict[str, list[int]] = {}
        for index, word in enumerate(words):
            if word not in self.stop_words:
                positions.setdefault(word, []).append(index)
        return Signature(
            words=words,
            content=frozenset(positions),
            positions={word: tuple(where) for word, where in positions.items()},
        )

    def _relatedness(self, synset: str, lemma: str, pos: str) -> int:
        """The best overlap between ``synset`` and any sense of the context word (lemma, pos)."""
        mine = self.signature(synset)
        return max(
            (overlap(mine, self.signature(other), stop=self.stop_words) for other in self.senses(lemma, pos)),
            default=0,
        )

    def disambiguate(self, *, lemma: str, pos: str, context: Sequence[tuple[str, str]]) -> Sense | None:
        """The best sense of (lemma, spaCy pos) given context words as (lemma, pos); None if no sense."""
        names = self.senses(lemma, pos)
        if not names:
            return None
        counts = Counter(context)
        best_name, best_score = names[0], -1
        for name in names:
            score = sum(n * self.relatedness(name, c_lemma, c_pos) for (c_lemma, c_pos), n in counts.items())
            if score > best_score:
                best_name, best_score = name, score
        return Sense(synset=best_name, score=best_score, depth=self.wordnet.synset(best_name).max_depth())


def context_window(*, words: Sequence[tuple[str, str]], position: int, window: int) -> list[tuple[str, str]]:
    """Up to ``window`` words each side of ``position`` (the target, excluded); a short side gives
    its unused room to the other side, as in Banerjee & Pedersen's window of 2n+1 words."""
    left = list(words[max(0, position - window) : position])
    right = list(words[position + 1 : position + 1 + window])
    spare = 2 * window - len(left) - len(right)
    if spare and len(left) < window:
        right = list(words[position + 1 : position + 1 + window + spare])
    elif spare and len(right) < window:
        left = list(words[max(0, position - window - spare) : position])
    return left + right
