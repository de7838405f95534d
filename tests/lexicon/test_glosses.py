from lexicon.glosses import gloss, glosses


def test_gloss_concatenates_first_sense_per_pos_with_pos_delimiters(wordnet):
    text = gloss(word="lost", wordnet=wordnet)
    # "lost" lemmatizes to "lose" as a verb and stays "lost" as a noun and an adjective
    verb_first = wordnet.synsets("lose", "v")[0].definition()
    noun_first = wordnet.synsets("lost", "n")[0].definition()
    assert f"verb {verb_first}" in text
    assert f"noun {noun_first}" in text
    assert text.index("noun ") < text.index("verb ") < text.index("adj ")


def test_gloss_lemmatizes_plurals(wordnet):
    text = gloss(word="Policies", wordnet=wordnet)
    assert text == f"noun {wordnet.synsets('policy', 'n')[0].definition()}"


def test_gloss_of_an_unknown_word_is_empty(wordnet):
    assert gloss(word="qzxv", wordnet=wordnet) == ""
    assert glosses(words=["qzxv", "quickly", "quickly"], wordnet=wordnet).keys() == {"qzxv", "quickly"}
