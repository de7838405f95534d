import pytest

from datagen.nlp import analyse, load_nlp
from datagen.targets.lesk import AdaptedLesk, Signature, context_window, overlap
from datagen.targets.nonspecificity import NonspecificityScorer
from lexicon import resources


@pytest.fixture(scope="module")
def wordnet():
    return resources.wordnet()


@pytest.fixture(scope="module")
def lesk(wordnet):
    return AdaptedLesk(wordnet=wordnet)


def _signature(text: str, stop: frozenset[str]) -> Signature:
    words = tuple(text.split())
    positions: dict[str, list[int]] = {}
    for i, w in enumerate(words):
        if w not in stop:
            positions.setdefault(w, []).append(i)
    return Signature(
        words=words, content=frozenset(positions), positions={k: tuple(v) for k, v in positions.items()}
    )


def test_overlap_scores_squared_lengths_of_maximal_phrases_and_ignores_stop_word_only_overlaps():
    stop = frozenset({"the", "of", "a"})
    a = _signature("the bank of the river flows into a sea near the town", stop)
    b = _signature("a town near the bank of the river and the sea", stop)
    # "bank of the river" (4 words) + "sea" + "town" ; "near the" ends on a stop word -> "near" (1)
    assert overlap(a, b, stop=stop) == 4**2 + 1 + 1 + 1
    assert overlap(_signature("the of a", stop), _signature("a the of", stop), stop=stop) == 0


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        (["river", "water", "shore", "fish"], {"bank.n.01"}),
        # the financial institution, or the building where banking is transacted: both money senses
        (["money", "loan", "account", "deposit"], {"depository_financial_institution.n.01", "bank.n.09"}),
    ],
)
def test_bank_gets_the_sense_its_context_calls_for(lesk, context, expected):
    sense = lesk.disambiguate(lemma="bank", pos="NOUN", context=[(w, "NOUN") for w in context])
    assert sense.synset in expected
    assert sense.score > 0


def test_plant_near_factory_words_is_the_industrial_sense(lesk):
    context = [("factory", "NOUN"), ("worker", "NOUN"), ("production", "NOUN"), ("steel", "NOUN")]
    assert lesk.disambiguate(lemma="plant", pos="NOUN", context=context).synset == "plant.n.01"
    context = [("leaf", "NOUN"), ("flower", "NOUN"), ("garden", "NOUN"), ("grow", "VERB")]
    assert lesk.disambiguate(lemma="plant", pos="NOUN", context=context).synset == "plant.n.02"


def test_depth_is_the_wordnet_max_depth_of_the_chosen_sense(lesk, wordnet):
    sense = lesk.disambiguate(lemma="economy", pos="NOUN", context=[("market", "NOUN"), ("trade", "NOUN")])
    assert sense.depth == wordnet.synset(sense.synset).max_depth()
    assert wordnet.synset("economy.n.01").max_depth() == 4
    assert lesk.disambiguate(lemma="Bewdley", pos="NOUN", context=[]) is None


def test_extended_gloss_includes_related_synsets(lesk, wordnet):
    words = set(lesk.signature("bank.n.01").words)
    hypernym_gloss = wordnet.synset("bank.n.01").hypernyms()[0].definition().split()
    assert set(hypernym_gloss) - {"a", "of", "the"} <= words | {w.rstrip("s") for w in words} | set(
        lesk._norm(w) for w in hypernym_gloss
    )


def test_context_window_gives_a_short_side_room_to_the_other():
    words = [(str(i), "NOUN") for i in range(10)]
    assert [w for w, _ in context_window(words=words, position=0, window=2)] == ["1", "2", "3", "4"]
    assert [w for w, _ in context_window(words=words, position=9, window=2)] == ["5", "6", "7", "8"]
    assert [w for w, _ in context_window(words=words, position=5, window=2)] == ["3", "4", "6", "7"]


def test_nonspecificity_scores_only_nouns_and_verbs_with_depths_from_wordnet(lesk, wordnet):
    nlp = load_nlp()
    summary, passage = analyse(
        nlp=nlp,
        texts=[
            "The government announced a new policy on the economy quickly.",
            "Ministers said the plan would help trade and markets across the country.",
        ],
    )
    scorer = NonspecificityScorer(lesk=lesk, window=4)
    senses = scorer.score(summary=summary, passage=passage, indices=range(len(summary.tokens)))
    by_word = {summary.tokens[i].text: s for i, s in senses.items()}
    assert by_word["quickly"] is None  # an adverb: no hypernym hierarchy
    assert by_word["new"] is None
    for word in ("government", "announced", "policy", "economy"):
        assert by_word[word] is not None
        assert by_word[word].depth == wordnet.synset(by_word[word].synset).max_depth()
    assert by_word["economy"].synset.startswith("economy.n.")
