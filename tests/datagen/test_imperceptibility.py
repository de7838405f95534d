"""The Subtask 1 scale: MRC's rating for a rated word, else the regressor calibrated on the train split."""

import numpy as np
import pytest

from datagen import abstractness as ab
from datagen.imperceptibility import CalibratedImperceptibility, fit_calibration
from lexicon.vectors import load_vectors

UNRATED_CANDIDATES = ("software", "internet", "nationalism", "bureaucracy", "cyberspace", "outsourcing")


@pytest.fixture(scope="module")
def ratings() -> dict[str, float]:
    return ab.mrc_ratings()


@pytest.fixture(scope="module")
def scorer(ratings):
    words = sorted(ratings)[::10][:400]
    vectors = load_vectors(vocabulary=[*words, *UNRATED_CANDIDATES])
    scorer, _ = ab.train_scorer(
        vectors=vectors, variant="glove50", regressor=ab.AbstractnessRegressor(epochs=5)
    )
    return scorer


def test_calibration_is_monotone_and_fitted_on_the_training_split_only(scorer, ratings, monkeypatch):
    asked: list[str] = []
    original = scorer.score

    def spy(words):
        asked.extend(words)
        return original(words)

    monkeypatch.setattr(scorer, "score", spy)
    knots = fit_calibration(scorer=scorer, ratings=ratings)
    words = sorted(w for w in ratings if scorer.vectors.get(w) is not None)
    report = scorer.provenance["report"]
    split = ab.split_rated(words=words, seed=0, n_train=report["n_train"], n_test=report["n_test"])
    assert sorted(asked) == sorted(split.train)
    assert set(asked).isdisjoint(split.test)
    assert knots["split_sha256"] == scorer.provenance["split_sha256"]
    assert np.all(np.diff(knots["x"]) > 0)
    assert np.all(np.diff(knots["y"]) >= 0)
    assert 0 <= min(knots["y"]) <= max(knots["y"]) <= 1


def test_rated_words_keep_their_rating_and_others_get_the_calibrated_regressor(scorer, ratings):
    knots = fit_calibration(scorer=scorer, ratings=ratings)
    scale = CalibratedImperceptibility(scorer=scorer, ratings=ratings, knots=knots)
    rated = sorted(ratings)[::10][3]
    first, second = [w for w in UNRATED_CANDIDATES if w not in ratings and scorer.vectors.get(w) is not None][
        :2
    ]
    economy, freedom, word, missing = scale.score([first, second, rated, "qzxv-no-vector"])
    assert word == pytest.approx(ratings[rated])
    assert missing is None
    raw_economy, raw_freedom = scorer.score([first, second])
    assert economy == pytest.approx(float(scale.calibrate(np.array([raw_economy]))[0]))
    assert (raw_economy - raw_freedom) * (economy - freedom) >= 0  # the map keeps the order
    grid = scale.calibrate(np.linspace(-0.5, 1.5, 101))
    assert np.all(np.diff(grid) >= 0)
    assert grid.min() >= 0
    assert grid.max() <= 1
