"""A DISTO-style learned distractor score (companion paper 002, §3): negative sampling and a classifier.

Positives are a dataset's real distractors (each ReCAM option but the gold); negatives replace one
with a bad one, four kinds per question (``NEGATIVE_KINDS``): a random word of the articles'
vocabulary, a WordNet synonym of the gold, an inflection of the gold (lemminflect), an option of
another question. The question's own options are never drawn as negatives.

Features (``features``) come from a frozen sentence encoder (``SentenceEncoder``, default the
MiniLM-L6 of the PyPI package, ``ENCODER_MODEL``): the question filled with the distractor (d), with
the gold (g), the article's first ``ARTICLE_WORDS`` words (a), the distractor word (w) and the gold
word (v); the vector is ``[d - g, d * a, w * v]`` and five cosines. DISTO fine-tunes DistilRoBERTa on
the joined text; a frozen encoder and scikit-learn's logistic regression (standardised features)
keep training to minutes on a CPU. The score is the classifier's probability that the distractor is
a real one. The saved model is plain JSON (no pickle) with the hashes of its training files and of
the encoder; ``load_model`` refuses a model whose encoder is not the one given.
"""

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from lexicon.files import file_sha256, write_atomic
from recam.records import PLACEHOLDER, Question

DISTO_VERSION = "disto-1"
REAL = "real"
NEGATIVE_KINDS = ("random", "synonym", "inflection", "other_question")
ARTICLE_WORDS = 200
MODEL_FILE = "model.json"
_WORD = re.compile(r"^[a-z]{3,}$")


@dataclass(frozen=True)
class Example:
    """One (question, distractor) pair: ``label`` 1 for a real distractor, 0 for a sampled one."""

    question: Question
    distractor: str
    label: int
    kind: str


def vocabulary_of(questions: Iterable[Question]) -> list[str]:
    """The sorted lowercase alphabetic words (3+ letters) of the questions' articles."""
    words = {w for q in questions for w in q.article.lower().split() if _WORD.match(w)}
    return sorted(words)


def synonyms(*, wordnet, word: str) -> list[str]:
    """Single-word WordNet lemma names sharing a synset with ``word`` (any part of speech), sorted."""
    found = {lemma.name().lower() for s in wordnet.synsets(word) for lemma in s.lemmas()}
    return sorted(w for w in found if "_" not in w and w != word.lower())


def inflections(word: str) -> list[str]:
    """The other forms of ``word``'s lemmas in lemminflect's dictionary (``lost`` -> lose, losing, ...)."""
    from lemminflect import getAllInflections, getAllLemmas

    forms = set()
    for lemmas in getAllLemmas(word.lower()).values():
        for lemma in lemmas:
            forms.add(lemma)
            forms.update(f for fs in getAllInflections(lemma).values() for f in fs)
    return sorted(forms - {word.lower()})


def examples_for(
    *, questions: Sequence[Question], wordnet, rng: np.random.Generator, vocabulary: Sequence[str]
) -> list[Example]:
    """The real distractors of each question and at most one negative of each kind (none if no candidate)."""
    examples = []
    for i, q in enumerate(questions):
        if q.label is None:
            raise ValueError(f"question {q.id} has no label: DISTO needs to know which option is the gold")
        own = {o.lower() for o in q.options}
        examples += [Example(q, o, 1, REAL) for j, o in enumerate(q.options) if j != q.label]
        pools = {
            "random": vocabulary,
            "synonym": synonyms(wordnet=wordnet, word=q.answer),
            "inflection": inflections(q.answer),
            "other_question": [o for k in _others(rng, len(questions), i) for o in questions[k].options],
        }
        for kind in NEGATIVE_KINDS:
            pool = [w for w in pools[kind] if w.lower() not in own] if kind != "random" else pools[kind]
            word = _draw(rng, pool, own)
            if word is not None:
                examples.append(Example(q, word, 0, kind))
    return examples


def _others(rng: np.random.Generator, n: int, i: int) -> list[int]:
    return [] if n < 2 else [int((i + rng.integers(1, n)) % n)]


def _draw(rng: np.random.Generator, pool: Sequence[str], own: set[str], tries: int = 20) -> str | None:
    for _ in range(tries if pool else 0):
        word = pool[int(rng.integers(len(pool)))]
        if word.lower() not in own:
            return word
    return None


class SentenceEncoder:
    """Mean-pooled, L2-normalised last hidden states of a Hugging Face encoder; texts cached per instance.

    Device auto: CUDA with bf16 autocast when present, else the CPU in float32.
    """

    def __init__(self, *, tokenizer, model, name: str, sha256: str, device: str = "cpu", batch_size=32):
        self.tokenizer, self.model, self.name, self.sha256 = tokenizer, model.eval(), name, sha256
        self.device, self.batch_size, self.max_length = device, batch_size, 256
        self._cache: dict[str, np.ndarray] = {}

    @classmethod
    def load(cls, path: str | Path | None = None, *, device: str | None = None) -> "SentenceEncoder":
        import torch
        from transformers import AutoModel, AutoTokenizer

        from lexicon import resources

        model_dir = Path(path) if path is not None else resources.encoder_model_dir()
        if not model_dir.is_dir():
            raise FileNotFoundError(f"encoder model dir not found: {model_dir} (set ENCODER_MODEL)")
        device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
        model = AutoModel.from_pretrained(str(model_dir)).to(device)
        return cls(
            tokenizer=tokenizer, model=model, name=model_dir.name, sha256=dir_sha256(model_dir), device=device
        )

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        missing = sorted({t for t in texts if t not in self._cache}, key=lambda t: (len(t), t))
        for start in range(0, len(missing), self.batch_size):
            chunk = missing[start : start + self.batch_size]
            self._cache.update(zip(chunk, self._batch(chunk), strict=True))
        return np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, 0), np.float32)

    def _batch(self, texts: list[str]) -> np.ndarray:
        import torch

        enc = self.tokenizer(
            texts, truncation=True, max_length=self.max_length, padding=True, return_tensors="pt"
        )
        enc = enc.to(self.device)
        cuda = self.device.startswith("cuda")
        with torch.inference_mode(), torch.autocast("cuda", dtype=torch.bfloat16, enabled=cuda):
            states = self.model(**enc).last_hidden_state.float()  # Shape: (batch, pieces, hidden)
        mask = enc["attention_mask"].unsqueeze(-1).float()  # Shape: (batch, pieces, 1)
        pooled = (states * mask).sum(1) / mask.sum(1).clamp(min=1)  # Shape: (batch, hidden)
        return torch.nn.functional.normalize(pooled, dim=-1).cpu().numpy()


def dir_sha256(path: Path) -> str:
    """One hash over a model directory: each file's name and sha256, in name order."""
    import hashlib

    parts = [f"{p.relative_to(path)}:{file_sha256(p)}" for p in sorted(path.rglob("*")) if p.is_file()]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def article_start(article: str) -> str:
    return " ".join(article.split()[:ARTICLE_WORDS])


def features(*, examples: Sequence[Example], encoder) -> np.ndarray:
    """Shape (n, 3 * hidden + 5): ``[d - g, d * a, w * v]`` and the cosines (d,g) (d,a) (w,v) (w,a) (w,g)."""
    if not examples:
        raise ValueError("no examples to featurise")
    d = encoder.encode([e.question.question.replace(PLACEHOLDER, e.distractor, 1) for e in examples])
    g = encoder.encode([e.question.filled() for e in examples])
    a = encoder.encode([article_start(e.question.article) for e in examples])
    w = encoder.encode([e.distractor for e in examples])
    v = encoder.encode([e.question.answer for e in examples])

    def cos(x, y):
        return (x * y).sum(1) / np.maximum(np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1), 1e-9)

    cosines = np.stack([cos(d, g), cos(d, a), cos(w, v), cos(w, a), cos(w, g)], axis=1)
    return np.concatenate([d - g, d * a, w * v, cosines], axis=1).astype(np.float64)


@dataclass
class DistoModel:
    """Standardise, then logistic regression; ``manifest`` records what it was trained on."""

    mean_: np.ndarray
    scale_: np.ndarray
    coef_: np.ndarray
    intercept_: float
    manifest: dict = field(default_factory=dict)

    def predict(self, x: np.ndarray) -> np.ndarray:
        z = ((x - self.mean_) / self.scale_) @ self.coef_ + self.intercept_
        return 1.0 / (1.0 + np.exp(-z))

    def score(self, *, examples: Sequence[Example], encoder) -> np.ndarray:
        check_encoder(manifest=self.manifest, encoder=encoder)
        return self.predict(features(examples=examples, encoder=encoder))

    def save(self, directory: str | Path) -> Path:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        data = {"manifest": self.manifest, "mean": self.mean_.tolist(), "scale": self.scale_.tolist()}
        data |= {"coef": self.coef_.tolist(), "intercept": self.intercept_}
        write_atomic(path=directory / MODEL_FILE, text=json.dumps(data) + "\n")
        return directory / MODEL_FILE


def fit_model(*, x: np.ndarray, y: np.ndarray, seed: int, c: float = 0.1, manifest: dict | None = None):
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(x)
    clf = LogisticRegression(C=c, max_iter=2000, random_state=seed).fit(scaler.transform(x), y)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    return DistoModel(scaler.mean_, scale, clf.coef_[0], float(clf.intercept_[0]), manifest or {})


def check_encoder(*, manifest: dict, encoder) -> None:
    trained = manifest.get("encoder", {})
    if trained.get("sha256") != encoder.sha256:
        raise ValueError(
            f"the DISTO model was trained with encoder {trained.get('name')!r} (sha256 "
            f"{str(trained.get('sha256'))[:12]}), not with {encoder.name!r} (sha256 {encoder.sha256[:12]}): "
            "pass the same encoder or retrain"
        )


def load_model(directory: str | Path, *, encoder=None) -> DistoModel:
    """Read ``DIR/model.json``; with ``encoder``, refuse a model trained with another encoder."""
    path = Path(directory) / MODEL_FILE
    if not path.is_file():
        raise ValueError(f"{path}: no DISTO model here (train one with `python -m datagen disto train`)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        model = DistoModel(
            np.asarray(data["mean"]), np.asarray(data["scale"]), np.asarray(data["coef"]),
            float(data["intercept"]), data["manifest"],
        )  # fmt: skip
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path}: not a DISTO model file ({exc})") from None
    if model.manifest.get("version") != DISTO_VERSION:
        raise ValueError(
            f"{path}: model version {model.manifest.get('version')!r}, expected {DISTO_VERSION!r}"
        )
    if encoder is not None:
        check_encoder(manifest=model.manifest, encoder=encoder)
    return model


def training_identity(*, files: dict[str, str], encoder, seed: int) -> dict:
    """What a trained model depends on: data hashes, encoder hash, seed, features and code version."""
    return {
        "version": DISTO_VERSION,
        "training": [{"path": p, "sha256": h} for p, h in sorted(files.items())],
        "encoder": {"name": encoder.name, "sha256": encoder.sha256},
        "seed": seed,
        "negatives": list(NEGATIVE_KINDS),
        "article_words": ARTICLE_WORDS,
    }


def train(
    *,
    questions: Sequence[Question],
    files: dict[str, str],
    encoder,
    wordnet,
    seed: int = 0,
    output_dir: str | Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> tuple[DistoModel, bool]:
    """Train on ``questions`` (``files``: path -> sha256 of where they came from); ``(model, reused)``.

    When ``output_dir`` already holds a model with the same identity (data, encoder, seed, code
    version) it is loaded, not retrained.
    """
    identity = training_identity(files=files, encoder=encoder, seed=seed)
    if output_dir is not None and (Path(output_dir) / MODEL_FILE).is_file():
        old = load_model(output_dir)
        if {k: old.manifest.get(k) for k in identity} == identity:
            return old, True
    rng = np.random.default_rng(seed)
    examples = examples_for(
        questions=questions, wordnet=wordnet, rng=rng, vocabulary=vocabulary_of(questions)
    )
    if progress:
        progress(f"{len(examples)} examples from {len(questions)} questions; encoding")
    x = features(examples=examples, encoder=encoder)
    y = np.array([e.label for e in examples])
    counts = {k: sum(e.kind == k for e in examples) for k in (REAL, *NEGATIVE_KINDS)}
    manifest = identity | {"questions": len(questions), "examples": counts, "classifier": "logistic C=0.1"}
    model = fit_model(x=x, y=y, seed=seed, manifest=manifest)
    if output_dir is not None:
        model.save(output_dir)
    return model, False
