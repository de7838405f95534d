"""``python -m datagen quality``: the per-question quality report of a ReCAM file (thin CLI)."""

import json
from pathlib import Path

import click
from tqdm import tqdm

from datagen.quality.report import summary_line
from datagen.quality.run import quality_with_lm


@click.command("quality")
@click.option("--input", "input_path", required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--output", "output_path", required=True, type=click.Path(dir_okay=False), help="REPORT.json")
@click.option("--model", help="Causal LM (GGUF file or HF dir; default LM_MODEL or SmolLM2-135M-Instruct).")
@click.option("--device", help='Torch device (default: CUDA when present, else "cpu").')
@click.option("--article-tokens", default=400, show_default=True, type=click.IntRange(min=1))
@click.option("--batch-size", default=8, show_default=True, type=click.IntRange(min=1))
@click.option(
    "--cache-dir", type=click.Path(file_okay=False), help="Score cache (default MODELS_DIR/quality)."
)
@click.option(
    "--threads",
    type=click.IntRange(min=1),
    help="Torch CPU threads (default: auto, all cores when alone and fewer under load; docs/operations.md).",
)
@click.option(
    "--disto-model",
    type=click.Path(exists=True, file_okay=False),
    help="A DISTO model dir: score each option.",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option(
    "--format",
    "task_format",
    type=click.Choice(["recam", "cloth", "scde"]),
    default="recam",
    show_default=True,
    help="cloth: options-only accuracy per blank; scde: candidates-only accuracy (REPORT.json only).",
)
def quality(
    input_path,
    output_path,
    model,
    device,
    article_tokens,
    batch_size,
    cache_dir,
    threads,
    disto_model,
    quiet,
    task_format="recam",
):
    """Score every question with and without its article; write REPORT.json and REPORT.md."""
    if task_format != "recam":
        _multiblank(task_format, input_path, output_path, model=model, device=device, threads=threads,
                    batch_size=batch_size)  # fmt: skip
        return
    bar = tqdm(desc="scores", unit="q", disable=quiet)

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.update(done - bar.n)

    try:
        report = quality_with_lm(
            input_path=input_path, output_path=output_path, model_path=model, device=device,
            article_tokens=article_tokens, batch_size=batch_size, threads=threads, cache_dir=cache_dir,
            progress=progress, disto_model=disto_model,
        )  # fmt: skip
    except (ValueError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        bar.close()
    click.echo(summary_line(report))
    click.echo(f"report: {output_path} and {Path(output_path).with_suffix('.md')}")


def _multiblank(task_format, input_path, output_path, *, model, device, threads, batch_size) -> None:
    """The multi-blank formats' check (:mod:`datagen.quality.multiblank`), written as one JSON file."""
    from baselines.lm_loading import load_causal_lm
    from datagen.quality.multiblank import multiblank_report
    from lexicon.files import write_atomic

    try:
        lm = load_causal_lm(model_path=model, device=device, threads=threads)
        report = multiblank_report(fmt=task_format, path=input_path, lm=lm, batch_size=batch_size)
    except (ValueError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from None
    report = {**report, "input": str(input_path), "lm": {"name": lm.name, "sha256": lm.sha256}}
    write_atomic(path=output_path, text=json.dumps(report, indent=1) + "\n")
    click.echo(json.dumps(report))
