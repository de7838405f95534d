"""Each --wsd method on constructed contexts, with the real WordNet (and the real MiniLM encoder)."""

import socket

import nltk
import pytest

from datagen.targets.wsd import WSD_CHOICES, build_disambiguator
from lexicon import resources

MONEY = [("deposit", "VERB"), ("money", "NOUN"), ("account", "NOUN"), ("interest", "NOUN"), ("loan", "NOUN")]
RIVER = [("river", "NOUN"), ("flood", "VERB"), ("water", "NOUN"), ("fish", "NOUN"), ("shore", "NOUN")]


@pytest.fixture(scope="module")
def wordnet():
    return resources.wordnet()


def test_first_sense_is_wordnets_most_frequent_sense_whatever_the_context(wordnet):
    wsd = build_disambiguator(name="first-sense", wordnet=wordnet)
    assert wsd.disambiguate(lemma="bank", pos="NOUN", context=MONEY).synset == "bank.n.01"
    assert wsd.disambiguate(lemma="bank", pos="NOUN", context=RIVER).synset == "bank.n.01"
    assert (
        wsd.disambiguate(lemma="bank", pos="VERB", context=[]).synset
        == wordnet.synsets("bank", "v")[0].name()
    )
    assert wsd.disambiguate(lemma="qwxz", pos="NOUN", context=MONEY) is None


def test_our_adapted_lesk_follows_the_context(wordnet):
    wsd = build_disambiguator(name="lesk", wordnet=wordnet)
    money = wsd.disambiguate(lemma="bank", pos="NOUN", context=MONEY)
    river = wsd.disambiguate(lemma="bank", pos="NOUN", context=RIVER)
    assert money.synset == "depository_financial_institution.n.01"
    assert river.synset == "bank.n.01"
    assert money.depth == wordnet.synset(money.synset).max_depth()


def test_pywsd_adapted_lesk_runs_offline_and_follows_the_context(wordnet, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("pywsd tried the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(nltk, "download", refuse)
    wsd = build_disambiguator(name="pywsd", wordnet=wordnet)
    assert (
        wsd.disambiguate(lemma="bank", pos="NOUN", context=MONEY).synset
        == "depository_financial_institution.n.01"
    )
    assert wsd.disambiguate(lemma="bank", pos="NOUN", context=RIVER).synset == "bank.n.01"
    chosen = wsd.disambiguate(lemma="run", pos="VERB", context=MONEY)
    assert chosen.synset in {
        s.name() for s in wordnet.synsets("run", "v")
    }  # a verb sense, our WordNet's name


def test_embedding_wsd_matches_gloss_and_context(wordnet):
    wsd = build_disambiguator(name="embedding", wordnet=wordnet)
    chosen = wsd.disambiguate(lemma="bank", pos="NOUN", context=MONEY)
    assert chosen.synset == "depository_financial_institution.n.01"
    assert 0 < chosen.score <= 1
    assert wsd.disambiguate(lemma="qwxz", pos="NOUN", context=MONEY) is None


def test_an_unknown_method_is_refused(wordnet):
    assert set(WSD_CHOICES) == {"signature", "signature-mfs", "lesk", "pywsd", "first-sense", "embedding"}
    with pytest.raises(ValueError, match="unknown word-sense method 'wordnet'"):
        build_disambiguator(name="wordnet", wordnet=wordnet)
