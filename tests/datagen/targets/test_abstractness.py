"""MRC scaling, the regressor, the scorer and the CLI, on the real MRC ratings and real GloVe rows."""

import csv
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from datagen.cli.abstractness import abstractness
from datagen.targets import abstractness as ab
from lexicon import resources
from lexicon.vectors import load_vectors


@pytest.fixture(scope="module")
def ratings() -> dict[str, float]:
    return ab.mrc_ratings()


@pytest.fixture(scope="module")
def small_vectors(ratings: dict[str, float]):
    """Real GloVe rows of 400 rated words (every 10th) plus a few unrated ones."""
    words = sorted(ratings)[::10][:400]
    return load_vectors(vocabulary=[*words, "economy", "freedom"])


def _raw_mrc() -> dict[str, float]:
    with resources.mrc_ratings_path().open(encoding="utf-8", newline="") as handle:
        return {row["Word"]: float(row["MRC"]) for row in csv.DictReader(handle) if row["MRC"]}


def test_mrc_ratings_are_scaled_linearly_from_158_670(ratings: dict[str, float]) -> None:
    raw = _raw_mrc()
    assert len(ratings) == len(raw) == 4295
    assert min(ratings.values()) == 0.0
    assert max(ratings.values()) == 1.0
    for word in list(raw)[::97]:
        assert ratings[word] == pytest.approx((raw[word] - 158) / (670 - 158))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("Word,MRC\nidea,300\nstone,700\n", r"ratings\.csv:3: MRC rating 700\.0 outside 158\.\.670"),
        ("Word,MRC\nidea,high\n", r"ratings\.csv:2: MRC rating 'high' is not a number"),
        ("Word,Other\nidea,300\n", r"ratings\.csv:1: expected columns Word and MRC"),
        ("Word,MRC\nidea,\n", r"ratings\.csv: no MRC ratings"),
    ],
)
def test_mrc_ratings_errors_name_file_and_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "ratings.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        ab.mrc_ratings(path)


def test_split_has_the_paper_sizes_and_is_seeded(ratings: dict[str, float]) -> None:
    words = list(ratings)
    split = ab.split_rated(words=words, seed=3)
    assert (len(split.train), len(split.test)) == (ab.PAPER_TRAIN, ab.PAPER_TEST)
    assert not set(split.train) & set(split.test)
    assert len(split.unused) == len(words) - ab.PAPER_TRAIN - ab.PAPER_TEST
    assert ab.split_rated(words=list(reversed(words)), seed=3) == split
    assert ab.split_rated(words=words, seed=4).train != split.train
    shrunk = ab.split_rated(words=words[:100], seed=3)
    assert len(shrunk.train) + len(shrunk.test) == 100
    assert len(shrunk.train) > len(shrunk.test)


def _features(vectors, ratings):
    words = [w for w in sorted(ratings) if w in vectors]
    matrix, _ = vectors.matrix(words)
    return matrix, np.array([ratings[w] for w in words], dtype=np.float32)


def test_regressor_learns_and_is_deterministic(small_vectors, ratings) -> None:
    X, y = _features(small_vectors, ratings)
    first = ab.AbstractnessRegressor(epochs=15, seed=1).fit(X, y)
    assert first.loss_curve_[-1] < first.loss_curve_[0]
    predicted = first.predict(X)
    assert predicted.shape == (len(y),)
    assert ((predicted > 0) & (predicted < 1)).all()
    assert np.corrcoef(predicted, y)[0, 1] > 0.5
    again = ab.AbstractnessRegressor(epochs=15, seed=1).fit(X, y)
    np.testing.assert_array_equal(again.predict(X), predicted)
    other = ab.AbstractnessRegressor(epochs=15, seed=2).fit(X, y)
    assert not np.array_equal(other.predict(X), predicted)


def test_regressor_rejects_mismatched_input() -> None:
    with pytest.raises(ValueError, match="as many targets as rows"):
        ab.AbstractnessRegressor().fit(np.zeros((3, 2)), np.zeros(2))


def test_scorer_scores_missing_words_as_none_and_round_trips(tmp_path, small_vectors) -> None:
    regressor = ab.AbstractnessRegressor(epochs=5, seed=0)
    scorer, report = ab.train_scorer(vectors=small_vectors, variant="glove50", regressor=regressor)
    assert report.n_with_vectors == report.n_train + report.n_test
    assert report.n_train > report.n_test > 100
    scores = scorer.score(["economy", "qzxv-no-vector", "freedom", "economy"])
    assert scores[1] is None
    assert all(0.0 < s < 1.0 for s in (scores[0], scores[2]))
    assert scores[0] == scores[3]
    scorer.save(tmp_path / "model")
    loaded = ab.ImperceptibilityScorer.load(tmp_path / "model", vectors=small_vectors)
    assert loaded.score(["economy", "qzxv-no-vector"]) == scores[:2]
    assert loaded.sha256 == scorer.sha256
    assert loaded.provenance["ratings_sha256"] == scorer.provenance["ratings_sha256"]


def test_scorer_refuses_other_vectors(tmp_path, small_vectors) -> None:
    scorer, _ = ab.train_scorer(
        vectors=small_vectors, variant="glove50", regressor=ab.AbstractnessRegressor(epochs=1)
    )
    scorer.save(tmp_path)
    other = load_vectors(vocabulary=["economy"])
    other.sha256 = "0" * 64  # a different source file, as after pointing GLOVE_PATH elsewhere
    with pytest.raises(ValueError, match="retrain"):
        ab.ImperceptibilityScorer.load(tmp_path, vectors=other)


def test_cli_train_score_eval(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MODELS_DIR", str(tmp_path))
    runner = CliRunner()
    result = runner.invoke(
        abstractness,
        ["train", "--variant", "glove50", "--epochs", "2", "--hidden", "32", "16", "--dropout", "0.1"],
    )
    assert result.exit_code == 0, result.output
    assert "| glove50 | 50 | 2148 / 1877 |" in result.output
    saved = json.loads((tmp_path / "abstractness" / "model.json").read_text())
    assert saved["params"]["hidden"] == [32, 16]
    assert (saved["params"]["dropout"], saved["params"]["epochs"], saved["seed"]) == (0.1, 2, 0)
    assert saved["ratings_sha256"] == hashlib.sha256(resources.mrc_ratings_path().read_bytes()).hexdigest()
    assert (
        json.loads((tmp_path / "abstractness" / "calibration-held-out.json").read_text())["method"]
        == "held-out"
    )
    skipped = runner.invoke(abstractness, ["train", "--variant", "glove50", "--if-missing"])
    assert "skipped" in skipped.output
    assert "calibration held-out" in skipped.output
    result = runner.invoke(abstractness, ["score", "economy", "qzxvnoword"])
    assert result.exit_code == 0, result.output
    lines = dict(line.split("\t") for line in result.output.strip().splitlines())
    assert lines["qzxvnoword"] == "-"
    assert 0.0 <= float(lines["economy"]) <= 1.0
    result = runner.invoke(abstractness, ["eval", "--variant", "glove50", "--epochs", "1"])
    assert result.exit_code == 0, result.output
    assert "| glove50 | 50 | 2148 / 1877 |" in result.output


def test_cli_reports_missing_model_and_bad_variant(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(abstractness, ["score", "--model", str(tmp_path), "idea"])
    assert result.exit_code == 1
    assert "no trained abstractness model" in result.output
    result = runner.invoke(abstractness, ["eval", "--variant", "glove999"])
    assert result.exit_code == 1
    assert "unknown vector variant part 'glove999'" in result.output


def test_cli_if_missing_retrains_a_model_of_other_vectors(tmp_path: Path, small_vectors) -> None:
    stale_vectors = load_vectors(vocabulary=sorted(small_vectors._index))
    stale_vectors.sha256 = "0" * 64  # as if trained before GLOVE_PATH pointed elsewhere
    stale, _ = ab.train_scorer(
        vectors=stale_vectors, variant="glove50", regressor=ab.AbstractnessRegressor(epochs=1)
    )
    stale.save(tmp_path)
    result = CliRunner().invoke(
        abstractness,
        ["train", "--if-missing", "--variant", "glove50", "--epochs", "1", "--output", str(tmp_path)],
    )
    assert result.exit_code == 0, result.output
    assert "retraining" in result.output
    assert ab.ImperceptibilityScorer.load(tmp_path).provenance["vectors_sha256"] != "0" * 64


def test_cli_help_names_the_real_default_variant() -> None:
    result = CliRunner().invoke(abstractness, ["train", "--help"])
    assert f"[default: {ab.DEFAULT_VARIANT}]" in " ".join(result.output.split())
