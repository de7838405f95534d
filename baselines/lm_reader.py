"""The LM reader: a pretrained causal LM scores the five filled questions (baselines.lm_scorer).

Zero-shot: a model directory holding only ``lm.json`` (the LM file, its sha256, the scoring
settings, versions). Fine-tuned: LoRA adapters (``peft``) on the attention projections, trained with
a listwise cross-entropy over the five option scores of each question, plus ``adapter/``. Training
keeps a checkpoint (adapter + optimiser + position) under ``checkpoint/`` and resumes from it, stops
at a time budget, and shows tqdm progress.
"""

import json
import math
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path

import numpy as np
import torch

from baselines import lm_scorer
from recam.records import Question

MANIFEST = "lm.json"
FORMAT = "recam-lm-reader/1"


@dataclass(frozen=True)
class LMSettings:
    article_tokens: int = 400
    reduction: str = "sum"
    with_article: bool = True
    batch_size: int = 8


@dataclass(frozen=True)
class FineTuneConfig:
    epochs: float = 1.0
    lr: float = 2e-4
    batch_size: int = 4
    lora_rank: int = 8
    # LoRA on the top ``lora_layers`` decoder layers; None: the top quarter, rounded up (8 of
    # SmolLM2's 30); 0: every layer. Frozen lower layers build no autograd graph, so backward
    # costs only the adapted layers (the affordable CPU path).
    lora_layers: int | None = None
    time_budget_s: float | None = 1500.0
    checkpoint_every: int = 20
    seed: int = 13


def is_lm_reader(model_dir: Path) -> bool:
    return (Path(model_dir) / MANIFEST).is_file()


def _versions() -> dict[str, str]:
    names = ("torch", "transformers", "gguf", "peft", "numpy")
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def _data(questions: Sequence[Question]) -> dict:
    return {
        "articles": [q.article for q in questions],
        "questions": [q.question for q in questions],
        "options": [q.options for q in questions],
    }


def _write_manifest(output_dir: Path, lm: lm_scorer.LoadedLM, model_path: str | None, **fields) -> dict:
    manifest = {
        "format": FORMAT,
        "model_path": str(model_path) if model_path else None,  # None: $LM_MODEL or the packaged GGUF
        "model_name": lm.name,
        "model_sha256": lm.sha256,
        "versions": _versions(),
        **fields,
    }
    output_dir.mkdir(parents=True, exist_ok=True)
    (output_dir / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def evaluate(lm, *, questions: Sequence[Question], settings: LMSettings, progress: bool = False) -> float:
    """Accuracy (0-1) of the LM reader on labelled questions."""
    scores = lm_scorer.option_logprobs(lm, **_data(questions), **asdict(settings), progress=progress)
    return float((lm_scorer.choose(scores) == np.array([q.label for q in questions])).mean())


def write_zero_shot(
    *, output_dir: Path, settings: LMSettings, model_path: str | None = None, device: str | None = None
) -> dict:
    """A zero-shot LM reader: nothing trained, the manifest names the LM and the scoring settings."""
    lm = lm_scorer.load_causal_lm(model_path=model_path, device=device)
    return _write_manifest(Path(output_dir), lm, model_path, settings=asdict(settings), adapter=None)


def lora_layer_indices(*, num_layers: int, lora_layers: int | None) -> list[int]:
    """The decoder layers that get adapters: the top ``lora_layers`` (None: the top quarter, rounded up)."""
    if lora_layers is not None and lora_layers < 0:
        raise ValueError(f"lora_layers must be >= 0 (0 = every layer), not {lora_layers}")
    count = math.ceil(num_layers / 4) if lora_layers is None else lora_layers or num_layers
    return list(range(max(0, num_layers - count), num_layers))


def _add_lora(model, *, rank: int, layers: list[int]):
    from peft import LoraConfig, get_peft_model

    config = LoraConfig(
        r=rank, lora_alpha=2 * rank, lora_dropout=0.0, target_modules=["q_proj", "v_proj"],
        layers_to_transform=layers,
    )  # fmt: skip
    return get_peft_model(model, config)  # injects the adapters into ``model`` in place


def _listwise_loss(lm, batch: Sequence[Question], settings: LMSettings) -> torch.Tensor:
    data = _data(batch)
    contexts, conts = lm_scorer.encode_all(
        lm.tokenizer, **data, article_tokens=settings.article_tokens, with_article=settings.with_article
    )
    sums, lengths = lm_scorer.score_batch(lm.model, contexts, conts, pad_id=lm_scorer.pad_id(lm.tokenizer))
    scores = sums if settings.reduction == "sum" else sums / lengths
    targets = torch.tensor([q.label for q in batch], device=scores.device)
    return torch.nn.functional.cross_entropy(scores, targets)


def _order(n: int, *, seed: int, epochs: float) -> list[int]:
    rng = random.Random(seed)
    order: list[int] = []
    for _ in range(math.ceil(epochs)):
        epoch = list(range(n))
        rng.shuffle(epoch)
        order += epoch
    return order[: round(epochs * n)]


def fine_tune(
    *,
    train: Sequence[Question],
    dev: Sequence[Question] | None,
    output_dir: Path,
    settings: LMSettings,
    config: FineTuneConfig,
    model_path: str | None = None,
    device: str | None = None,
    progress: bool = True,
) -> dict:
    """LoRA fine-tuning, listwise cross-entropy over the option scores; resumes from output_dir/checkpoint."""
    if not train:
        raise ValueError("no training questions")
    output_dir = Path(output_dir)
    torch.manual_seed(config.seed)
    lm = lm_scorer.load_causal_lm(model_path=model_path, device=device)
    layers = lora_layer_indices(num_layers=lm.model.config.num_hidden_layers, lora_layers=config.lora_layers)
    peft_model = _add_lora(lm.model, rank=config.lora_rank, layers=layers)
    optimiser = torch.optim.AdamW([p for p in lm.model.parameters() if p.requires_grad], lr=config.lr)
    order = _order(len(train), seed=config.seed, epochs=config.epochs)
    steps = [order[i : i + config.batch_size] for i in range(0, len(order), config.batch_size)]
    state = _resume(output_dir / "checkpoint", peft_model, optimiser)
    losses, elapsed = state.get("losses", []), state.get("seconds", 0.0)
    start, clock = state.get("step", 0), time.monotonic()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(steps), initial=start, desc="LM fine-tune", unit="step")
    lm.model.train()
    step = start
    for step in range(start, len(steps)):
        if config.time_budget_s is not None and elapsed + time.monotonic() - clock > config.time_budget_s:
            break
        loss = _listwise_loss(lm, [train[i] for i in steps[step]], settings)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        losses.append(round(loss.item(), 4))
        if bar is not None:
            bar.update(1)
            bar.set_postfix(loss=f"{np.mean(losses[-20:]):.3f}")
        if (step + 1) % config.checkpoint_every == 0:
            _checkpoint(
                output_dir / "checkpoint",
                peft_model,
                optimiser,
                step + 1,
                losses,
                elapsed + time.monotonic() - clock,
            )
    else:
        step = len(steps)
    run_seconds = time.monotonic() - clock  # this run only (a resumed run adds to ``elapsed``)
    seconds = elapsed + run_seconds
    _checkpoint(output_dir / "checkpoint", peft_model, optimiser, step, losses, seconds)
    lm.model.eval()
    peft_model.save_pretrained(output_dir / "adapter")
    metrics = {
        "steps_done": step,
        "steps_planned": len(steps),
        "train_questions": len(train),
        "lora_layers": [layers[0], layers[-1]],
        "seconds_per_question": _per_question(run_seconds, steps[start:step]),
        "train_seconds": round(seconds, 1),
        "stopped_by_budget": step < len(steps),
        "final_loss_mean20": round(float(np.mean(losses[-20:])), 4) if losses else None,
    }
    if dev:
        metrics["dev_accuracy"] = evaluate(lm, questions=dev, settings=settings, progress=progress)
    _write_manifest(
        output_dir, lm, model_path, settings=asdict(settings), adapter="adapter", fine_tune=asdict(config),
        metrics=metrics, losses=losses,
    )  # fmt: skip
    return metrics


def _per_question(seconds: float, steps: Sequence[Sequence[int]]) -> float | None:
    """Training seconds per question of this run (forward + backward + optimiser step)."""
    done = sum(len(step) for step in steps)
    return round(seconds / done, 3) if done else None


def _checkpoint(directory: Path, peft_model, optimiser, step: int, losses: list, seconds: float) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    peft_model.save_pretrained(directory / "adapter")
    tmp = directory / "state.pt.tmp"
    torch.save({"optimiser": optimiser.state_dict(), "step": step, "losses": losses, "seconds": seconds}, tmp)
    tmp.replace(directory / "state.pt")


def _resume(directory: Path, peft_model, optimiser) -> dict:
    if not (directory / "state.pt").is_file():
        return {}
    from peft import set_peft_model_state_dict
    from safetensors.torch import load_file

    set_peft_model_state_dict(peft_model, load_file(str(directory / "adapter" / "adapter_model.safetensors")))
    state = torch.load(directory / "state.pt", weights_only=False)
    optimiser.load_state_dict(state["optimiser"])
    return state


def load_lm_reader(model_dir: Path, *, device: str | None = None) -> tuple[lm_scorer.LoadedLM, LMSettings]:
    """The LM (with its adapter merged, if fine-tuned) and the scoring settings of a saved LM reader."""
    model_dir = Path(model_dir)
    manifest = json.loads((model_dir / MANIFEST).read_text(encoding="utf-8"))
    if manifest.get("format") != FORMAT:
        raise ValueError(f"{model_dir / MANIFEST}: not an LM reader manifest ({manifest.get('format')!r})")
    lm = lm_scorer.load_causal_lm(model_path=manifest.get("model_path"), device=device)
    if lm.sha256 != manifest["model_sha256"]:
        raise ValueError(f"{model_dir}: the LM {lm.name} is not the one it was made with (sha256 differs)")
    if manifest.get("adapter"):
        from peft import PeftModel

        merged = PeftModel.from_pretrained(lm.model, str(model_dir / manifest["adapter"])).merge_and_unload()
        lm = lm_scorer.LoadedLM(merged.eval(), lm.tokenizer, lm.device, lm.name, lm.sha256)
    return lm, LMSettings(**manifest["settings"])


def lm_probabilities(
    *, model_dir: Path, questions: Sequence[Question], device: str | None = None, progress: bool = True
) -> torch.Tensor:
    """Softmax over each question's option scores (num_questions, num_options); tqdm on stderr."""
    lm, settings = load_lm_reader(model_dir, device=device)
    scores = lm_scorer.option_logprobs(lm, **_data(questions), **asdict(settings), progress=progress)
    return torch.softmax(torch.from_numpy(scores), dim=-1)
