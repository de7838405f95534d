"""Masked-word encoder baseline: each option scored at a ``[MASK]`` put where ``@placeholder`` is.

ReCAM is a cloze. ``AutoModelForMultipleChoice`` (baselines/encoder.py) must learn a new classifier
over ``[CLS]`` from under a thousand questions and stays near chance on a CPU budget. Here the
question, with ``[MASK]`` in place of ``@placeholder``, is paired with the article, and an option's
score is the masked-language-model logit of its word pieces at the mask (mean over its pieces), so the
task uses the encoder's own token space. ``AutoModelForMaskedLM`` over any local encoder: one with a
pretrained MLM head (bert-base-uncased via ENCODER_MODEL) can be fine-tuned directly.

The packaged MiniLM is a sentence-embedding model: its MLM head is missing (newly initialised, the
decoder tied to the input embeddings) and its token states no longer predict masked words. So:

1. ``adapt_encoder`` (``python -m baselines adapt``): masked-language modelling on unlabelled news
   text (the XSum documents and the trial articles, never dev or test) for a fixed time;
2. ``train_encoder_mlm`` (``train --reader encoder-mlm --encoder-model ADAPTED``): cross-entropy
   over the five options' scores on the labelled training questions.

Both stages checkpoint (every few minutes, on interruption) and resume; each saved directory holds
the weights, the tokenizer and ``manifest.json`` (versions, settings, sha256 of every input, metrics,
and for stage 2 the manifest of the adapted base).
"""

import json
import math
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import torch

from baselines.device import pick_device
from baselines.finetune import MANIFEST, check_labelled
from baselines.finetune_settings import FineTuneSettings
from baselines.mlm_run import (
    CHUNK,
    MASK_PROBABILITY,
    adaptation_chunks,
    mask_chunks,
    start_masked_lm_run,
    step_batch,
    texts_sha256,
)
from recam.records import NUM_OPTIONS, PLACEHOLDER, Question

ENCODER_MLM_VERSION = "encoder-mlm-1.0"
ADAPTED_VERSION = "encoder-mlm-adapted-1.0"
MLM_SETTINGS = FineTuneSettings(lr=3e-5)  # the CLI's CPU defaults: baselines.commands
__all__ = [  # the adaptation data (chunks, masking) lives in baselines.mlm_run; importable from here
    "CHUNK",
    "MASK_PROBABILITY",
    "MLM_SETTINGS",
    "adapt_encoder",
    "adaptation_chunks",
    "encoder_mlm_probabilities",
    "is_encoder_mlm",
    "mask_chunks",
    "option_scores",
    "train_encoder_mlm",
]


def option_scores(
    *, model, tokenizer, questions: Sequence[Question], max_length: int, device: str
) -> torch.Tensor:
    """MLM logits of each option at the mask (mean over its pieces). Shape: (batch, 5)."""
    firsts = [q.question.replace(PLACEHOLDER, tokenizer.mask_token, 1) for q in questions]
    batch = tokenizer(
        firsts,
        [q.article for q in questions],
        truncation="only_second",
        max_length=max_length,
        padding="longest",
        return_tensors="pt",
    ).to(device)
    logits = model(**batch).logits  # Shape: (batch, seq_len, vocab)
    position = (batch["input_ids"] == tokenizer.mask_token_id).int().argmax(dim=1)  # Shape: (batch,)
    at_mask = logits[torch.arange(len(questions), device=device), position]  # Shape: (batch, vocab)
    rows = []
    for i, q in enumerate(questions):
        pieces = tokenizer(list(q.options), add_special_tokens=False)["input_ids"]
        rows.append(
            torch.stack(
                [
                    at_mask[i, torch.tensor(p or [tokenizer.unk_token_id], device=device)].mean()
                    for p in pieces
                ]
            )
        )
    return torch.stack(rows)  # Shape: (batch, 5)


def adapt_encoder(
    *,
    texts: Sequence[str],
    output_dir: Path,
    seconds: float,
    model_dir: Path | None = None,
    lr: float = 1e-4,
    batch_size: int = 16,
    seed: int = 13,
    device: str | None = None,
    progress: bool = True,
) -> dict:
    """Stage 1: masked-language modelling on ``texts`` for ``seconds`` (summed over resumed runs).

    Saves an ``AutoModelForMaskedLM`` directory that ``train_encoder_mlm(model_dir=...)`` starts from.
    """
    if not texts or seconds <= 0:
        raise ValueError("adapt_encoder: needs texts and seconds > 0")
    identity = {
        "texts": len(texts),
        "texts_sha256": texts_sha256(texts),
        "seconds": seconds,
        "lr": lr,
        "batch_size": batch_size,
        "seed": seed,
    }
    run = start_masked_lm_run(
        output_dir=output_dir,
        model_dir=model_dir,
        settings=identity,
        device=device,
        kind=ADAPTED_VERSION,
    )
    if run.finished is not None:
        return run.finished
    chunks = adaptation_chunks(tokenizer=run.tokenizer, texts=texts)

    def step_loss(step: int) -> torch.Tensor:
        rows = step_batch(chunks, step=step, batch_size=batch_size, tag=f"{seed}:adapt")
        generator = torch.Generator().manual_seed(seed * 1_000_003 + step)  # resumable masking
        batch = mask_chunks(tokenizer=run.tokenizer, chunks=rows, generator=generator)
        return run.model(**{k: v.to(run.device) for k, v in batch.items()}).loss

    run.train(
        step_loss=step_loss,
        total_steps=None,
        budget_s=seconds,
        clip=False,
        desc="adapt (MLM)",
        progress=progress,
    )
    metrics = run.step_metrics(per_epoch=math.ceil(len(chunks) / batch_size), seconds_key="seconds")
    return run.finish({**metrics, "chunks": len(chunks)})


def train_encoder_mlm(
    *,
    train: Sequence[Question],
    dev: Sequence[Question] | None,
    output_dir: Path,
    model_dir: Path | None = None,
    settings: FineTuneSettings = MLM_SETTINGS,
    device: str | None = None,
    progress: bool = True,
) -> dict:
    """Stage 2: fine-tune the five options' masked-word scores (cross-entropy); save; return metrics.

    ``model_dir``: the encoder, or a directory saved by ``adapt_encoder``. ``settings``: see
    ``FineTuneSettings``.
    """
    check_labelled(name="train_encoder_mlm", train=train, dev=dev)
    run = start_masked_lm_run(
        output_dir=output_dir,
        model_dir=model_dir,
        settings=settings.identity(train=train, dev=dev),
        device=device,
        kind=ENCODER_MLM_VERSION,
    )
    if run.finished is not None:
        return run.finished
    per_epoch = math.ceil(len(train) / settings.batch_size)

    def step_loss(step: int) -> torch.Tensor:
        chunk = step_batch(train, step=step, batch_size=settings.batch_size, tag=f"{settings.seed}:train")
        scores = option_scores(
            model=run.model,
            tokenizer=run.tokenizer,
            questions=chunk,
            max_length=settings.max_length,
            device=run.device,
        )
        labels = torch.tensor([q.label for q in chunk], device=run.device)  # Shape: (batch,)
        return torch.nn.functional.cross_entropy(scores, labels)

    run.train(
        step_loss=step_loss,
        total_steps=max(1, math.ceil(settings.epochs * per_epoch)),
        budget_s=settings.time_budget_s,
        clip=True,
        desc="train (options)",
        progress=progress,
    )
    metrics = run.step_metrics(per_epoch=per_epoch, seconds_key="train_seconds")
    evaluate = partial(_probabilities, max_length=settings.max_length, progress=progress)
    return run.finish(metrics, dev=dev, probabilities=evaluate)


def _probabilities(
    *, model, tokenizer, questions, max_length, device, batch_size=16, progress=False
) -> torch.Tensor:
    from tqdm import tqdm

    model.eval()
    rows = []
    with torch.no_grad():
        for start in tqdm(range(0, len(questions), batch_size), desc="predict", disable=not progress):
            chunk = questions[start : start + batch_size]
            scores = option_scores(
                model=model, tokenizer=tokenizer, questions=chunk, max_length=max_length, device=device
            )
            rows.append(torch.softmax(scores, dim=-1).cpu())
    return torch.cat(rows) if rows else torch.zeros(0, NUM_OPTIONS)


def is_encoder_mlm(model_dir: Path) -> bool:
    """Whether ``model_dir`` holds a model saved by ``train_encoder_mlm``."""
    manifest = Path(model_dir) / MANIFEST
    return (
        manifest.is_file()
        and json.loads(manifest.read_text(encoding="utf-8")).get("baseline") == ENCODER_MLM_VERSION
    )


def encoder_mlm_probabilities(
    *, model_dir: Path, questions: Sequence[Question], device: str | None = None
) -> torch.Tensor:
    """Option probabilities from a saved masked-word model. Shape: (num_questions, 5)."""
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    settings = json.loads((Path(model_dir) / MANIFEST).read_text(encoding="utf-8"))["settings"]
    device = pick_device(device)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForMaskedLM.from_pretrained(model_dir).to(device)
    return _probabilities(
        model=model,
        tokenizer=tokenizer,
        questions=list(questions),
        max_length=settings["max_length"],
        device=device,
    )
