"""Real WordNet (NLTK_DATA, installed by scripts/setup.sh), loaded once per session."""

import pytest


@pytest.fixture(scope="session")
def wordnet():
    from lexicon.resources import wordnet

    return wordnet()
