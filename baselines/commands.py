"""What the ``python -m baselines`` commands do, as plain functions (the CLI in baselines.cli is thin).

Errors a user can cause raise ValueError naming the file (the CLI turns them into clean messages).
"""

import json
from dataclasses import asdict, replace
from pathlib import Path

from baselines.finetune_settings import FineTuneSettings
from recam.records import Question, dedupe_against, read_questions

# Per-reader training defaults; the CPU defaults were measured to complete on a shared 2-core machine
# (docs/reference/encoder-baseline.md, docs/reference/baselines.md).
ENCODER_DEFAULTS = {
    "encoder": FineTuneSettings(epochs=1.0, max_length=96, batch_size=8, lr=1e-4, time_budget_s=1500.0),
    "encoder-mlm": FineTuneSettings(epochs=3.0, max_length=256, batch_size=8, lr=3e-5, time_budget_s=900.0),
}
READER_DEFAULTS = {"epochs": 8, "max_length": 400, "batch_size": 32, "lr": 1e-3, "time_budget_s": None}


def read_files(paths, *, labels: bool) -> list[Question]:
    """The questions of several jsonl files, in order."""
    questions: list[Question] = []
    for path in paths:
        questions += read_questions(path, require_labels=labels)
    return questions


def training_questions(train_files, exclude_files) -> tuple[list[Question], int]:
    """The labelled training questions minus those of ``exclude_files``, and the count before."""
    questions = read_files(train_files, labels=True)
    before = len(questions)
    if exclude_files:
        questions = dedupe_against(questions, exclude=read_files(exclude_files, labels=False))
    return questions, before


def _with_defaults(given: dict, defaults: dict) -> dict:
    return {key: given[key] if given.get(key) is not None else value for key, value in defaults.items()}


def train_baseline(*, reader: str, train: list[Question], dev: list[Question] | None, output: Path,
                   settings: dict, train_files, progress: bool) -> dict:  # fmt: skip
    """Train one encoder or reader baseline into ``output``; its metrics. ``settings``: the CLI options."""
    if reader in ENCODER_DEFAULTS:
        if reader == "encoder":
            from baselines.encoder import train_encoder as trainer
        else:
            from baselines.encoder_mlm import train_encoder_mlm as trainer
        defaults = ENCODER_DEFAULTS[reader]
        given = {key: settings[key] for key in asdict(defaults) if settings.get(key) is not None}
        metrics = trainer(
            train=train, dev=dev, output_dir=output, model_dir=settings["encoder_model"],
            settings=replace(defaults, **given), device=settings["device"], progress=progress,
        )  # fmt: skip
        return {k: v for k, v in metrics.items() if k != "losses"}
    from baselines.data import from_question
    from baselines.training import ReaderConfig, train_reader
    from lexicon.vectors import load_vectors

    values = _with_defaults(settings, READER_DEFAULTS)
    config = ReaderConfig(
        reader=reader, hidden=settings["hidden"], epochs=int(values["epochs"]), batch_size=values["batch_size"],
        lr=values["lr"], max_passage_tokens=values["max_length"], time_budget_s=values["time_budget_s"],
        seed=settings["seed"], center_query=settings["center_query"],
    )  # fmt: skip
    trained = train_reader(
        config=config, train=[from_question(q) for q in train], vectors=load_vectors(settings["vectors_path"]),
        dev=[from_question(q) for q in dev] if dev else None, device=settings["device"],
        checkpoint_dir=output / "checkpoints", progress=progress, vectors_path=settings["vectors_path"],
    )  # fmt: skip
    trained.info["train_files"] = [str(p) for p in train_files]
    trained.save(output)
    return {k: trained.info[k] for k in ("best_epoch", "history", "train_seconds")}


def adaptation_texts(paths: tuple[Path, ...], *, exclude: set[str]) -> list[str]:
    """Distinct texts of jsonl files (``document`` or ``article``), minus ``exclude``, in file order."""
    texts: list[str] = []
    seen = set(exclude)
    for path in paths:
        with path.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path}:{number}: not JSON ({exc.msg})") from None
                text = record.get("document") or record.get("article") if isinstance(record, dict) else None
                if not isinstance(text, str) or not text.strip():
                    raise ValueError(f"{path}:{number}: no 'document' or 'article' text")
                if text not in seen:
                    seen.add(text)
                    texts.append(text)
    return texts


def option_probabilities(
    *, model: Path, questions: list[Question], device: str | None = None, last_epoch: bool = False
):
    """Softmax over each question's five options from a saved baseline. Shape: (num_questions, 5)."""
    from baselines.encoder_mlm import encoder_mlm_probabilities, is_encoder_mlm
    from baselines.lm_reader import is_lm_reader, lm_probabilities

    if is_lm_reader(model):
        return lm_probabilities(model_dir=model, questions=questions, device=device)
    if is_encoder_mlm(model):
        return encoder_mlm_probabilities(model_dir=model, questions=questions, device=device)
    if (model / "meta.json").is_file():
        from baselines.data import from_question
        from baselines.training import TrainedReader

        reader = TrainedReader.load(model, device=device, last_epoch=last_epoch)
        return reader.probabilities(examples=[from_question(q) for q in questions])
    from baselines.encoder import encoder_probabilities

    return encoder_probabilities(model_dir=model, questions=questions, device=device)


def ensemble_predictions(
    *,
    models: tuple[Path, ...],
    questions: list[Question],
    device: str | None = None,
    last_epoch: bool = False,
) -> list[int]:
    """The option with the highest mean probability over ``models`` (one model: its own arg-max)."""
    total = None
    for model in models:
        probabilities = option_probabilities(
            model=model, questions=questions, device=device, last_epoch=last_epoch
        )
        total = probabilities if total is None else total + probabilities
    return total.argmax(dim=-1).tolist()
