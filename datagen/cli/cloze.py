"""``python -m datagen cloth`` and ``python -m datagen scde``: multi-blank passages from XSum pairs (thin)."""

import json
from pathlib import Path

import click
from tqdm import tqdm

from datagen.options.cloth import ClothSettings
from datagen.options.scde import ScdeSettings

INPUT = click.Path(exists=True, dir_okay=False, path_type=Path)
OUTPUT = click.Path(dir_okay=False, writable=True, path_type=Path)


def _common(command):
    for option in reversed([
        click.option("--input", "input_path", required=True, type=INPUT, help="XSum pairs (jsonl)."),
        click.option("--output", required=True, type=OUTPUT, help="The format's jsonl; the report goes beside it."),
        click.option("--limit", type=click.IntRange(min=1), help="The first N pairs only."),
        click.option("--seed", default=13, show_default=True, type=int),
        click.option("--lm-model", help="Causal LM (GGUF file or model dir; default LM_MODEL or SmolLM2-135M)."),
        click.option("--device", help='Torch device (default: CUDA when present, else "cpu").'),
        click.option("--threads", type=click.IntRange(min=1), help="Torch CPU threads; 1 on a busy machine."),
        click.option("--quiet", is_flag=True, help="No progress bar."),
    ]):  # fmt: skip
        command = option(command)
    return command


def _run(runner, *, quiet: bool, **kwargs) -> None:
    """One format's run with a progress bar; bad input ends the command with its message."""
    try:
        report = runner(**kwargs, progress=_bar(quiet, "article"))
    except (ValueError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from None
    _report(report)


def _report(report: dict) -> None:
    for line in report["bad_lines"]:
        click.echo(line, err=True)
    click.echo(json.dumps({k: report[k] for k in ("format", "pairs", "written", "funnel")}))
    click.echo(f"wrote {report['written']} passages to {report['output']}", err=True)


def _bar(quiet: bool, unit: str):
    return lambda items: tqdm(items, desc="passages", unit=unit, disable=quiet)


@click.command("cloth")
@_common
@click.option(
    "--blanks",
    default=5,
    show_default=True,
    type=click.IntRange(min=1),
    help="k: blanks per passage, at most.",
)
@click.option("--min-blanks", default=3, show_default=True, type=click.IntRange(min=1))
@click.option(
    "--min-gap",
    default=8,
    show_default=True,
    type=click.IntRange(min=1),
    help="Tokens between blanks, at least.",
)
@click.option(
    "--max-words",
    default=220,
    show_default=True,
    type=click.IntRange(min=20),
    help="Passage length in words.",
)
@click.option("--max-imperceptibility", default=0.35, show_default=True, type=click.FloatRange(0, 1))
@click.option(
    "--tries",
    default=12,
    show_default=True,
    type=click.IntRange(min=1),
    help="Candidate blanks tried per passage.",
)
def cloth(input_path, output, limit, seed, lm_model, device, threads, quiet, blanks, min_blanks, min_gap,
          max_words, max_imperceptibility, tries):  # fmt: skip
    """CLOTH-style passages: abstract words blanked, 4 gated options per blank (docs/guides/dataset-builders.md)."""
    from datagen.options.cloze_run import run_cloth

    if min_blanks > blanks:
        raise click.BadParameter(f"--min-blanks {min_blanks} is above --blanks {blanks}")
    settings = ClothSettings(
        blanks=blanks, min_blanks=min_blanks, min_gap=min_gap, max_words=max_words,
        max_imperceptibility=max_imperceptibility, tries=tries, seed=seed,
    )  # fmt: skip
    _run(run_cloth, input_path=input_path, output=output, settings=settings, lm_model=lm_model, device=device,
         threads=threads, limit=limit, quiet=quiet)  # fmt: skip


@click.command("scde")
@_common
@click.option(
    "--blanks", default=3, show_default=True, type=click.IntRange(min=1), help="k: sentences removed."
)
@click.option("--distractors", default=2, show_default=True, type=click.IntRange(min=1))
@click.option(
    "--draws",
    default=8,
    show_default=True,
    type=click.IntRange(min=1),
    help="Sentences drawn from other articles.",
)
@click.option(
    "--margin",
    default=1.0,
    show_default=True,
    type=float,
    help="Nats: a draw this close to a blank's answer fits it.",
)
@click.option("--max-sentences", default=10, show_default=True, type=click.IntRange(min=3))
def scde(input_path, output, limit, seed, lm_model, device, threads, quiet, blanks, distractors, draws, margin,
         max_sentences):  # fmt: skip
    """SCDE-style passages: k sentences removed, distractors drawn from other articles that fit no blank."""
    from datagen.options.cloze_run import run_scde

    if distractors > draws:
        raise click.BadParameter(f"--distractors {distractors} is above --draws {draws}")
    settings = ScdeSettings(
        blanks=blanks,
        distractors=distractors,
        draws=draws,
        margin=margin,
        max_sentences=max_sentences,
        seed=seed,
    )
    _run(run_scde, input_path=input_path, output=output, settings=settings, lm_model=lm_model, device=device,
         threads=threads, limit=limit, quiet=quiet)  # fmt: skip
