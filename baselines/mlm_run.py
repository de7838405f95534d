"""Masked-LM runs (both stages of baselines/encoder_mlm.py) on the shared loop of baselines/finetune.py, and
the adaptation data: texts cut into chunks, 15% of their pieces masked.

``start_masked_lm_run`` opens a ``FineTuneRun`` of an ``AutoModelForMaskedLM``; its settings record the
base model and, for a base saved by ``adapt_encoder``, that base's manifest (provenance).
"""

import hashlib
import json
import math
import random
from collections.abc import Sequence
from pathlib import Path

import torch

from baselines.finetune import MANIFEST, FineTuneRun, base_model_dir

CHUNK = 128  # word pieces per adaptation sequence
MASK_PROBABILITY = 0.15


def adaptation_chunks(*, tokenizer, texts: Sequence[str], length: int = CHUNK) -> list[list[int]]:
    """Texts cut into ``[CLS] ... [SEP]`` sequences of at most ``length`` pieces (short tails dropped)."""
    body = length - 2
    chunks = []
    for ids in tokenizer(list(texts), add_special_tokens=False)["input_ids"]:
        for start in range(0, len(ids), body):
            piece = ids[start : start + body]
            if len(piece) >= 16:
                chunks.append([tokenizer.cls_token_id, *piece, tokenizer.sep_token_id])
    return chunks


def mask_chunks(
    *, tokenizer, chunks: Sequence[list[int]], generator: torch.Generator
) -> dict[str, torch.Tensor]:
    """A padded MLM batch: 15% of the non-special pieces replaced by ``[MASK]`` and predicted."""
    width = max(len(c) for c in chunks)
    ids = torch.full((len(chunks), width), tokenizer.pad_token_id)  # Shape: (batch, width)
    attention = torch.zeros_like(ids)
    for row, chunk in enumerate(chunks):
        ids[row, : len(chunk)] = torch.tensor(chunk)
        attention[row, : len(chunk)] = 1
    special = torch.tensor(sorted(set(tokenizer.all_special_ids)))
    maskable = (attention == 1) & ~torch.isin(ids, special)
    chosen = maskable & (torch.rand(ids.shape, generator=generator) < MASK_PROBABILITY)
    labels = torch.where(chosen, ids, torch.full_like(ids, -100))  # -100: not predicted
    return {
        "input_ids": ids.masked_fill(chosen, tokenizer.mask_token_id),
        "attention_mask": attention,
        "labels": labels,
    }


def load_masked_lm(model_dir: Path, device: str) -> tuple:
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    return tokenizer, AutoModelForMaskedLM.from_pretrained(model_dir).to(device)


def start_masked_lm_run(*, output_dir, model_dir, settings, device, kind) -> FineTuneRun:
    """A resumable masked-LM run in ``output_dir`` (or the metrics of the finished identical run)."""
    base_dir = base_model_dir(model_dir)
    return FineTuneRun.start(
        output_dir=output_dir,
        base_dir=base_dir,
        settings={**settings, "base_model": str(base_dir), "base_manifest": _manifest_of(base_dir)},
        device=device,
        kind=kind,
        load=load_masked_lm,
    )


def step_batch(items: Sequence, *, step: int, batch_size: int, tag: str) -> list:
    """The items of training step ``step``: every epoch is a shuffle seeded by ``f"{tag}:{epoch}"``, so
    a resumed run replays the same batches."""
    epoch, position = divmod(step, math.ceil(len(items) / batch_size))
    order = list(range(len(items)))
    random.Random(f"{tag}:{epoch}").shuffle(order)
    return [items[i] for i in order[position * batch_size : (position + 1) * batch_size]]


def _manifest_of(model_dir: Path) -> dict | None:
    """The manifest of an adapted base model (so a fine-tuned model records how its base was made)."""
    path = Path(model_dir) / MANIFEST
    if not path.is_file():
        return None
    manifest = json.loads(path.read_text(encoding="utf-8"))
    return {"baseline": manifest.get("baseline"), "settings": manifest.get("settings")}


def texts_sha256(texts: Sequence[str]) -> str:
    """A content hash of a list of texts (order-sensitive), recorded in the manifest."""
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode("utf-8") + b"\n")
    return digest.hexdigest()
