"""Derived forms of the gold word on real WordNet: which pairs are one word in two guises, which are not."""

import pytest

from lexicon.resources import wordnet as load_wordnet
from lexicon.wordforms import derived_forms, is_derived_form


@pytest.fixture(scope="module")
def wordnet():
    return load_wordnet()


@pytest.mark.parametrize(
    ("gold", "word"),
    [
        ("economy", "economic"),  # WordNet derivational link
        ("decide", "decision"),
        ("decide", "decisions"),  # an inflection of a derived form
        ("economies", "economic"),  # ... and of the gold
        ("grow", "growth"),
        ("govern", "government"),
        ("secure", "security"),
        ("dead", "deadly"),  # only the adjective "deadly" links back to "dead"
        ("success", "successful"),  # no WordNet link: the shared Porter stem "success"
    ],
)
def test_derived_forms_are_recognised_in_both_directions(wordnet, gold, word):
    assert is_derived_form(word=word, gold=gold, wordnet=wordnet)
    assert is_derived_form(word=gold, gold=word, wordnet=wordnet)


@pytest.mark.parametrize(
    ("gold", "word"),
    [
        ("car", "care"),  # shared prefixes and stems shorter than four letters
        ("war", "warm"),
        ("man", "manner"),
        ("plan", "planet"),
        ("news", "new"),
        ("state", "statue"),
        ("medal", "media"),
        ("port", "portion"),
        ("policy", "police"),  # Porter: "polici" / "polic"
        ("policy", "political"),
        ("protest", "protect"),
        ("concern", "concert"),
        ("economy", "ecology"),
    ],
)
def test_unrelated_words_sharing_a_prefix_are_not_forms(wordnet, gold, word):
    assert not is_derived_form(word=word, gold=gold, wordnet=wordnet)
    assert not is_derived_form(word=gold, gold=word, wordnet=wordnet)


def test_derived_forms_follow_the_words_own_lemmas_not_its_synonyms(wordnet):
    forms = derived_forms("economy", wordnet=wordnet)
    assert {"economic", "economist"} <= forms
    assert "saving" not in forms  # a synonym of one sense of "economy", not a form of it
    assert "economy" in derived_forms("economic", wordnet=wordnet)  # adjective -> noun
    assert "quick" in derived_forms("quickly", wordnet=wordnet)  # adverb pertainym
