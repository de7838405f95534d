"""Distractors that take the gold's part of speech and inflection, and a cap on reusing a word.

The gold's Penn tag comes from spaCy (``datagen.nlp.load_nlp``) tagging the summary with the gold
filled in. A candidate word agrees if lemminflect's dictionary (``getAllLemmas``, no out-of-vocabulary
guessing) gives it a lemma of the gold's universal part of speech; that lemma is then inflected to the
gold's tag with ``getInflection`` (``announce`` -> ``announced`` for a VBD gold). A word with no reading
in the gold's part of speech (``year`` for a verb slot) is dropped. Tags lemminflect cannot inflect
(proper nouns, numbers, ...) keep the candidate words whose dictionary lemmas include the same
universal part of speech, uninflected.

Reuse cap: across one run, a distractor word may fill at most ``reuse_cap(n)`` questions,
``max(REUSE_MIN, ceil(REUSE_SHARE * n))`` with ``REUSE_SHARE`` = 2% of the run's questions (6 of
268): the frequent words (plunged, killed, easing) that recurred in unrelated questions are spread.
"""

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

from recam.records import PLACEHOLDER

REUSE_SHARE = 0.02
REUSE_MIN = 3
# Penn tag -> universal POS lemminflect inflects (its supported tags)
UPOS_OF_TAG = {
    **dict.fromkeys(("NN", "NNS"), "NOUN"),
    **dict.fromkeys(("VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "MD"), "VERB"),
    **dict.fromkeys(("JJ", "JJR", "JJS"), "ADJ"),
    **dict.fromkeys(("RB", "RBR", "RBS"), "ADV"),
}


def gold_tag(*, nlp, question: str, answer: str) -> str | None:
    """spaCy's Penn tag of the (one-word) gold answer filled into the summary; None if not found."""
    if len(answer.split()) != 1:
        return None
    start = question.index(PLACEHOLDER)
    doc = nlp(question.replace(PLACEHOLDER, answer, 1))
    for token in doc:
        if token.idx == start:
            return token.tag_
    return None


@lru_cache(maxsize=65536)
def inflect_like(*, word: str, tag: str) -> str | None:
    """``word`` in the gold's part of speech and inflection ``tag``, or None if it has no such reading."""
    from lemminflect import getAllLemmas, getInflection

    upos = UPOS_OF_TAG.get(tag)
    if upos is None:
        return None
    lemmas = getAllLemmas(word, upos=upos).get(upos)
    if not lemmas:
        return None
    if tag == "MD":
        return word
    forms = getInflection(lemmas[0], tag=tag)
    return forms[0].lower() if forms else None


def agree(*, words: Iterable[str], tag: str | None) -> dict[str, str]:
    """Candidate word -> its form agreeing with ``tag`` (words without one are left out; first wins).

    Without a tag (multi-word gold, untagged) the words are kept as they are.
    """
    shaped: dict[str, str] = {}
    seen: set[str] = set()
    for word in words:
        form = word if tag is None else inflect_like(word=word, tag=tag)
        if form and form not in seen:
            seen.add(form)
            shaped[word] = form
    return shaped


def reuse_cap(n_questions: int) -> int:
    return max(REUSE_MIN, math.ceil(REUSE_SHARE * n_questions))


class ReuseCounter:
    """How many questions each distractor word already fills, against the run's cap."""

    def __init__(self, *, cap: int) -> None:
        self.cap = cap
        self.used: Counter[str] = Counter()

    def allows(self, word: str) -> bool:
        return self.used[word] < self.cap

    def take(self, words: Sequence[str]) -> None:
        self.used.update(words)
