"""The paper's readers as rows of the distractor benchmark (issue #16): trained elsewhere, ranking here.

Each reader (§3.5: GA, attentive, attentive + gloss) is trained in candidate-set mode, as option
generation trains it (``datagen.options.retrieval.run_fold``: the answer is one word of a candidate set), on
labelled ReCAM questions *other* than the benchmark's (``--reader-train``: the subtask's trial set).
A training question whose article shares at least ``datagen.overlap.DEFAULT_MAX_SHARE`` of its word
8-grams with a benchmark article is left out, as ``--extra-train`` leaves it out of the folds. The
candidate set is the training answers plus the benchmark's vocabulary (option generation's held-out
answers are in its candidate set too); the reader then ranks the vocabulary for every benchmark
question. A trained reader is saved under ``WORK/<reader>/model`` with what it was trained on; a rerun
with the same inputs loads it, other inputs are refused.
"""

import dataclasses
import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from datagen.options.build import normal
from datagen.options.retrieval import reader_config
from recam.records import Question

FORMAT = "recam-bench-reader-1"
_BATCH = 256


def training_examples(*, paths: Sequence[str | Path], against: Sequence[str]) -> tuple[list, dict]:
    """Labelled questions of ``paths`` as candidate-set examples, without those whose article overlaps
    one of ``against``; and the counts per file (kept, dropped)."""
    from baselines.data import ClozeExample
    from datagen.overlap import OverlapIndex, split_by_overlap
    from recam.records import read_questions

    index = OverlapIndex()
    index.add(list(against), source="benchmark")
    examples, counts = [], {}
    for path in paths:
        questions = read_questions(path, require_labels=True)
        kept, dropped = split_by_overlap([q.article for q in questions], index)
        counts[str(path)] = {"kept": len(kept), "dropped": len(dropped)}
        for position in kept:
            q = questions[position]
            examples.append(ClozeExample(
                id=f"{Path(path).name}:{q.id}", article=q.article, question=q.question,
                answer=normal(q.options[q.label]),
            ))  # fmt: skip
    return examples, counts


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def trained_reader(
    *,
    reader: str,
    train: Sequence,
    vocab: Sequence[str],
    work_dir: str | Path,
    settings: Mapping[str, object] | None = None,
    vectors=None,
    device: str | None = None,
    progress: bool = True,
):
    """``reader`` trained on ``train`` over the candidate set (training answers + ``vocab``), or loaded."""
    from baselines.data import tokenize
    from baselines.training import TrainedReader, train_reader
    from lexicon.vectors import load_vectors

    config = reader_config(reader=reader, settings=dict(settings or {}))
    candidates = sorted({e.answer for e in train} | {normal(w) for w in vocab})
    meta = {
        "format": FORMAT,
        "train_sha256": _digest([(e.id, e.article, e.question, e.answer) for e in train]),
        "candidates_sha256": _digest(candidates),
        "config": dataclasses.asdict(config),
    }
    out = Path(work_dir) / reader / "model"
    if vectors is None:
        words: set[str] = set(candidates)
        for e in train:
            words.update(tokenize(e.article), tokenize(e.question))
        vectors = load_vectors(None, vocabulary=words)
    done = out / "DONE"
    if done.is_file():
        stored = json.loads(done.read_text())
        if stored != json.loads(json.dumps(meta, sort_keys=True, default=str)):
            raise ValueError(f"{out} holds a reader trained on other inputs: use another --work-dir")
        return TrainedReader.load(out, vectors=vectors, device=device)
    model = train_reader(
        config=config, train=list(train), vectors=vectors, candidates=candidates, device=device,
        checkpoint_dir=out.parent / "checkpoints", progress=progress,
    )  # fmt: skip
    model.save(out)
    done.write_text(json.dumps(meta, sort_keys=True, default=str))
    return model


def reader_rankings(*, reader, questions: Sequence[Question], vocab: Sequence[str]) -> dict[str, list[str]]:
    """Question id -> the vocabulary in ``reader``'s order (words it cannot rank last, alphabetically)."""
    from baselines.data import ClozeExample

    allowed = set(vocab)
    found: dict[str, list[str]] = {}
    size = len(reader.candidates)
    for start in range(0, len(questions), _BATCH):
        batch = questions[start : start + _BATCH]
        examples = [ClozeExample(id=str(q.id), article=q.article, question=q.question) for q in batch]
        for q, ranking in zip(batch, reader.rank(examples=examples, top_k=size), strict=True):
            order = list(dict.fromkeys(w for w in (normal(word) for word, _p in ranking) if w in allowed))
            seen = set(order)
            found[str(q.id)] = order + sorted(w for w in allowed if w not in seen)
    return found


def precomputed(rankings: Mapping[str, Sequence[str]]):
    """A benchmark ranker that reads rankings computed beforehand (all questions in one batch)."""

    def rank(question: Question, vocab: Sequence[str]) -> list[str]:
        allowed = set(vocab)
        return [w for w in rankings[str(question.id)] if w in allowed]

    return rank
