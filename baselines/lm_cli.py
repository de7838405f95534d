"""``python -m baselines train --reader lm``: the LM reader's branch of the train command."""

import json
import os
from pathlib import Path

import click

from baselines.cli_common import THREADS_HELP, read_questions
from baselines.commands import read_files, training_questions

LORA_LAYERS_ENV = "LM_LORA_LAYERS"


def _env_int(name: str) -> int | None:
    value = os.environ.get(name, "").strip()
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        raise click.ClickException(f"${name} must be an integer, not {value!r}") from None


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
    lora_layers: int | None = None,
) -> None:
    """Zero-shot: write the manifest. Otherwise LoRA fine-tuning on --train (de-duplicated by --exclude).

    ``lora_layers`` (else ``$LM_LORA_LAYERS``, else the top quarter of the layers; 0 = every layer)
    sets how many top decoder layers get adapters; the weight dtype follows ``$LM_DTYPE``.
    """
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
        questions, before = training_questions(train_files, exclude_files)
        if exclude_files:
            click.echo(f"training on {len(questions)} of {before} questions after de-duplication", err=True)
        dev = read_files((dev_file,), labels=True) if dev_file else None
        settings = LMSettings(
            article_tokens=article_tokens or 128, reduction=reduction, with_article=with_article
        )
        config = FineTuneConfig(
            epochs=epochs if epochs is not None else 1.0, lr=lr or 2e-4, batch_size=batch_size or 4,
            time_budget_s=time_budget_s if time_budget_s is not None else 1500.0, seed=seed,
            lora_layers=lora_layers if lora_layers is not None else _env_int(LORA_LAYERS_ENV),
        )  # fmt: skip
        metrics = fine_tune(
            train=questions, dev=dev, output_dir=output, settings=settings, config=config,
            model_path=lm_model, device=device, progress=not quiet,
        )  # fmt: skip
    except (ValueError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(json.dumps(metrics, indent=1))


@click.command("lm-variants")
@click.option(
    "--input", "input_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True
)
@click.option(
    "--output", type=click.Path(dir_okay=False, path_type=Path), required=True, help="jsonl, resumable"
)
@click.option("--limit", type=int, default=None, help="the first N questions of --input")
@click.option("--lm-model", default=None)
@click.option("--device", default=None)
@click.option("--threads", type=click.IntRange(min=1), default=None, help=THREADS_HELP)
def lm_variants(input_file, output, limit, lm_model, device, threads):
    """Zero-shot LM variants (article window 400/200/none x sum/mean) on a labelled file; accuracy table."""
    from baselines.lm_scorer import load_causal_lm
    from baselines.lm_variants import score_variants, summarise

    questions = read_questions((input_file,), labels=True)[:limit]
    try:
        lm = load_causal_lm(model_path=lm_model, device=device, threads=threads)
    except (ValueError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from None
    score_variants(lm, questions=questions, output=output)
    click.echo(json.dumps(summarise(output), indent=1))
