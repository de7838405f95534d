"""The ADJ/PROPN rule: a lower-case word WordNet knows as a noun or verb is let through."""

import pytest

from datagen.nlp import Token
from datagen.targets.pipeline import rescued_pos
from lexicon import resources


@pytest.fixture(scope="module")
def wordnet():
    return resources.wordnet()


def _token(text: str, pos: str) -> Token:
    return Token(text=text, lemma=text.lower(), pos=pos, sent=0, start=0, end=len(text))


@pytest.mark.parametrize(
    ("text", "pos", "subtask", "expected"),
    [
        ("key", "ADJ", 2, "NOUN"),  # "a key role": WordNet has the noun
        ("key", "ADJ", 1, None),  # Subtask 1 takes adjectives as they are
        ("political", "ADJ", 2, None),  # no noun or verb reading
        ("Apple", "PROPN", 2, None),  # capitalised: a name
        ("growth", "PROPN", 2, "NOUN"),
        ("growth", "PROPN", 1, "NOUN"),
        ("shaken", "ADJ", 2, "VERB"),  # only a verb reading (through morphy)
        ("qzxv", "PROPN", 2, None),
        ("policy", "NOUN", 2, None),  # not ADJ/PROPN: the rule does not apply
    ],
)
def test_rescued_pos(wordnet, text, pos, subtask, expected):
    assert rescued_pos(token=_token(text, pos), subtask=subtask, wordnet=wordnet) == expected
