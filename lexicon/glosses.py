"""Word glosses for the Attentive Model with Word Gloss (paper, Appendix D).

The candidate is lemmatized for each part of speech (WordNet's morphy); the definition of the first
sense of each POS that has one is kept, and the definitions are concatenated with the POS name as the
delimiter: ``"verb fail to keep or to maintain ... noun people who are destined to die soon"``.
"""

from collections.abc import Iterable

# WordNet POS -> the delimiter written before its definition; "a" also returns satellites ("s").
POS_NAMES = (("n", "noun"), ("v", "verb"), ("a", "adj"), ("r", "adv"))


def gloss(*, word: str, wordnet) -> str:
    """The gloss string of one candidate word; "" when WordNet knows no sense of it.

    ``wordnet`` is NLTK's WordNet reader (``lexicon.resources.wordnet()``).
    """
    query = "_".join(word.strip().lower().split())
    if not query:
        return ""
    parts = []
    for pos, name in POS_NAMES:
        lemma = wordnet.morphy(query, pos)
        synsets = wordnet.synsets(lemma, pos) if lemma else []
        if synsets:
            parts.append(f"{name} {synsets[0].definition()}")
    return " ".join(parts)


def glosses(*, words: Iterable[str], wordnet) -> dict[str, str]:
    """``{word: gloss}`` for distinct words (each looked up once)."""
    return {word: gloss(word=word, wordnet=wordnet) for word in dict.fromkeys(words)}
