"""Train the readers (Appendix D settings) and use them: 5-way multiple choice or a whole candidate set.

* Multiple-choice mode (``candidates=None``): each example is scored over its own options; the target
  is ``label``. This is the participants' baseline.
* Candidate-set mode (``candidates`` given): a softmax over the whole candidate set; the target is the
  example's ``answer``. This is option generation (task paper §3.5).

A seeded ``valid_fraction`` of the training examples is held out to pick the best epoch, so ``dev``
is only reported per epoch, never used for selection. ``checkpoint_dir`` gets ``last.pt`` after every
epoch; a rerun with the same configuration and data resumes from it. The loop is baselines.reader_fit
(``fit``, re-exported here); the trained reader itself, baselines.trained_reader.
"""

import time
from collections.abc import Sequence
from pathlib import Path

import torch

from baselines.data import (
    RESERVED,
    ClozeExample,
    candidate_key,
    check_examples,
    examples_sha256,
    tokenize,
)
from baselines.device import pick_device
from baselines.reader_config import ReaderConfig
from baselines.reader_fit import fit, loss_fn  # noqa: F401  (loss_fn re-exported)
from baselines.trained_reader import (  # noqa: F401  (re-exported: callers import them from here)
    FORMAT_VERSION,
    TrainedReader,
    _fixed_vectors,
    _new_module,
    _pad,
)
from recam.metrics import accuracy


def initial_reader(
    *,
    config: ReaderConfig,
    train: Sequence[ClozeExample],
    vectors,
    candidates: Sequence[str] | None,
    wordnet=None,
) -> TrainedReader:
    """An untrained reader whose vocabularies cover ``train`` (and the candidate set)."""
    mode = "mc" if candidates is None else "set"
    keys = (
        [candidate_key(c) for c in candidates]
        if candidates is not None
        else [candidate_key(o) for e in train for o in e.options or ()]
    )
    keys = list(dict.fromkeys(keys))
    cands = torch.zeros(0, vectors.dim)  # Shape: (0, dim)
    gloss = torch.zeros(2, vectors.dim) if config.reader == "att-gloss" else None  # pad, unk
    words = torch.zeros(len(RESERVED), vectors.dim)  # Shape: (3, dim): pad, unk, placeholder
    reader = TrainedReader(
        config=config,
        module=_new_module(config, words=words, cands=cands, gloss=gloss),
        words=list(RESERVED),
        candidates=[],
        gloss_words=["<pad>", "<unk>"],
        candidate_glosses=[],
        candidate_set=tuple(keys) if mode == "set" else None,
        vectors=vectors,
        wordnet=wordnet,
        info={"vectors": vectors.name, "vectors_sha256": vectors.sha256, "mode": mode},
    )
    limit = config.max_passage_tokens
    tokens = set()
    for example in train:
        tokens.update(tokenize(example.article)[:limit])
        tokens.update(tokenize(example.question))
    reader.add_words(tokens)
    reader.add_candidates(keys)
    torch.manual_seed(config.seed)  # the same initial weights whatever the vocabulary sizes
    fresh = _new_module(
        config,
        words=reader.module.word_vectors,
        cands=reader.module.candidate_vectors,
        gloss=None if gloss is None else reader.module.gloss_vectors,
    )
    reader.module = fresh
    return reader


def train_reader(
    *,
    config: ReaderConfig,
    train: Sequence[ClozeExample],
    vectors,
    candidates: Sequence[str] | None = None,
    dev: Sequence[ClozeExample] | None = None,
    device: str | None = None,
    checkpoint_dir: Path | None = None,
    progress: bool = True,
    wordnet=None,
    vectors_path: str | Path | None = None,
) -> TrainedReader:
    """Train one reader; see the module docstring for the two modes."""
    mode = "mc" if candidates is None else "set"
    train = check_examples(train, need="label" if mode == "mc" else "answer")
    if not train:
        raise ValueError("no training examples")
    if candidates is not None:
        keys = {candidate_key(c) for c in candidates}
        missing = [e.id for e in train if candidate_key(e.answer or "") not in keys]
        if missing:
            raise ValueError(
                f"{len(missing)} training answers are not in the candidate set (first: example {missing[0]!r})"
            )
    reader = initial_reader(
        config=config, train=train, vectors=vectors, candidates=candidates, wordnet=wordnet
    )
    reader.info.update(
        {
            "train_sha256": examples_sha256(train),
            "train_examples": len(train),
            "vectors_path": str(vectors_path) if vectors_path else None,
            "torch": torch.__version__,
        }
    )
    started = time.monotonic()
    fit(
        reader=reader,
        train=train,
        dev=dev,
        mode=mode,
        device=pick_device(device),
        checkpoint_dir=checkpoint_dir,
        progress=progress,
    )
    reader.info["train_seconds"] = round(time.monotonic() - started, 1)
    return reader


def evaluate(*, reader: TrainedReader, examples: Sequence[ClozeExample]) -> float:
    """Multiple-choice accuracy with the one scorer (recam.metrics.accuracy)."""
    labelled = [e for e in examples if e.label is not None]
    predictions = reader.predict(examples=labelled)
    return accuracy(predictions=predictions, references=[e.label for e in labelled])["accuracy"]


def query_prior(
    *, reader: TrainedReader, fit_on: Sequence[ClozeExample], evaluate_on: Sequence[ClozeExample]
) -> dict:
    """Diagnose the learnt answer-word prior of a multiple-choice reader.

    The mean ``mu`` of the effective scoring query (after any centring) over ``fit_on`` gives every
    candidate the context-independent score ``mu^T a_t``. Returns, per query (``output``, and
    ``gloss_output`` for the gloss reader), ``|mu|`` over the mean query norm (near 1: the query is
    mostly a fixed prior; near 0: no prior), and the accuracy on ``evaluate_on`` as trained and with
    ``mu`` subtracted after training (post-hoc centring).
    """
    names = ["query_center"] + (
        ["gloss_query_center"] if hasattr(reader.module, "gloss_query_center") else []
    )
    seen: dict[str, list[torch.Tensor]] = {name: [] for name in names}
    means: dict[str, torch.Tensor] = {}

    def hook(name):
        def run(_module, _inputs, output):
            if name in means:
                return output - means[name]  # Shape: (batch, size)
            seen[name].append(output.detach())
            return None

        return run

    handles = [getattr(reader.module, name).register_forward_hook(hook(name)) for name in names]
    try:
        reader.predict(examples=fit_on)
        share = {}
        for name in names:
            queries = torch.cat(seen[name])  # Shape: (num_examples, size)
            means[name] = queries.mean(dim=0)
            share[name] = float(means[name].norm() / queries.norm(dim=1).mean())
        centred = evaluate(reader=reader, examples=evaluate_on)
    finally:
        for handle in handles:
            handle.remove()
    return {"mean_query_share": share, "accuracy": evaluate(reader=reader, examples=evaluate_on),
            "accuracy_posthoc_centred": centred}  # fmt: skip
