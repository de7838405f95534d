"""A resumable fine-tuning run of an ``AutoModelForMaskedLM`` (both stages of baselines/encoder_mlm.py).

The run lives in ``output_dir``: ``checkpoint.pt`` (model, optimiser, step, elapsed time, losses)
written every few minutes and on interruption, then the saved model, tokenizer and ``manifest.json``.
The settings identify the run: the same call resumes it, or returns a finished run's metrics; other
settings pointed at the same directory are refused.
"""

import hashlib
import json
import time
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path

import torch

from baselines.device import pick_device
from baselines.encoder import (
    CHECKPOINT,
    CHECKPOINT_EVERY_S,
    MANIFEST,
    _save_checkpoint,
    _seed_everything,
    _versions,
)


class MaskedLMRun:
    """A resumable training run in ``output_dir``: model, optimiser, state; checkpoint; manifest."""

    @classmethod
    def start(cls, *, output_dir, model_dir, settings, device, seed, kind, lr) -> "MaskedLMRun":
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        from lexicon.resources import encoder_model_dir

        run = cls()
        run.output_dir = Path(output_dir)
        run.output_dir.mkdir(parents=True, exist_ok=True)
        base_dir = Path(model_dir) if model_dir is not None else encoder_model_dir()
        run.kind = kind
        run.settings = {**settings, "base_model": str(base_dir), "base_manifest": _manifest_of(base_dir)}
        run.finished = None
        manifest_path = run.output_dir / MANIFEST
        if manifest_path.is_file():
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            if manifest.get("settings") == run.settings:
                run.finished = manifest["metrics"]  # this exact run is already finished
                return run
            raise ValueError(
                f"{manifest_path}: holds a finished run with other inputs or settings; use a new --output"
            )
        _seed_everything(seed)
        run.device = pick_device(device)
        run.tokenizer = AutoTokenizer.from_pretrained(base_dir)
        run.model = AutoModelForMaskedLM.from_pretrained(base_dir).to(run.device)
        run.model.train()
        run.optimizer = torch.optim.AdamW(run.model.parameters(), lr=lr, weight_decay=0.01)
        run.state = {"step": 0, "elapsed": 0.0, "losses": []}
        run.checkpoint_path = run.output_dir / CHECKPOINT
        if run.checkpoint_path.is_file():
            saved = torch.load(run.checkpoint_path, map_location=run.device, weights_only=False)
            if saved["settings"] != run.settings:
                raise ValueError(
                    f"{run.checkpoint_path}: a checkpoint of other inputs or settings; use a new --output"
                )
            run.model.load_state_dict(saved["model"])
            run.optimizer.load_state_dict(saved["optimizer"])
            run.state = saved["state"]
        run.last_save = time.monotonic()
        return run

    def update(self, loss: torch.Tensor, *, clip: bool) -> None:
        loss.backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        self.optimizer.zero_grad()
        self.state["step"] += 1
        self.state["losses"].append(round(loss.item(), 5))
        if time.monotonic() - self.last_save >= CHECKPOINT_EVERY_S:
            self.save_checkpoint()

    def save_checkpoint(self) -> None:
        _save_checkpoint(
            self.checkpoint_path,
            {
                "settings": self.settings,
                "model": self.model.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "state": self.state,
            },
        )
        self.last_save = time.monotonic()

    @contextmanager
    def checkpointing(self):
        try:
            yield
        except BaseException:
            self.save_checkpoint()  # Ctrl-C or an error: the same call resumes from here
            raise
        self.save_checkpoint()

    def finish(self, metrics: dict) -> dict:
        self.model.save_pretrained(self.output_dir)
        self.tokenizer.save_pretrained(self.output_dir)
        manifest = {
            "baseline": self.kind,
            "versions": _versions(),
            "device": self.device,
            "settings": self.settings,
            "metrics": metrics,
        }
        (self.output_dir / MANIFEST).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        self.checkpoint_path.unlink()
        return metrics


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
