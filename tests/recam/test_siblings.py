import pytest

from recam.records import Question, read_questions
from recam.siblings import (
    answer_forms,
    check_no_sibling_leaks,
    shared_articles,
    sibling_leaks,
    word_forms,
)

ARTICLE = "Counting went on through the night in the capital.  Officials said the count was close."
OPTIONS_A = ("results", "fears", "hopes", "talks", "votes")
OPTIONS_B = ("centre", "edge", "heart", "seat", "rim")


def q(qid, question, options, label, article=ARTICLE):
    return Question(id=qid, article=article, question=question, options=options, label=label)


def test_forms_cover_lemmas_and_inflections():
    assert {"result", "results", "resulted", "resulting"} <= word_forms("results")
    assert {"help", "helps", "helped", "helping"} <= word_forms("helped")
    assert "powers" in answer_forms("power")
    assert {"step down", "stepped down"} <= answer_forms("stepped down")


def test_a_sibling_holding_the_answer_leaks_and_the_check_names_both_ids():
    a = q(1, "Early @placeholder suggest a narrow win in the region's centre of power.", OPTIONS_A, 0)
    b = q(2, "Early results suggest a narrow win in the region's @placeholder of power.", OPTIONS_B, 0)
    leaks = sibling_leaks([a, b])
    assert [(x.question_id, x.sibling_id, x.found) for x in leaks] == [(1, 2, "results"), (2, 1, "centre")]
    with pytest.raises(
        ValueError, match=r"set\.jsonl: 2 sibling leak\(s\).*question 1's answer 'results' is in question 2"
    ):
        check_no_sibling_leaks([a, b], source="set.jsonl")


def test_an_inflected_form_leaks_too():
    a = q(1, "The minister @placeholder the plan.", ("backed", "sank", "read", "saw", "hid"), 0)
    b = q(2, "Backing for the plan is @placeholder.", ("growing", "thin", "odd", "low", "fair"), 0)
    assert [x.found for x in sibling_leaks([a, b])] == ["backing"]


def test_no_leak_on_other_articles_or_in_part_of_a_word_or_without_a_label():
    a = q(1, "Early @placeholder suggest a narrow win.", OPTIONS_A, 0)
    elsewhere = q(2, "Early results suggest a @placeholder.", OPTIONS_B, 0, article="Another passage.")
    substring = q(3, "Resultsless @placeholder counting.", OPTIONS_B, 0)
    unlabelled = q(4, "Results came in at @placeholder.", OPTIONS_B, None)
    assert sibling_leaks([a, elsewhere]) == []
    assert sibling_leaks([a, substring]) == []
    # the unlabelled question cannot leak, but its text gives question 1's answer away
    assert [(x.question_id, x.sibling_id) for x in sibling_leaks([a, unlabelled])] == [(1, 4)]
    check_no_sibling_leaks([a, elsewhere, substring])  # no error
    assert shared_articles([a, elsewhere, substring]) == [[1, 3]]


def test_recam_dev_itself_has_siblings_that_leak(recam_data_dir):
    # the official Subtask 2 dev file holds two articles with two questions each, and both pairs leak
    questions = read_questions(recam_data_dir / "training_data" / "Task_2_dev.jsonl")
    assert len(shared_articles(questions)) == 2
    assert {(x.question_id, x.sibling_id) for x in sibling_leaks(questions)} >= {(54, 749), (749, 54)}
