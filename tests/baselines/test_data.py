import pytest

from baselines.data import ClozeExample, check_examples, from_question, tokenize
from baselines.device import pick_device
from recam.records import read_questions


def test_tokenize_keeps_placeholder_as_one_token():
    tokens = tokenize("The @placeholder of Forty-Seven MPs, it's said.")
    assert tokens.count("@placeholder") == 1
    assert tokens == [t.lower() for t in tokens]
    assert "forty-seven" in tokens
    assert "," in tokens


def test_from_question_carries_options_label_and_answer(trial_path):
    question = read_questions(trial_path)[0]
    example = from_question(question)
    assert example.options == question.options
    assert example.label == question.label
    assert example.answer == question.options[question.label]
    assert example.id == str(question.id)


def test_check_examples_names_the_bad_example():
    bad = ClozeExample(id="7", article="a", question="no blank here", options=("a", "b"), label=0)
    with pytest.raises(ValueError, match=r"example '7'.*@placeholder"):
        check_examples([bad], need="label")
    unlabelled = ClozeExample(id="8", article="a", question="@placeholder", options=("a", "b"), label=5)
    with pytest.raises(ValueError, match=r"example '8'.*label 5"):
        check_examples([unlabelled], need="label")
    no_answer = ClozeExample(id="9", article="a", question="@placeholder")
    with pytest.raises(ValueError, match=r"example '9'.*gold answer"):
        check_examples([no_answer], need="answer")


def test_pick_device_prefers_the_request_and_falls_back_to_cpu():
    import torch

    assert pick_device("cpu") == "cpu"
    assert pick_device() == ("cuda" if torch.cuda.is_available() else "cpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="CUDA is not available"):
            pick_device("cuda")
