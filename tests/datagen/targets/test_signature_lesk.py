"""The signature-overlap adapted Lesk (``--wsd signature``) and the whole-text WSD context, on the real
WordNet, spaCy and pywsd."""

import pytest

from datagen.nlp import analyse, load_nlp
from datagen.targets.nonspecificity import NonspecificityScorer
from datagen.targets.signature_lesk import SignatureLesk, pywsd_signatures, pywsd_stop_words
from datagen.targets.wsd import _import_pywsd, build_disambiguator
from lexicon import resources

MONEY = [("deposit", "VERB"), ("money", "NOUN"), ("account", "NOUN"), ("interest", "NOUN"), ("loan", "NOUN")]
RIVER = [("river", "NOUN"), ("flood", "VERB"), ("water", "NOUN"), ("fish", "NOUN"), ("shore", "NOUN")]


@pytest.fixture(scope="module")
def wordnet():
    return resources.wordnet()


def test_the_signature_overlap_follows_the_context(wordnet):
    wsd = build_disambiguator(name="signature", wordnet=wordnet)
    money = wsd.disambiguate(lemma="bank", pos="NOUN", context=MONEY)
    river = wsd.disambiguate(lemma="bank", pos="NOUN", context=RIVER)
    assert money.synset == "depository_financial_institution.n.01"
    assert river.synset == "bank.n.01"
    assert river.depth == wordnet.synset("bank.n.01").max_depth()
    # the score: the signature words found in the context, which (as in pywsd's text) has the target
    assert money.score == len(
        wsd.signature(money.synset) & {"bank", "deposit", "money", "account", "interest", "loan"}
    )
    assert wsd.disambiguate(lemma="qwxz", pos="NOUN", context=MONEY) is None


def test_the_default_signatures_are_pywsds_own(wordnet):
    wsd = SignatureLesk(wordnet=wordnet)
    assert wsd.signature("bank.n.01") == frozenset(pywsd_signatures()["bank.n.01"]["adapted"])
    with pytest.raises(ValueError, match="signatures must be one of"):
        SignatureLesk(wordnet=wordnet, signatures="spacy")


def test_signatures_computed_from_wordnet_have_related_lemma_names_and_no_stop_words(wordnet):
    wsd = SignatureLesk(wordnet=wordnet, signatures="wordnet")
    signature = wsd.signature("dog.n.01")
    assert {"dog", "puppy", "canine", "pack"} <= signature  # own, hyponym, hypernym, member holonym names
    assert not signature & pywsd_stop_words()
    assert {"the", "of", "and", "one"} & pywsd_stop_words() == {
        "the",
        "of",
        "and",
    }  # NLTK's list, not spaCy's


def test_a_tie_goes_to_the_name_that_sorts_last_or_to_the_most_frequent_sense(wordnet):
    # an empty context ties every sense at 0
    names = wordnet.synsets("team", "n")
    pywsd_ties = SignatureLesk(wordnet=wordnet, ties="pywsd").disambiguate(
        lemma="team", pos="NOUN", context=[]
    )
    frequency = SignatureLesk(wordnet=wordnet, ties="frequency").disambiguate(
        lemma="team", pos="NOUN", context=[]
    )
    assert pywsd_ties.synset == max(s.name() for s in names) == "team.n.02"
    assert frequency.synset == names[0].name() == "team.n.01"
    with pytest.raises(ValueError, match="ties must be one of"):
        SignatureLesk(wordnet=wordnet, ties="random")


def test_it_chooses_pywsds_sense_on_real_contexts(wordnet):
    """pywsd 1.2.5 itself, on the same lemmatised contexts: the same sense where both have one."""
    pywsd = _import_pywsd()
    ours = SignatureLesk(wordnet=wordnet)
    cases = [
        ("bank", "n", MONEY),
        ("bank", "n", RIVER),
        ("deal", "n", [("company", "NOUN"), ("agree", "VERB"), ("sell", "VERB"), ("price", "NOUN")]),
        ("body", "n", [("police", "NOUN"), ("find", "VERB"), ("dead", "ADJ"), ("man", "NOUN")]),
        ("run", "v", [("race", "NOUN"), ("mile", "NOUN"), ("fast", "ADV"), ("athlete", "NOUN")]),
        ("plant", "n", [("factory", "NOUN"), ("worker", "NOUN"), ("production", "NOUN"), ("car", "NOUN")]),
    ]
    for word, pos, context in cases:
        tag = "NN" if pos == "n" else "VB"
        pywsd.utils.pos_tag = lambda words, *a, tag=tag, **k: [(w, tag) for w in words]
        text = " ".join(w for w, _ in context)
        theirs = pywsd.lesk.adapted_lesk(text, word, pos=pos, context_is_lemmatized=True)
        mine = ours.disambiguate(lemma=word, pos="NOUN" if pos == "n" else "VERB", context=context)
        assert mine.synset == theirs.name(), (word, context)


def test_the_text_context_is_the_whole_summary_and_passage_without_the_target(wordnet):
    nlp = load_nlp()
    summary, passage = analyse(
        nlp=nlp,
        texts=[
            "The bank was closed on Monday after the storm.",
            "Heavy rain fell for days. " * 5
            + "The river burst over the shore and the water rose near the fish farm.",
        ],
    )
    seen = []

    class Recording(SignatureLesk):
        def disambiguate(self, *, lemma, pos, context):
            seen.append(list(context))
            return super().disambiguate(lemma=lemma, pos=pos, context=context)

    bank = next(i for i, t in enumerate(summary.tokens) if t.text == "bank")
    text = NonspecificityScorer(lesk=Recording(wordnet=wordnet), window=2, context="text")
    window = NonspecificityScorer(lesk=Recording(wordnet=wordnet), window=2, context="window")
    by_text = text.score(summary=summary, passage=passage, indices=[bank])[bank]
    by_window = window.score(summary=summary, passage=passage, indices=[bank])[bank]
    words = [w for w, _ in seen[0]]
    assert "bank" not in words
    assert {"river", "shore", "water", "fish"} <= set(words)
    assert words[:2] == ["the", "be"]  # the summary first, its function words included
    assert len(seen[1]) == 4  # two content words each side
    assert by_text.synset == "bank.n.01"  # the river bank: only the passage says so
    assert by_window.synset != by_text.synset
    with pytest.raises(ValueError, match="WSD context"):
        NonspecificityScorer(lesk=SignatureLesk(wordnet=wordnet), context="sentence")


def test_a_lemma_wordnet_lacks_falls_back_to_wordnets_lemmatiser(wordnet):
    nlp = load_nlp()
    (summary,) = analyse(nlp=nlp, texts=["He has spent his life in politics."])
    (passage,) = analyse(nlp=nlp, texts=["The former minister retired last year."])
    index = next(i for i, t in enumerate(summary.tokens) if t.text == "politics")
    token = summary.tokens[index]
    scorer = NonspecificityScorer(lesk=SignatureLesk(wordnet=wordnet), context="text")
    if token.lemma == "politics":
        pytest.skip("this spaCy model lemmatises 'politics' as WordNet does")
    assert not wordnet.synsets(token.lemma, "n")  # spaCy's "politic" is an adjective in WordNet
    assert scorer.wordnet_lemma(token) == "politics"
    sense = scorer.score(summary=summary, passage=passage, indices=[index])[index]
    assert sense is not None
    assert sense.synset.startswith("politics.n.")
