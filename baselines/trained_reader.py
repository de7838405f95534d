"""A trained reader: encoding and batching, predict, rank, save/load (its vocabularies: reader_vocab).

Training lives in baselines.training (train_reader) and baselines.reader_fit (fit); this module and
reader_vocab are what a saved reader needs.
"""

import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

import torch

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
from baselines.reader_config import ReaderConfig
from baselines.reader_vocab import ReaderVocabulary, fixed_vectors
from baselines.readers import ReaderBase, ReaderBatch, build_reader
from recam.records import NUM_OPTIONS

FORMAT_VERSION = "recam-reader-1"
_fixed_vectors = fixed_vectors  # its name before the vocabularies moved to baselines.reader_vocab


class TrainedReader(ReaderVocabulary):
    """A trained reader with its vocabularies; ``rank``/``predict`` grow them for new words.

    The vocabularies and their growth: baselines.reader_vocab (``ReaderVocabulary``).
    """

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
