import numpy as np
import pytest

from datagen.nlp import analyse, load_nlp
from datagen.targets import filters
from datagen.targets.encoder import load_encoder
from lexicon import resources
from lexicon.vectors import load_vectors


@pytest.fixture(scope="module")
def nlp():
    return load_nlp()


@pytest.fixture(scope="module")
def wordnet():
    return resources.wordnet()


def _token(analysis, text):
    return next(t for t in analysis.tokens if t.text == text)


def test_lemma_filter_matches_inflected_forms_in_the_passage(nlp):
    summary, passage = analyse(
        nlp=nlp, texts=["New policies were announced.", "The policy was announcing cuts."]
    )
    index = filters.passage_index(passage)
    assert filters.lemma_match(token=_token(summary, "policies"), index=index) == "policy"
    assert filters.lemma_match(token=_token(summary, "announced"), index=index) == "announce"
    assert filters.lemma_match(token=_token(summary, "New"), index=index) is None


def test_synonym_and_antonym_filter_uses_all_senses(nlp, wordnet):
    summary, passage = analyse(
        nlp=nlp, texts=["The car won easily.", "The automobile was found after the team lost the game."]
    )
    index = filters.passage_index(passage)
    assert (
        filters.synonym_antonym_match(wordnet=wordnet, token=_token(summary, "car"), index=index)
        == "automobile"
    )
    assert filters.synonym_antonym_match(wordnet=wordnet, token=_token(summary, "won"), index=index) == "lose"
    assert (
        filters.synonym_antonym_match(wordnet=wordnet, token=_token(summary, "easily"), index=index) is None
    )
    assert "car" not in filters.synonym_antonym_pool(wordnet=wordnet, lemma="car")


def test_synonym_filter_matches_multiword_synonyms(nlp, wordnet):
    summary, passage = analyse(
        nlp=nlp, texts=["The bank closed.", "A depository financial institution shut."]
    )
    index = filters.passage_index(passage)
    hit = filters.synonym_antonym_match(wordnet=wordnet, token=_token(summary, "bank"), index=index)
    assert hit == "depository_financial_institution"


def test_glove_filter_on_a_tiny_real_vector_table(nlp):
    vectors = load_vectors(vocabulary=["economy", "economic", "growth", "banana", "the", "was", "strong"])
    _, passage = analyse(nlp=nlp, texts=["x", "The economic growth was strong."])
    index = filters.passage_index(passage)
    matrix = filters.glove_passage_matrix(vectors=vectors, index=index)
    expected = vectors.cosine("economy", "economic")
    hit = filters.glove_match(vectors=vectors, word="economy", passage=matrix, threshold=expected - 0.01)
    assert hit is not None
    assert hit[0] == "economic"
    assert hit[1] == pytest.approx(expected, abs=1e-5)
    assert (
        filters.glove_match(vectors=vectors, word="economy", passage=matrix, threshold=expected + 0.01)
        is None
    )
    assert filters.glove_match(vectors=vectors, word="qwxzv", passage=matrix) is None


def test_contextual_filter_with_the_real_encoder():
    encoder = load_encoder()
    summary, same, other = encoder.embed(
        sentences=[
            ["The", "bank", "raised", "interest", "rates"],
            ["The", "bank", "raised", "its", "interest", "rates", "again"],
            ["Tomatoes", "grow", "in", "summer"],
        ]
    )
    assert summary.shape == (5, encoder.hidden_size)
    assert same.shape == (7, encoder.hidden_size)
    hit = filters.contextual_match(token_vector=summary[1], passage_vectors=np.concatenate([other, same]))
    assert hit is not None
    assert hit[0] == len(other) + 1
    assert filters.contextual_match(token_vector=summary[1], passage_vectors=other) is None


def test_encoder_aligns_word_pieces_back_to_words():
    encoder = load_encoder()
    (vectors,) = encoder.embed(sentences=[["Unbelievably", "antidisestablishmentarianism", "!"]])
    assert vectors.shape == (3, encoder.hidden_size)
    assert np.all(np.linalg.norm(vectors, axis=1) > 0)


def test_sense_scoped_pool_holds_only_the_chosen_senses_lemmas_and_antonyms(nlp, wordnet):
    # "rise": rise.v.01 (move upward; antonym "fall"), rise.v.02 (go up, climb), surface.v.01 (come up)
    summary, passage = analyse(nlp=nlp, texts=["Prices rise.", "Climbers climb while the leaves fall."])
    index = filters.passage_index(passage)
    token = _token(summary, "rise")
    assert filters.synonym_antonym_match(wordnet=wordnet, token=token, index=index) is not None  # all senses
    assert (
        filters.synonym_antonym_match(wordnet=wordnet, token=token, index=index, synset="rise.v.01") == "fall"
    )
    assert (
        filters.synonym_antonym_match(wordnet=wordnet, token=token, index=index, synset="rise.v.02")
        == "climb"
    )
    assert (
        filters.synonym_antonym_match(wordnet=wordnet, token=token, index=index, synset="surface.v.01")
        is None
    )
    pool = filters.sense_synonym_antonym_pool(wordnet=wordnet, synset="rise.v.01", lemma="rise")
    assert "fall" in pool
    assert "lift" in pool
    assert "rise" not in pool
    assert "climb" not in pool  # a lemma of another sense of "rise"
