"""One resumable fine-tune loop for the encoder readers (baselines/encoder.py, both stages of encoder_mlm.py).

A run lives in ``output_dir``: ``checkpoint.pt`` (model, optimiser, scheduler, RNG, step, elapsed time,
losses) written every few minutes, on interruption and before the final evaluation, then the saved
model, tokenizer and ``manifest.json`` (baseline, versions, device, settings, metrics). The settings
identify the run: the same call resumes it, or returns a finished run's metrics; other settings
pointed at the same directory are refused.
"""

import json
import random
import time
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from pathlib import Path

import torch

from baselines.device import pick_device
from recam.metrics import SCORER_VERSION, accuracy
from recam.records import Question

MANIFEST = "manifest.json"
CHECKPOINT = "checkpoint.pt"
CHECKPOINT_EVERY_S = 300.0
LOSS_WINDOW = 20  # steps averaged in the progress bar and the final loss


def check_labelled(*, name: str, train: Sequence[Question], dev: Sequence[Question] | None) -> None:
    """Refuse an empty training set or an unlabelled question (naming the first)."""
    if not train:
        raise ValueError(f"{name}: the training set is empty")
    unlabelled = [q.id for q in [*train, *(dev or [])] if q.label is None]
    if unlabelled:
        raise ValueError(f"{name}: {len(unlabelled)} question(s) have no label (first id {unlabelled[0]})")


def base_model_dir(model_dir: Path | None) -> Path:
    """The encoder to start from: ``model_dir``, or the packaged one (setting ENCODER_MODEL)."""
    from lexicon.resources import encoder_model_dir

    return Path(model_dir) if model_dir is not None else encoder_model_dir()


def seed_everything(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)


def save_checkpoint(path: Path, state: dict) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(state, tmp)
    tmp.replace(path)  # atomic: an interrupted save never leaves a half-written checkpoint


def versions() -> dict[str, str]:
    import transformers

    return {"torch": torch.__version__, "transformers": transformers.__version__}


def dev_metrics(*, probabilities: torch.Tensor, dev: Sequence[Question]) -> dict:
    """Dev accuracy of the argmax option (the one scorer) and the scorer's version."""
    predictions = probabilities.argmax(dim=-1).tolist()
    score = accuracy(predictions=predictions, references=[q.label for q in dev])["accuracy"]
    return {"dev_accuracy": score, "scorer_version": SCORER_VERSION}


RESTART_ADVICE = "delete it to train this run from the start, or train into a new --output"
CHECKPOINT_KEYS = {"settings", "model", "optimizer"}
STATE_KEYS = ("step", "elapsed", "losses")


def read_checkpoint(path: Path, *, device: str) -> dict:
    """The checkpoint at ``path`` in the current layout, or a ValueError naming the file and what to do.

    A half-finished run of the code before the shared loop still resumes: the encoder's checkpoints kept
    step, elapsed and losses at the top level (here moved into ``state``); the masked-LM runs' kept no
    scheduler or RNG state (they have no schedule, and their masks are seeded per step).
    """
    try:
        saved = torch.load(path, map_location=device, weights_only=False)
    except Exception as exc:  # truncated, or not a torch file: torch raises several unrelated types
        raise ValueError(
            f"{path}: not a readable checkpoint ({type(exc).__name__}); {RESTART_ADVICE}"
        ) from None
    if not isinstance(saved, dict) or not saved.keys() >= CHECKPOINT_KEYS:
        raise ValueError(f"{path}: not a checkpoint of these trainers; {RESTART_ADVICE}")
    if "state" not in saved and saved.keys() >= set(STATE_KEYS):  # the old encoder layout
        saved = {**saved, "state": {key: saved[key] for key in STATE_KEYS}}
    if not isinstance(saved.get("state"), dict) or not saved["state"].keys() >= set(STATE_KEYS):
        raise ValueError(f"{path}: a checkpoint with no training state; {RESTART_ADVICE}")
    return saved


Loader = Callable[[Path, str], tuple]  # (model directory, device) -> (tokenizer, model)


class FineTuneRun:
    """A resumable training run in ``output_dir``: model, optimiser, state; the loop; checkpoint; manifest."""

    @classmethod
    def start(
        cls,
        *,
        output_dir: Path,
        base_dir: Path,
        settings: dict,
        device: str | None,
        kind: str,
        load: Loader,
        schedule: Callable[[torch.optim.Optimizer], object] | None = None,
    ) -> "FineTuneRun":
        """Open the run: ``finished`` holds the metrics of a finished identical run, else it is ready to train.

        ``settings``: what identifies the run (with the inputs' hashes); its ``seed`` and ``lr`` are used.
        """
        run = cls()
        run.output_dir = Path(output_dir)
        run.output_dir.mkdir(parents=True, exist_ok=True)
        run.kind, run.settings, run.finished = kind, settings, None
        run.device = pick_device(device)
        manifest_path = run.output_dir / MANIFEST
        if manifest_path.is_file():
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            if manifest.get("settings") == settings:
                run.finished = manifest["metrics"]  # this exact run is already finished
                return run
            raise ValueError(
                f"{manifest_path}: holds a finished run with other inputs or settings; use a new --output"
            )
        seed_everything(settings["seed"])
        run.tokenizer, run.model = load(base_dir, run.device)
        run.optimizer = torch.optim.AdamW(run.model.parameters(), lr=settings["lr"], weight_decay=0.01)
        run.scheduler = schedule(run.optimizer) if schedule is not None else None
        run.state = {"step": 0, "elapsed": 0.0, "losses": []}
        run.checkpoint_path = run.output_dir / CHECKPOINT
        if run.checkpoint_path.is_file():
            run._resume()
        run.model.train()
        run.last_save = time.monotonic()
        return run

    def _resume(self) -> None:
        saved = read_checkpoint(self.checkpoint_path, device=self.device)
        if saved["settings"] != self.settings:
            raise ValueError(
                f"{self.checkpoint_path}: a checkpoint of other inputs or settings; use a new --output"
            )
        if self.scheduler is not None and saved.get("scheduler") is None:
            raise ValueError(f"{self.checkpoint_path}: holds no learning-rate schedule; {RESTART_ADVICE}")
        try:
            self.model.load_state_dict(saved["model"])
            self.optimizer.load_state_dict(saved["optimizer"])
            if self.scheduler is not None:
                self.scheduler.load_state_dict(saved["scheduler"])
        except (RuntimeError, ValueError, KeyError) as exc:  # torch's messages for mismatched tensors
            raise ValueError(
                f"{self.checkpoint_path}: does not fit this model ({type(exc).__name__}); {RESTART_ADVICE}"
            ) from None
        if saved.get("rng") is not None:  # the old masked-LM layout kept none: its masks are seeded per step
            torch.set_rng_state(saved["rng"].cpu())  # map_location put it on the run's device
        self.state = saved["state"]

    def train(
        self,
        *,
        step_loss: Callable[[int], torch.Tensor],
        total_steps: int | None,
        budget_s: float | None,
        clip: bool,
        desc: str,
        progress: bool,
    ) -> bool:
        """Run ``step_loss(step)`` steps until ``total_steps`` or the time budget; True if the budget stopped it.

        Interrupted (Ctrl-C, an error), it checkpoints and re-raises: the same call resumes at that step.
        """
        from tqdm import tqdm

        state = self.state
        bar = tqdm(total=total_steps, initial=state["step"], desc=desc, unit="step", disable=not progress)
        started = time.monotonic() - state["elapsed"]
        stopped_by_budget = False
        with self._checkpointing():
            while total_steps is None or state["step"] < total_steps:
                if budget_s is not None and state["elapsed"] >= budget_s:
                    stopped_by_budget = True
                    break
                self._update(step_loss(state["step"]), clip=clip)
                state["elapsed"] = time.monotonic() - started
                bar.update(1)
                bar.set_postfix(loss=f"{self.recent_loss():.3f}")
        bar.close()
        return stopped_by_budget

    def recent_loss(self) -> float | None:
        recent = self.state["losses"][-LOSS_WINDOW:]
        return sum(recent) / len(recent) if recent else None

    def _update(self, loss: torch.Tensor, *, clip: bool) -> None:
        loss.backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        if self.scheduler is not None:
            self.scheduler.step()
        self.optimizer.zero_grad()
        self.state["step"] += 1
        self.state["losses"].append(round(loss.item(), 5))
        if time.monotonic() - self.last_save >= CHECKPOINT_EVERY_S:
            self._save()

    def _save(self) -> None:
        save_checkpoint(
            self.checkpoint_path,
            {
                "settings": self.settings,
                "model": self.model.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "scheduler": self.scheduler.state_dict() if self.scheduler is not None else None,
                "rng": torch.get_rng_state(),
                "state": self.state,
            },
        )
        self.last_save = time.monotonic()

    @contextmanager
    def _checkpointing(self):
        try:
            yield
        except BaseException:
            self._save()  # Ctrl-C or an error: the same call resumes from the last finished step
            raise
        self._save()

    def step_metrics(self, *, per_epoch: int, seconds_key: str) -> dict:
        """Steps, epochs and seconds trained, and every step's loss (the manifests' names for them)."""
        state = self.state
        return {
            "steps": state["step"],
            "epochs_done": round(state["step"] / per_epoch, 3),
            seconds_key: round(state["elapsed"], 1),
            "losses": state["losses"],
        }

    def finish(
        self,
        metrics: dict,
        *,
        dev: Sequence[Question] | None = None,
        probabilities: Callable[..., torch.Tensor] | None = None,
    ) -> dict:
        """Evaluate on ``dev``, save the model, tokenizer and manifest; the checkpoint goes (the saved
        model supersedes it). ``probabilities(model=, tokenizer=, questions=, device=)``: the reader's
        option probabilities, shape (num_questions, 5)."""
        if dev and probabilities is not None:
            option_probabilities = probabilities(
                model=self.model, tokenizer=self.tokenizer, questions=list(dev), device=self.device
            )
            metrics = {**metrics, **dev_metrics(probabilities=option_probabilities, dev=dev)}
        self.model.save_pretrained(self.output_dir)
        self.tokenizer.save_pretrained(self.output_dir)
        manifest = {
            "baseline": self.kind,
            "versions": versions(),
            "device": self.device,
            "settings": self.settings,
            "metrics": metrics,
        }
        (self.output_dir / MANIFEST).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        self.checkpoint_path.unlink()
        return metrics
