"""``python -m baselines train --reader lm``: the LM reader's branch of the train command."""

import json
from pathlib import Path

import click

from recam.records import dedupe_against, read_questions


def _read(paths, *, labels: bool):
    questions = []
    for path in paths:
        try:
            questions += read_questions(path, require_labels=labels)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
    return questions


def train_lm(
    *,
    zero_shot: bool,
    train_files: tuple[Path, ...],
    dev_file: Path | None,
    exclude_files: tuple[Path, ...],
    output: Path,
    lm_model: str | None,
    article_tokens: int | None,
    reduction: str,
    with_article: bool,
    epochs: float | None,
    batch_size: int | None,
    lr: float | None,
    time_budget_s: float | None,
    seed: int,
    device: str | None,
    quiet: bool,
) -> None:
    """Zero-shot: write the manifest. Otherwise LoRA fine-tuning on --train (de-duplicated by --exclude)."""
    from baselines.lm_reader import FineTuneConfig, LMSettings, fine_tune, write_zero_shot

    try:
        if zero_shot:
            if train_files:
                raise click.ClickException("--zero-shot trains nothing: drop --train")
            settings = LMSettings(
                article_tokens=article_tokens or 400, reduction=reduction, with_article=with_article
            )
            manifest = write_zero_shot(
                output_dir=output, settings=settings, model_path=lm_model, device=device
            )
            click.echo(
                json.dumps({k: manifest[k] for k in ("model_name", "model_sha256", "settings")}, indent=1)
            )
            return
        if not train_files:
            raise click.ClickException("give --train FILE (or --zero-shot)")
        questions = _read(train_files, labels=True)
        if exclude_files:
            before = len(questions)
            questions = dedupe_against(questions, exclude=_read(exclude_files, labels=False))
            click.echo(f"training on {len(questions)} of {before} questions after de-duplication", err=True)
        dev = _read((dev_file,), labels=True) if dev_file else None
        settings = LMSettings(
            article_tokens=article_tokens or 128, reduction=reduction, with_article=with_article
        )
        config = FineTuneConfig(
            epochs=epochs if epochs is not None else 1.0, lr=lr or 2e-4, batch_size=batch_size or 4,
            time_budget_s=time_budget_s if time_budget_s is not None else 1500.0, seed=seed,
        )  # fmt: skip
        metrics = fine_tune(
            train=questions, dev=dev, output_dir=output, settings=settings, config=config,
            model_path=lm_model, device=device, progress=not quiet,
        )  # fmt: skip
    except (ValueError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(json.dumps(metrics, indent=1))
