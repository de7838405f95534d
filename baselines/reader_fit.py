"""The readers' training loop: seeded shuffles, a held-out slice that picks the best epoch, and a
per-epoch checkpoint (``last.pt``) that a rerun with the same configuration and data resumes from.

``baselines.training.train_reader`` builds the reader and calls ``fit``; both names still import from
baselines.training.
"""

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch
from torch import nn

from baselines.data import ClozeExample, EncodedExample, examples_sha256
from baselines.trained_reader import FORMAT_VERSION, TrainedReader
from recam.metrics import accuracy

MIN_EXAMPLES_FOR_HELD_OUT = 20  # below this every example trains, and the last epoch is kept


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


def _held_out(encoded: list[EncodedExample], *, seed: int, fraction: float) -> tuple[list, list]:
    """(held-out slice, training items): a seeded permutation, so a resumed run splits the same way."""
    order = np.random.default_rng(seed).permutation(len(encoded))
    n_valid = int(len(encoded) * fraction) if len(encoded) >= MIN_EXAMPLES_FOR_HELD_OUT else 0
    return [encoded[i] for i in order[:n_valid]], [encoded[i] for i in order[n_valid:]]


def _load_last(last: Path | None, *, fingerprint: str, module, optimizer, device: str) -> dict:
    """The loop state of ``last.pt`` when it is this run's (its weights and optimiser loaded), else fresh."""
    if last is not None and last.is_file():
        saved = torch.load(last, map_location=device, weights_only=False)
        if saved.get("fingerprint") == fingerprint:
            module.load_state_dict(saved["model"])
            optimizer.load_state_dict(saved["optimizer"])
            return saved["state"]
    return {"epoch": 0, "history": [], "best_score": -1.0, "best_state": None}


def _save_last(last: Path, *, fingerprint: str, module, optimizer, state: dict) -> None:
    last.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "fingerprint": fingerprint,
        "model": module.state_dict(),
        "optimizer": optimizer.state_dict(),
        "state": state,
    }
    torch.save(payload, last.with_suffix(".tmp"))
    last.with_suffix(".tmp").replace(last)  # atomic: an interrupted save never leaves half a checkpoint


def _train_epoch(
    *, reader: TrainedReader, items, optimizer, epoch: int, mode: str, device: str, progress: bool
) -> float:
    """One epoch over ``items`` in a shuffle seeded by (seed, epoch); the mean loss."""
    from tqdm import tqdm

    config, module = reader.config, reader.module
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
    return float(np.mean(losses))


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
    valid, items = _held_out(encoded, seed=config.seed, fraction=config.valid_fraction)
    dev_items = [e for e in reader.encode(dev, mode=mode, grow=True) if e.target is not None] if dev else []
    module = reader.module.to(device)
    optimizer = torch.optim.Adam([p for p in module.parameters() if p.requires_grad], lr=config.lr)
    fingerprint = _fingerprint(reader, mode=mode, dev=dev)
    last = Path(checkpoint_dir) / "last.pt" if checkpoint_dir else None
    state = _load_last(last, fingerprint=fingerprint, module=module, optimizer=optimizer, device=device)
    started = time.monotonic()
    for epoch in range(state["epoch"], config.epochs):
        loss = _train_epoch(
            reader=reader,
            items=items,
            optimizer=optimizer,
            epoch=epoch,
            mode=mode,
            device=device,
            progress=progress,
        )
        record = {"epoch": epoch + 1, "loss": loss, "valid": _top1(reader, valid, mode=mode)}
        record["dev"] = _top1(reader, dev_items, mode=mode)
        state["history"].append(record)
        score = record["valid"] if record["valid"] is not None else float(epoch)
        if score > state["best_score"]:
            state["best_score"], state["best_epoch"] = score, epoch + 1
            state["best_state"] = {k: v.detach().cpu().clone() for k, v in module.state_dict().items()}
        state["epoch"] = epoch + 1
        if last is not None:
            _save_last(last, fingerprint=fingerprint, module=module, optimizer=optimizer, state=state)
        if progress:
            tqdm.write(f"{config.reader} epoch {epoch + 1}: {json.dumps(record)}")
        if config.time_budget_s is not None and time.monotonic() - started > config.time_budget_s:
            break
    if state["best_state"] is not None:
        module.load_state_dict(state["best_state"])
    reader.info.update(
        {"history": state["history"], "best_epoch": state.get("best_epoch"), "valid_examples": len(valid)}
    )
