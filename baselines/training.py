"""Train the readers (Appendix D settings) and use them: 5-way multiple choice or a whole candidate set.

* Multiple-choice mode (``candidates=None``): each example is scored over its own options; the target
  is ``label``. This is the participants' baseline.
* Candidate-set mode (``candidates`` given): a softmax over the whole candidate set; the target is the
  example's ``answer``. This is option generation (task paper §3.5).

A seeded ``valid_fraction`` of the training examples is held out to pick the best epoch, so ``dev``
is only reported per epoch, never used for selection. ``checkpoint_dir`` gets ``last.pt`` after every
epoch; a rerun with the same configuration and data resumes from it.
"""

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from baselines.data import (
    RESERVED,
    ClozeExample,
    EncodedExample,
    candidate_key,
    check_examples,
    encode_tokens,
    tokenize,
)
from baselines.device import pick_device
from baselines.readers import READERS, ReaderBase, ReaderBatch, build_reader
from recam.metrics import accuracy
from recam.records import NUM_OPTIONS

FORMAT_VERSION = "recam-reader-1"


@dataclass(frozen=True)
class ReaderConfig:
    reader: str  # "ga" | "att" | "att-gloss"
    hidden: int = 150
    hops: int = 3
    dropout: float = 0.3
    batch_size: int = 32
    lr: float = 1e-3
    epochs: int = 8
    max_passage_tokens: int = 400
    max_gloss_tokens: int = 40
    valid_fraction: float = 0.1
    time_budget_s: float | None = None  # stop after the epoch that passes it
    seed: int = 13
    # Remove the context-independent part of the scoring query (a learnt prior over answer words); see
    # baselines.readers. Off here (the paper's scoring, used by option generation); the baselines CLI
    # turns it on (docs/baselines.md).
    center_query: bool = False

    def __post_init__(self) -> None:
        if self.reader not in READERS:
            raise ValueError(f"unknown reader {self.reader!r}: expected one of {', '.join(READERS)}")
        if self.epochs < 1 or self.batch_size < 1 or self.hidden < 1:
            raise ValueError("epochs, batch_size and hidden must be positive")
        if not 0 <= self.valid_fraction < 1:
            raise ValueError(f"valid_fraction must be in [0, 1), got {self.valid_fraction}")


def _fixed_vectors(vectors, words: Sequence[str]) -> torch.Tensor:
    """Rows for ``words`` (a word of several tokens gets the mean of its tokens' vectors)."""
    rows = np.zeros((len(words), vectors.dim), dtype=np.float32)  # Shape: (num_words, dim)
    for i, word in enumerate(words):
        found = [v for v in (vectors.get(t) for t in (tokenize(word) or [word])) if v is not None]
        if found:
            rows[i] = np.mean(found, axis=0)
    return torch.from_numpy(rows)


class TrainedReader:
    """A trained reader with its vocabularies; ``rank``/``predict`` grow them for new words."""

    def __init__(
        self,
        *,
        config: ReaderConfig,
        module: ReaderBase,
        words: list[str],
        candidates: list[str],
        gloss_words: list[str],
        candidate_glosses: list[tuple[int, ...]],
        candidate_set: tuple[str, ...] | None,
        vectors=None,
        wordnet=None,
        info: dict | None = None,
    ) -> None:
        self.config = config
        self.module = module
        self.words = list(words)
        self.word_index = {w: i for i, w in enumerate(self.words)}
        self.candidates = list(candidates)
        self.candidate_index = {c: i for i, c in enumerate(self.candidates)}
        self.gloss_words = list(gloss_words)
        self.gloss_index = {w: i for i, w in enumerate(self.gloss_words)}
        self.candidate_glosses = list(candidate_glosses)
        self.candidate_set = candidate_set
        self.vectors = vectors
        self.wordnet = wordnet
        self.info = dict(info or {})

    # -- vocabulary growth -------------------------------------------------------------------------
    def _vectors(self):
        if self.vectors is None:
            from lexicon.vectors import load_vectors

            path = self.info.get("vectors_path")
            self.vectors = load_vectors(Path(path) if path else None)
            expected = self.info.get("vectors_sha256")
            if expected and self.vectors.sha256 != expected:
                raise ValueError(
                    f"the word vectors {self.vectors.name} differ from the ones this model was trained "
                    "with: pass the same vectors (GLOVE_PATH) to load()"
                )
        return self.vectors

    def _wordnet(self):
        if self.wordnet is None:
            from lexicon.resources import wordnet

            self.wordnet = wordnet()
        return self.wordnet

    def add_words(self, tokens: set[str]) -> None:
        vectors = self._vectors()
        new = sorted(t for t in tokens if t not in self.word_index and vectors.get(t) is not None)
        if new:
            self.module.extend_words(_fixed_vectors(vectors, new))
            for word in new:
                self.word_index[word] = len(self.words)
                self.words.append(word)

    def add_candidates(self, keys: Sequence[str]) -> None:
        new = [k for k in dict.fromkeys(keys) if k not in self.candidate_index]
        if not new:
            return
        vectors = self._vectors()
        if self.config.reader == "att-gloss":
            from lexicon.glosses import gloss

            texts = [tokenize(gloss(word=k, wordnet=self._wordnet())) for k in new]
            fresh = sorted({t for text in texts for t in text if t not in self.gloss_index})
            self.module.extend_gloss_words(_fixed_vectors(vectors, fresh))
            for word in fresh:
                self.gloss_index[word] = len(self.gloss_words)
                self.gloss_words.append(word)
            limit = self.config.max_gloss_tokens
            self.candidate_glosses += [encode_tokens(t, self.gloss_index, limit=limit) for t in texts]
        else:
            self.candidate_glosses += [(1,)] * len(new)
        self.module.extend_candidates(_fixed_vectors(vectors, new))
        for key in new:
            self.candidate_index[key] = len(self.candidates)
            self.candidates.append(key)

    # -- encoding ----------------------------------------------------------------------------------
    def encode(self, examples: Sequence[ClozeExample], *, mode: str, grow: bool) -> list[EncodedExample]:
        """``mode`` "mc" (own options) or "set" (candidate set); ``grow`` adds unseen words first."""
        tokenized = [(tokenize(e.article), tokenize(e.question)) for e in examples]
        if grow:
            limit = self.config.max_passage_tokens
            self.add_words({t for passage, summary in tokenized for t in passage[:limit] + summary})
            if mode == "mc":
                self.add_candidates([candidate_key(o) for e in examples for o in e.options or ()])
        encoded = []
        for example, (passage, summary) in zip(examples, tokenized, strict=True):
            summary_ids = encode_tokens(summary, self.word_index)
            if mode == "mc":
                choices = tuple(self.candidate_index[candidate_key(o)] for o in example.options or ())
                target = example.label
            else:
                choices = ()
                target = self.candidate_index.get(candidate_key(example.answer)) if example.answer else None
            encoded.append(
                EncodedExample(
                    passage=encode_tokens(passage, self.word_index, limit=self.config.max_passage_tokens),
                    summary=summary_ids,
                    placeholder=summary.index(RESERVED[2]),
                    choices=choices,
                    target=target,
                )
            )
        return encoded

    def batch(self, items: Sequence[EncodedExample], *, mode: str) -> ReaderBatch:
        if mode == "mc":
            rows = sorted({row for item in items for row in item.choices})
            position = {row: i for i, row in enumerate(rows)}
            width = max(len(item.choices) for item in items)
            choices = [
                [position[r] for r in item.choices] + [0] * (width - len(item.choices)) for item in items
            ]
            choice_mask = [
                [True] * len(item.choices) + [False] * (width - len(item.choices)) for item in items
            ]
        else:
            rows = list(range(len(self.candidate_set or ())))
            choices = [rows] * len(items)
            choice_mask = [[True] * len(rows)] * len(items)
        passage, passage_mask = _pad([item.passage for item in items])
        summary, summary_mask = _pad([item.summary for item in items])
        gloss, gloss_mask = _pad([self.candidate_glosses[r] for r in rows])
        return ReaderBatch(
            passage=passage,
            passage_mask=passage_mask,
            summary=summary,
            summary_mask=summary_mask,
            placeholder=torch.tensor([item.placeholder for item in items]),  # Shape: (batch,)
            candidates=torch.tensor(rows, dtype=torch.long),  # Shape: (num_cands,)
            gloss=gloss,
            gloss_mask=gloss_mask,
            choices=torch.tensor(choices, dtype=torch.long),  # Shape: (batch, num_choices)
            choice_mask=torch.tensor(choice_mask, dtype=torch.bool),  # Shape: (batch, num_choices)
        )

    @torch.no_grad()
    def _logits(self, encoded: Sequence[EncodedExample], *, mode: str) -> list[torch.Tensor]:
        self.module.eval()
        device = next(self.module.parameters()).device
        out = []
        size = self.config.batch_size
        for start in range(0, len(encoded), size):
            batch = self.batch(encoded[start : start + size], mode=mode).to(device)
            out.extend(self.module(batch).cpu())  # each Shape: (num_choices,)
        return out

    # -- public use --------------------------------------------------------------------------------
    def predict(self, *, examples: Sequence[ClozeExample]) -> list[int]:
        """The index of the best option of each example (multiple-choice use)."""
        return self.probabilities(examples=examples).argmax(dim=-1).tolist()

    def probabilities(self, *, examples: Sequence[ClozeExample]) -> torch.Tensor:
        """Softmax over each example's options (multiple-choice use). Shape: (num_examples, 5)."""
        examples = check_examples(examples, need="options")
        encoded = self.encode(examples, mode="mc", grow=True)
        logits = self._logits(encoded, mode="mc")
        if not logits:
            return torch.zeros(0, NUM_OPTIONS)
        return torch.softmax(torch.stack(logits), dim=-1)

    def rank(self, *, examples: Sequence[ClozeExample], top_k: int) -> list[list[tuple[str, float]]]:
        """The ``top_k`` candidates of each example with their probabilities (candidate-set use)."""
        if self.candidate_set is None:
            raise ValueError(
                "rank() needs a reader trained in candidate-set mode (train_reader(candidates=...))"
            )
        examples = check_examples(examples, need="none")
        encoded = self.encode(examples, mode="set", grow=True)
        ranked = []
        for logits in self._logits(encoded, mode="set"):
            probs = torch.softmax(logits, dim=-1)  # Shape: (num_cands,)
            top = torch.topk(probs, k=min(top_k, probs.numel()))
            ranked.append(
                [(self.candidates[int(i)], float(p)) for p, i in zip(top.values, top.indices, strict=True)]
            )
        return ranked

    def save(self, directory: str | Path) -> None:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        torch.save(self.module.state_dict(), directory / "model.pt")
        meta = {
            "kind": "reader",
            "format_version": FORMAT_VERSION,
            "config": asdict(self.config),
            "words": self.words,
            "candidates": self.candidates,
            "gloss_words": self.gloss_words,
            "candidate_glosses": [list(g) for g in self.candidate_glosses],
            "candidate_set": list(self.candidate_set) if self.candidate_set is not None else None,
            "info": self.info,
        }
        (directory / "meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(
        cls, directory: str | Path, *, vectors=None, device: str | None = None, last_epoch: bool = False
    ) -> "TrainedReader":
        """Load a saved reader; ``last_epoch`` takes the final epoch's weights (checkpoints/last.pt)
        instead of the epoch selected on the held-out slice."""
        directory = Path(directory)
        meta_path = directory / "meta.json"
        if not meta_path.is_file():
            raise ValueError(f"{directory}: no meta.json, not a saved reader")
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("kind") != "reader" or meta.get("format_version") != FORMAT_VERSION:
            raise ValueError(f"{meta_path}: not a {FORMAT_VERSION} reader (kind {meta.get('kind')!r})")
        state = torch.load(directory / "model.pt", map_location="cpu", weights_only=True)
        if last_epoch:
            last = directory / "checkpoints" / "last.pt"
            if not last.is_file():
                raise ValueError(f"{last}: no last-epoch checkpoint")
            state = torch.load(last, map_location="cpu", weights_only=False)["model"]
        config = ReaderConfig(**{"center_query": False, **meta["config"]})  # older models: no centring
        module = _new_module(
            config,
            words=torch.zeros_like(state["word_vectors"]),
            cands=torch.zeros_like(state["candidate_vectors"]),
            gloss=torch.zeros_like(state["gloss_vectors"]) if "gloss_vectors" in state else None,
        )
        module.load_state_dict(state)
        module.to(pick_device(device))
        candidate_set = meta["candidate_set"]
        return cls(
            config=config,
            module=module,
            words=meta["words"],
            candidates=meta["candidates"],
            gloss_words=meta["gloss_words"],
            candidate_glosses=[tuple(g) for g in meta["candidate_glosses"]],
            candidate_set=tuple(candidate_set) if candidate_set is not None else None,
            vectors=vectors,
            info=meta["info"],
        )


def _pad(sequences: Sequence[Sequence[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(s) for s in sequences)
    ids = torch.zeros(len(sequences), width, dtype=torch.long)  # Shape: (num, width)
    for i, sequence in enumerate(sequences):
        ids[i, : len(sequence)] = torch.tensor(sequence, dtype=torch.long)
    return ids, ids != 0  # mask Shape: (num, width); ids are never 0 inside a sequence


def _new_module(
    config: ReaderConfig, *, words: torch.Tensor, cands: torch.Tensor, gloss: torch.Tensor | None
) -> ReaderBase:
    torch.manual_seed(config.seed)
    return build_reader(
        reader=config.reader,
        word_vectors=words,
        candidate_vectors=cands,
        gloss_vectors=gloss if config.reader == "att-gloss" else None,
        hidden=config.hidden,
        hops=config.hops,
        dropout=config.dropout,
        center_query=config.center_query,
    )


def examples_sha256(examples: Sequence[ClozeExample]) -> str:
    digest = hashlib.sha256()
    for example in examples:
        digest.update(json.dumps(asdict(example), sort_keys=True).encode() + b"\n")
    return digest.hexdigest()


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


def loss_fn(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Negative log-likelihood of the targets under the softmax over each example's choices."""
    return nn.functional.cross_entropy(logits, targets)


def _fingerprint(reader: TrainedReader, *, mode: str, dev: Sequence[ClozeExample] | None) -> str:
    # epochs and the time budget are left out: a rerun asking for more epochs continues the same run
    settings = {k: v for k, v in asdict(reader.config).items() if k not in ("epochs", "time_budget_s")}
    if not settings["center_query"]:  # added later: runs without it keep their fingerprint (and resume)
        del settings["center_query"]
    parts = [FORMAT_VERSION, mode, json.dumps(settings, sort_keys=True)]
    parts += [reader.info["train_sha256"], examples_sha256(dev or []), reader.info["vectors_sha256"]]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def _top1(reader: TrainedReader, items: Sequence[EncodedExample], *, mode: str) -> float | None:
    if not items:
        return None
    predictions = [int(logits.argmax()) for logits in reader._logits(items, mode=mode)]
    return accuracy(predictions=predictions, references=[int(item.target) for item in items])["accuracy"]


def fit(
    *,
    reader: TrainedReader,
    train: Sequence[ClozeExample],
    dev: Sequence[ClozeExample] | None,
    mode: str,
    device: str,
    checkpoint_dir: Path | None,
    progress: bool,
) -> None:
    """The training loop: seeded shuffles, per-epoch checkpoint, best epoch on the held-out slice."""
    from tqdm import tqdm

    config = reader.config
    encoded = reader.encode(train, mode=mode, grow=False)
    order = np.random.default_rng(config.seed).permutation(len(encoded))
    n_valid = int(len(encoded) * config.valid_fraction) if len(encoded) >= 20 else 0
    valid = [encoded[i] for i in order[:n_valid]]
    items = [encoded[i] for i in order[n_valid:]]
    dev_items = [e for e in reader.encode(dev, mode=mode, grow=True) if e.target is not None] if dev else []
    module = reader.module.to(device)
    optimizer = torch.optim.Adam([p for p in module.parameters() if p.requires_grad], lr=config.lr)
    state = {"epoch": 0, "history": [], "best_score": -1.0, "best_state": None}
    fingerprint = _fingerprint(reader, mode=mode, dev=dev)
    last = Path(checkpoint_dir) / "last.pt" if checkpoint_dir else None
    if last is not None and last.is_file():
        saved = torch.load(last, map_location=device, weights_only=False)
        if saved.get("fingerprint") == fingerprint:
            module.load_state_dict(saved["model"])
            optimizer.load_state_dict(saved["optimizer"])
            state = saved["state"]
    started = time.monotonic()
    for epoch in range(state["epoch"], config.epochs):
        module.train()
        torch.manual_seed(config.seed * 1000 + epoch)  # dropout masks do not depend on resuming
        perm = np.random.default_rng([config.seed, epoch]).permutation(len(items))
        batches = [perm[i : i + config.batch_size] for i in range(0, len(perm), config.batch_size)]
        losses = []
        bar = tqdm(batches, desc=f"{config.reader} epoch {epoch + 1}/{config.epochs}", disable=not progress)
        for indices in bar:
            chosen = [items[i] for i in indices]
            batch = reader.batch(chosen, mode=mode).to(device)
            targets = torch.tensor([item.target for item in chosen], device=device)  # Shape: (batch,)
            loss = loss_fn(module(batch), targets)
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(module.parameters(), 10.0)
            optimizer.step()
            losses.append(loss.item())
            bar.set_postfix(loss=f"{np.mean(losses):.3f}")
        record = {
            "epoch": epoch + 1,
            "loss": float(np.mean(losses)),
            "valid": _top1(reader, valid, mode=mode),
        }
        record["dev"] = _top1(reader, dev_items, mode=mode)
        state["history"].append(record)
        score = record["valid"] if record["valid"] is not None else float(epoch)
        if score > state["best_score"]:
            state["best_score"], state["best_epoch"] = score, epoch + 1
            state["best_state"] = {k: v.detach().cpu().clone() for k, v in module.state_dict().items()}
        state["epoch"] = epoch + 1
        if last is not None:
            last.parent.mkdir(parents=True, exist_ok=True)
            payload = {
                "fingerprint": fingerprint,
                "model": module.state_dict(),
                "optimizer": optimizer.state_dict(),
                "state": state,
            }
            torch.save(payload, last.with_suffix(".tmp"))
            last.with_suffix(".tmp").replace(last)
        if progress:
            tqdm.write(f"{config.reader} epoch {epoch + 1}: {json.dumps(record)}")
        if config.time_budget_s is not None and time.monotonic() - started > config.time_budget_s:
            break
    if state["best_state"] is not None:
        module.load_state_dict(state["best_state"])
    reader.info.update(
        {"history": state["history"], "best_epoch": state.get("best_epoch"), "valid_examples": len(valid)}
    )


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
