"""The Subtask 1 scale: MRC's rating for a rated word, else the regressor calibrated on the train split
(on out-of-fold predictions by default, or on the final model's own predictions)."""

import numpy as np
import pytest

from datagen.targets import abstractness as ab
from datagen.targets import imperceptibility as imp
from datagen.targets.imperceptibility import CalibratedImperceptibility, cached_calibration, fit_calibration
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


def _split(scorer, ratings) -> ab.Split:
    words = sorted(w for w in ratings if scorer.vectors.get(w) is not None)
    report = scorer.provenance["report"]
    return ab.split_rated(words=words, seed=0, n_train=report["n_train"], n_test=report["n_test"])


def test_in_sample_calibration_is_monotone_and_fitted_on_the_training_split_only(
    scorer, ratings, monkeypatch
):
    asked: list[str] = []
    original = scorer.score

    def spy(words):
        asked.extend(words)
        return original(words)

    monkeypatch.setattr(scorer, "score", spy)
    knots = fit_calibration(scorer=scorer, ratings=ratings, method="in-sample")
    split = _split(scorer, ratings)
    assert knots["method"] == "in-sample"
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


def test_held_out_calibration_fits_out_of_fold_predictions_of_the_training_split(
    scorer, ratings, monkeypatch
):
    asked: list[tuple[str, ...]] = []
    original = imp.held_out_predictions

    def spy(**kwargs):
        asked.append(kwargs["words"])
        return original(**kwargs)

    monkeypatch.setattr(imp, "held_out_predictions", spy)
    knots = fit_calibration(scorer=scorer, ratings=ratings, method="held-out")
    split = _split(scorer, ratings)
    assert [sorted(words) for words in asked] == [sorted(split.train)]
    assert (knots["method"], knots["folds"]) == ("held-out", imp.FOLDS)
    assert np.all(np.diff(knots["x"]) > 0)
    assert np.all(np.diff(knots["y"]) >= 0)
    gold = np.array([ratings[w] for w in split.train])
    held_out = original(scorer=scorer, words=split.train, gold=gold)
    in_sample = np.array(scorer.score(list(split.train)))
    # each word is predicted by a network that did not see it, so further from its rating
    assert np.mean((held_out - gold) ** 2) > np.mean((in_sample - gold) ** 2)


def test_cached_calibration_keeps_one_file_per_method_and_refits_for_another_model(
    scorer, ratings, tmp_path, monkeypatch
):
    first = cached_calibration(scorer=scorer, ratings=ratings, method="held-out", model_dir=tmp_path)
    in_sample = cached_calibration(scorer=scorer, ratings=ratings, method="in-sample", model_dir=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["calibration-held-out.json", "calibration.json"]
    assert (first["method"], in_sample["method"]) == ("held-out", "in-sample")
    fits: list[str] = []
    monkeypatch.setattr(
        imp, "fit_calibration", lambda **kw: fits.append(kw["method"]) or {**first, "x": [0.0]}
    )
    assert cached_calibration(scorer=scorer, ratings=ratings, method="held-out", model_dir=tmp_path) == first
    assert fits == []
    monkeypatch.setattr(scorer, "provenance", {**scorer.provenance, "model_sha256": "0" * 64})
    cached_calibration(scorer=scorer, ratings=ratings, method="held-out", model_dir=tmp_path)
    assert fits == ["held-out"]
    with pytest.raises(ValueError, match="unknown calibration 'isotonic'"):
        cached_calibration(scorer=scorer, ratings=ratings, method="isotonic", model_dir=tmp_path)


def test_settings_record_the_calibration_and_refuse_an_unknown_one():
    from datagen.targets.config import Settings

    assert Settings(subtask=1).to_json()["calibration"] == imp.DEFAULT_CALIBRATION == "held-out"
    with pytest.raises(ValueError, match="calibration must be one of held-out, in-sample, got 'isotonic'"):
        Settings(subtask=1, calibration="isotonic")
