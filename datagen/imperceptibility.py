"""The imperceptibility scale of Subtask 1: MRC's own rating where MRC has one, else the regressor
mapped onto MRC's scale.

The paper (§3.2) trains its scorer on MRC and then uses it "to assign an imperceptibility score to a
word that is not in the MRC Psycholinguistic Database"; a rated word keeps its human rating. The
regressor's raw output is shrunk towards the mean (MSE), so it is mapped onto the ratings' scale by
isotonic regression (monotone, ``sklearn.isotonic``) fitted on the scorer's own *training* split only
(recomputed from its seed, checked against the split hash saved with the model). The fitted knots are
cached beside the model in ``calibration.json``.
"""

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from datagen.abstractness import ImperceptibilityScorer, default_model_dir, mrc_ratings, split_rated
from datagen.pipeline_config import DEFAULT_SCALE, SCALES
from lexicon import resources

__all__ = [
    "DEFAULT_SCALE",
    "SCALES",
    "CalibratedImperceptibility",
    "fit_calibration",
    "load_imperceptibility",
]

CALIBRATION_FILE = "calibration.json"


def fit_calibration(*, scorer: ImperceptibilityScorer, ratings: dict[str, float]) -> dict:
    """Isotonic map from the regressor's output to the MRC rating, on the training split only."""
    from sklearn.isotonic import IsotonicRegression

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
    predicted = np.asarray(scorer.score(list(split.train)), dtype=np.float64)
    gold = np.asarray([ratings[w] for w in split.train], dtype=np.float64)
    iso = IsotonicRegression(y_min=0.0, y_max=1.0, increasing=True, out_of_bounds="clip").fit(predicted, gold)
    return {
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
        self.name = f"mrc+calibrated({scorer.name})"
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


def load_imperceptibility(*, scale: str = DEFAULT_SCALE, model_dir: Path | None = None):
    """The Subtask 1 word scorer for ``scale`` (see ``SCALES``); calibration knots cached per model."""
    scorer = ImperceptibilityScorer.load(model_dir)
    if scale == "regressor":
        return scorer
    if scale != "mrc+calibrated":
        raise ValueError(f"unknown imperceptibility scale {scale!r}: use one of {', '.join(SCALES)}")
    ratings = mrc_ratings(resources.mrc_ratings_path())
    cache = Path(model_dir or default_model_dir()) / CALIBRATION_FILE
    knots = json.loads(cache.read_text(encoding="utf-8")) if cache.is_file() else None
    if knots is None or knots.get("model_sha256") != scorer.sha256:
        knots = fit_calibration(scorer=scorer, ratings=ratings)
        tmp = cache.with_name(cache.name + ".tmp")
        tmp.write_text(json.dumps(knots), encoding="utf-8")
        tmp.replace(cache)
    return CalibratedImperceptibility(scorer=scorer, ratings=ratings, knots=knots)
