"""``python -m baselines``: train a baseline, predict a submission file, score predictions, bundle a zip.

A thin layer: option parsing and messages here (score, bundle and report in baselines.cli_files), the work
in baselines.commands / baselines.report.
"""

import json
import os

import click

from baselines.cli_common import DIR, FILE, NEW_DIR, NEW_FILE, read_questions, set_threads, user_errors
from baselines.cli_files import bundle, report, score
from baselines.cloze_cli import cloth_lm, scde_lm, score_format
from baselines.commands import (  # noqa: F401  (re-exported for callers of baselines.cli)
    adaptation_texts,
    ensemble_predictions,
    option_probabilities,
    read_files,
    training_questions,
)
from baselines.lm_cli import lm_variants
from baselines.report import format_cell  # noqa: F401  (re-exported)

READER_CHOICES = ("ga", "att", "att-gloss", "encoder", "encoder-mlm", "lm")


@click.group()
def main() -> None:
    """ReCAM baselines: the paper's readers (ga, att, att-gloss), pretrained-encoder and LM baselines."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")


@main.command()
@click.option("--reader", type=click.Choice(READER_CHOICES), required=True)
@click.option(
    "--train",
    "train_files",
    type=FILE,
    multiple=True,
    help="labelled ReCAM jsonl (repeat the option for several files); not with --zero-shot",
)
@click.option(
    "--dev",
    "dev_file",
    type=FILE,
    default=None,
    help="labelled jsonl, reported per epoch (never used for selection)",
)
@click.option(
    "--exclude",
    "exclude_files",
    type=FILE,
    multiple=True,
    help="drop training questions that occur in these files (e.g. the test sets)",
)
@click.option("--output", type=NEW_DIR, required=True)
@click.option("--epochs", type=float, default=None, help="default: 8 for readers, 1 for the encoder")
@click.option("--seed", type=int, default=13)
@click.option("--hidden", type=int, default=150)
@click.option("--batch-size", type=int, default=None)
@click.option("--lr", type=float, default=None, help="default: 1e-3 for readers, 1e-4 for the encoder")
@click.option(
    "--max-length", type=int, default=None, help="passage tokens (readers, 400) / word pieces (encoder, 96)"
)
@click.option(
    "--time-budget",
    "time_budget_s",
    type=float,
    default=None,
    help="seconds of training at most (default: none for readers, 1500 for the encoder)",
)
@click.option(
    "--center-query/--no-center-query",
    default=True,
    show_default=True,
    help="readers: remove the context-independent part of the scoring query (a learnt answer-word prior)",
)
@click.option(
    "--vectors",
    "vectors_path",
    type=FILE,
    default=None,
    help="GloVe text or .npy (default GLOVE_PATH / packaged 6B 50d)",
)
@click.option("--encoder-model", type=DIR, default=None)
@click.option("--device", default=None, help="default: cuda when available, else cpu")
@click.option("--threads", type=int, default=1, help="CPU threads for torch (more is slower on a shared CPU)")
@click.option("--zero-shot", is_flag=True, help="lm: write a zero-shot model dir (nothing trained)")
@click.option(
    "--lm-model", default=None, help="lm: a GGUF file or HF causal-LM dir (default $LM_MODEL / SmolLM2)"
)
@click.option(
    "--article-tokens", type=int, default=None, help="lm: article window (400 zero-shot, 128 fine-tuning)"
)
@click.option("--reduction", type=click.Choice(["sum", "mean"]), default="sum", show_default=True)
@click.option("--no-article", is_flag=True, help="lm: score the filled question without the article")
@click.option(
    "--lora-layers",
    type=click.IntRange(min=0),
    default=None,
    help="lm: adapt the top N decoder layers (0 = all; default $LM_LORA_LAYERS, else the top quarter)",
)
@click.option("--quiet", is_flag=True)
def train(reader, train_files, dev_file, exclude_files, output, quiet, threads, **settings):
    """Train one baseline on --train files; save it to --output."""
    set_threads(threads)
    if reader == "lm":
        from baselines.lm_cli import train_lm

        lm_keys = ("zero_shot", "lm_model", "article_tokens", "reduction", "epochs", "batch_size", "lr",
                   "time_budget_s", "seed", "device", "lora_layers")  # fmt: skip
        train_lm(
            train_files=train_files, dev_file=dev_file, exclude_files=exclude_files, output=output,
            with_article=not settings["no_article"], quiet=quiet, **{k: settings[k] for k in lm_keys},
        )  # fmt: skip
        return
    if not train_files:
        raise click.ClickException("give --train FILE (at least one)")
    with user_errors():
        questions, before = training_questions(train_files, exclude_files)
        if exclude_files:
            click.echo(f"training on {len(questions)} of {before} questions after de-duplication", err=True)
        dev = read_files((dev_file,), labels=True) if dev_file else None
        from baselines.commands import train_baseline

        metrics = train_baseline(
            reader=reader, train=questions, dev=dev, output=output, settings=settings,
            train_files=train_files, progress=not quiet,
        )  # fmt: skip
    click.echo(json.dumps(metrics, indent=1))


@main.command()
@click.option(
    "--text",
    "text_files",
    type=FILE,
    multiple=True,
    required=True,
    help="unlabelled jsonl: XSum 'document' or ReCAM 'article' per line (repeat for several files)",
)
@click.option(
    "--exclude",
    "exclude_files",
    type=FILE,
    multiple=True,
    help="ReCAM files whose articles must not be used (the dev and test sets)",
)
@click.option("--output", type=NEW_DIR, required=True)
@click.option("--seconds", type=float, default=1500.0, show_default=True, help="length of the MLM stage")
@click.option("--lr", type=float, default=1e-4, show_default=True)
@click.option("--seed", type=int, default=13)
@click.option("--encoder-model", type=DIR, default=None)
@click.option("--device", default=None)
@click.option("--threads", type=int, default=1)
@click.option("--quiet", is_flag=True)
def adapt(text_files, exclude_files, output, seconds, lr, seed, encoder_model, device, threads, quiet):
    """Masked-language-model adaptation of the encoder (stage 1 of --reader encoder-mlm)."""
    set_threads(threads)
    from baselines.encoder_mlm import adapt_encoder

    with user_errors():
        texts = adaptation_texts(
            text_files, exclude={q.article for q in read_files(exclude_files, labels=False)}
        )
        click.echo(f"adapting on {len(texts)} distinct texts from {len(text_files)} file(s)", err=True)
        metrics = adapt_encoder(
            texts=texts, output_dir=output, seconds=seconds, model_dir=encoder_model, lr=lr, seed=seed,
            device=device, progress=not quiet,
        )  # fmt: skip
    click.echo(json.dumps({k: v for k, v in metrics.items() if k != "losses"}, indent=1))


@main.command()
@click.option("--model", type=DIR, required=True)
@click.option(
    "--train",
    "train_files",
    type=FILE,
    multiple=True,
    required=True,
    help="the model's training files (the mean query is taken over them)",
)
@click.option("--exclude", "exclude_files", type=FILE, multiple=True)
@click.option("--input", "input_file", type=FILE, required=True)
@click.option("--threads", type=int, default=1)
def prior(model, train_files, exclude_files, input_file, threads):
    """Diagnose a reader's learnt answer-word prior (the mean scoring query); see docs/reference/baselines.md."""
    set_threads(threads)
    from baselines.data import from_question
    from baselines.training import TrainedReader, query_prior

    with user_errors():
        questions, _ = training_questions(train_files, exclude_files)
        reader = TrainedReader.load(model)
        result = query_prior(
            reader=reader,
            fit_on=[from_question(q) for q in questions],
            evaluate_on=[from_question(q) for q in read_files((input_file,), labels=True)],
        )
    click.echo(json.dumps({"model": str(model), "center_query": reader.config.center_query, **result}))


@main.command()
@click.option(
    "--model",
    "models",
    type=DIR,
    required=True,
    multiple=True,
    help="a saved baseline; repeat it for an ensemble (mean of the option probabilities)",
)
@click.option("--input", "input_file", type=FILE, required=True)
@click.option("--output", type=NEW_FILE, required=True, help="e.g. subtask1.csv")
@click.option("--device", default=None)
@click.option("--threads", type=int, default=1)
@click.option("--last-epoch", is_flag=True, help="readers: the final epoch's weights, not the selected epoch")
def predict(models, input_file, output, device, threads, last_epoch):
    """Write the official ``id,label`` file (no header) for every question of --input."""
    set_threads(threads)
    from recam.submission import write_predictions

    questions = read_questions((input_file,), labels=False)
    with user_errors():
        labels = ensemble_predictions(
            models=models, questions=questions, device=device, last_epoch=last_epoch
        )
    output.parent.mkdir(parents=True, exist_ok=True)
    write_predictions(output, {q.id: label for q, label in zip(questions, labels, strict=True)})
    click.echo(f"wrote {len(questions)} predictions to {output}", err=True)


main.add_command(lm_variants)
main.add_command(score)
main.add_command(bundle)
main.add_command(report)
main.add_command(cloth_lm)
main.add_command(scde_lm)
main.add_command(score_format)
