"""The imperceptibility scale of Subtask 1: MRC's own rating where MRC has one, else the regressor
mapped onto MRC's scale.

The paper (§3.2) trains its scorer on MRC and then uses it "to assign an imperceptibility score to a
word that is not in the MRC Psycholinguistic Database"; a rated word keeps its human rating. The
regressor's output is mapped onto the ratings' scale by isotonic regression (monotone,
``sklearn.isotonic``) fitted on the scorer's own *training* split only (recomputed from its seed,
checked against the split hash saved with the model). ``held-out`` (the default, issue #12) fits the
map on out-of-fold predictions of that split (``FOLDS`` networks with the model's settings, each
predicting the words it did not see), as the map serves only words the model has not seen;
``in-sample`` (pipeline version 3) fits it on the final model's own predictions of its training words.
The fitted knots are cached beside the model, one file per method (``CALIBRATION_FILES``).
"""

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from datagen.targets.abstractness import ImperceptibilityScorer, default_model_dir, mrc_ratings, split_rated
from datagen.targets.abstractness_model import AbstractnessRegressor
from datagen.targets.config import CALIBRATIONS, DEFAULT_CALIBRATION, DEFAULT_SCALE, SCALES
from lexicon import resources

__all__ = [
    "CALIBRATIONS",
    "DEFAULT_CALIBRATION",
    "DEFAULT_SCALE",
    "SCALES",
    "CalibratedImperceptibility",
    "cached_calibration",
    "fit_calibration",
    "load_imperceptibility",
]

CALIBRATION_FILES = {"in-sample": "calibration.json", "held-out": "calibration-held-out.json"}
FOLDS = 5


def held_out_predictions(
    *, scorer: ImperceptibilityScorer, words: tuple[str, ...], gold: np.ndarray, folds: int = FOLDS
) -> np.ndarray:
    """Out-of-fold predictions for ``words``: networks with the scorer's settings, each fitted on the
    other folds (seeded split of the words by the scorer's seed)."""
    from sklearn.model_selection import KFold

    features, _ = scorer.vectors.matrix(list(words))  # Shape: (len(words), dim)
    params = scorer.regressor.get_params()
    predicted = np.zeros(len(words), dtype=np.float64)
    split = KFold(n_splits=folds, shuffle=True, random_state=params["seed"]).split(features)
    for fit_rows, held_rows in split:
        network = AbstractnessRegressor(**params).fit(features[fit_rows], gold[fit_rows])
        predicted[held_rows] = network.predict(features[held_rows])
    return predicted


def fit_calibration(
    *, scorer: ImperceptibilityScorer, ratings: dict[str, float], method: str = DEFAULT_CALIBRATION
) -> dict:
    """Isotonic map from the regressor's output to the MRC rating, on the training split only."""
    from sklearn.isotonic import IsotonicRegression

    if method not in CALIBRATIONS:
        raise ValueError(f"unknown calibration {method!r}: use one of {', '.join(CALIBRATIONS)}")

    words = sorted(ratings)
    _, found = scorer.vectors.matrix(words)
    with_vectors = [w for w, ok in zip(words, found, strict=True) if ok]
    report = scorer.provenance.get("report", {})
    split = split_rated(
        words=with_vectors,
        seed=scorer.provenance["seed"],
        n_train=report.get("n_train", len(with_vectors)),
        n_test=report.get("n_test", 0),
    )
    split_sha = hashlib.sha256("\n".join((*split.train, "", *split.test)).encode()).hexdigest()
    if scorer.provenance.get("split_sha256") not in (None, split_sha):
        raise ValueError("the training split cannot be recomputed (ratings or vectors changed): retrain")
    gold = np.asarray([ratings[w] for w in split.train], dtype=np.float64)
    if method == "held-out":
        predicted = held_out_predictions(scorer=scorer, words=split.train, gold=gold)
    else:
        predicted = np.asarray(scorer.score(list(split.train)), dtype=np.float64)
    iso = IsotonicRegression(y_min=0.0, y_max=1.0, increasing=True, out_of_bounds="clip").fit(predicted, gold)
    return {
        "method": method,
        **({"folds": FOLDS} if method == "held-out" else {}),
        "model_sha256": scorer.sha256,
        "split_sha256": split_sha,
        "n_train": len(split.train),
        "x": [round(float(v), 8) for v in iso.X_thresholds_],
        "y": [round(float(v), 8) for v in iso.y_thresholds_],
    }


class CalibratedImperceptibility:
    """Scores words on MRC's 0..1 scale: the rating if MRC has the word, else the calibrated regressor."""

    def __init__(self, *, scorer: ImperceptibilityScorer, ratings: dict[str, float], knots: dict) -> None:
        self.scorer = scorer
        self.ratings = {word.lower(): value for word, value in sorted(ratings.items())}
        self.knots = knots
        self._x = np.asarray(knots["x"], dtype=np.float64)
        self._y = np.asarray(knots["y"], dtype=np.float64)
        self.name = f"mrc+calibrated[{knots.get('method', 'in-sample')}]({scorer.name})"
        self.sha256 = hashlib.sha256(json.dumps(knots, sort_keys=True).encode()).hexdigest()

    def calibrate(self, values: np.ndarray) -> np.ndarray:
        """The isotonic map (piecewise linear between knots, clipped at the ends)."""
        return np.interp(np.asarray(values, dtype=np.float64), self._x, self._y)

    def score(self, words: Sequence[str]) -> list[float | None]:
        raw = self.scorer.score(words)
        out: list[float | None] = []
        for word, value in zip(words, raw, strict=True):
            rated = self.ratings.get(word.lower())
            if rated is not None:
                out.append(rated)
            elif value is None:
                out.append(None)
            else:
                out.append(float(self.calibrate(np.array([value]))[0]))
        return out


def cached_calibration(
    *, scorer: ImperceptibilityScorer, ratings: dict[str, float], method: str, model_dir: Path | None = None
) -> dict:
    """The calibration knots of ``method`` for ``scorer``: read from beside the model, else fitted and
    saved there."""
    if method not in CALIBRATIONS:
        raise ValueError(f"unknown calibration {method!r}: use one of {', '.join(CALIBRATIONS)}")
    cache = Path(model_dir or default_model_dir()) / CALIBRATION_FILES[method]
    knots = json.loads(cache.read_text(encoding="utf-8")) if cache.is_file() else None
    stale = knots is None or knots.get("model_sha256") != scorer.sha256
    if stale or knots.get("method", "in-sample") != method:
        knots = fit_calibration(scorer=scorer, ratings=ratings, method=method)
        tmp = cache.with_name(cache.name + ".tmp")
        tmp.write_text(json.dumps(knots), encoding="utf-8")
        tmp.replace(cache)
    return knots


def load_imperceptibility(
    *, scale: str = DEFAULT_SCALE, calibration: str = DEFAULT_CALIBRATION, model_dir: Path | None = None
):
    """The Subtask 1 word scorer for ``scale`` (see ``SCALES``) and ``calibration`` (``CALIBRATIONS``)."""
    scorer = ImperceptibilityScorer.load(model_dir)
    if scale == "regressor":
        return scorer
    if scale != "mrc+calibrated":
        raise ValueError(f"unknown imperceptibility scale {scale!r}: use one of {', '.join(SCALES)}")
    ratings = mrc_ratings(resources.mrc_ratings_path())
    knots = cached_calibration(scorer=scorer, ratings=ratings, method=calibration, model_dir=model_dir)
    return CalibratedImperceptibility(scorer=scorer, ratings=ratings, knots=knots)
