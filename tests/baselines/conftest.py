"""Small real inputs for the reader tests: trial/dev records, GloVe rows for their words, WordNet."""

from pathlib import Path

import pytest
import torch

from baselines.data import ClozeExample, from_question, tokenize
from recam.records import read_questions


@pytest.fixture(autouse=True)
def _one_thread():
    torch.set_num_threads(1)  # a shared CPU: more threads are slower, and results stay comparable


@pytest.fixture(scope="session")
def trial_path(recam_data_dir) -> Path:
    return recam_data_dir / "trail_data" / "Task_1_Imperceptibility.jsonl"


@pytest.fixture(scope="session")
def dev_path(recam_data_dir) -> Path:
    return recam_data_dir / "training_data" / "Task_1_dev.jsonl"


@pytest.fixture(scope="session")
def trial_examples(trial_path) -> list[ClozeExample]:
    return [from_question(q) for q in read_questions(trial_path)[:40]]


@pytest.fixture(scope="session")
def dev_examples(dev_path) -> list[ClozeExample]:
    return [from_question(q) for q in read_questions(dev_path)[:12]]


@pytest.fixture(scope="session")
def vectors(trial_examples, dev_examples):
    """The packaged GloVe 6B 50d, restricted to the words the test examples use."""
    from lexicon.vectors import load_vectors

    words = set()
    for example in [*trial_examples, *dev_examples]:
        words.update(tokenize(example.article + " " + example.question))
        words.update(w.lower() for w in example.options or ())
    return load_vectors(vocabulary=words)


@pytest.fixture(scope="session")
def wordnet():
    from lexicon.resources import wordnet

    return wordnet()
