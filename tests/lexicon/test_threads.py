"""The torch thread rule: --threads, then $RECAM_TORCH_THREADS, then the cores other processes leave free."""

import pytest

from lexicon.threads import ENV, choose_threads, set_torch_threads


@pytest.mark.parametrize(
    ("cores", "load", "expected"),
    [
        (2, 0.0, 2),
        (2, 0.4, 2),
        (2, 0.6, 1),
        (2, 1.0, 1),
        (2, 9.4, 1),
        (16, 3.2, 13),
        (16, None, 16),
        (1, 0.0, 1),
    ],
)
def test_auto_takes_the_cores_the_load_leaves_free(cores, load, expected):
    assert choose_threads(requested=None, env={}, cores=cores, load=load) == expected


def test_an_explicit_count_wins_over_the_environment_and_the_load():
    assert choose_threads(requested=3, env={ENV: "1"}, cores=2, load=9.0) == 3


def test_openmp_counts_when_recam_torch_threads_is_unset():
    assert choose_threads(requested=None, env={"OMP_NUM_THREADS": "1"}, cores=2, load=0.0) == 1
    assert choose_threads(requested=None, env={ENV: "2", "OMP_NUM_THREADS": "1"}, cores=2, load=0.0) == 2
    assert choose_threads(requested=None, env={ENV: "auto", "OMP_NUM_THREADS": "1"}, cores=2, load=0.0) == 2
    assert choose_threads(requested=None, env={"OMP_NUM_THREADS": "0"}, cores=2, load=0.0) == 2  # not a count


def test_the_environment_wins_over_auto():
    assert choose_threads(requested=None, env={ENV: "1"}, cores=16, load=0.0) == 1
    assert choose_threads(requested=None, env={ENV: " 4 "}, cores=2, load=5.0) == 4
    assert choose_threads(requested=None, env={ENV: "auto"}, cores=4, load=1.0) == 3
    assert choose_threads(requested=None, env={ENV: ""}, cores=4, load=0.0) == 4


@pytest.mark.parametrize("value", ["0", "-2", "two", "1.5"])
def test_a_bad_environment_value_is_named(value):
    with pytest.raises(ValueError, match=rf"\$RECAM_TORCH_THREADS must be a whole number .* got '{value}'"):
        choose_threads(requested=None, env={ENV: value}, cores=2, load=0.0)


def test_a_zero_request_is_refused():
    with pytest.raises(ValueError, match="--threads must be at least 1, got 0"):
        choose_threads(requested=0, env={}, cores=2, load=0.0)


def test_set_torch_threads_applies_the_rule(monkeypatch):
    import torch

    before = torch.get_num_threads()
    try:
        monkeypatch.setenv(ENV, "1")
        assert set_torch_threads() == 1
        assert torch.get_num_threads() == 1
        assert set_torch_threads(2) == 2
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
