"""``python -m baselines cloth-lm | scde-lm | score-format``: the multi-blank formats' baselines and scorer.

A thin layer: options and messages here, the work in baselines.cloze_lm and recam.formats.
"""

import json
from pathlib import Path

import click

from baselines.cli_common import NEW_FILE, set_threads, user_errors

INPUT = click.Path(exists=True, path_type=Path)  # a file, or a folder of official CLOTH files


def _records(name: str, path: Path, *, official: bool, answers: bool = False):
    from recam.formats import get_format

    fmt = get_format(name)
    with user_errors():
        if official:
            loaded = fmt.load_official(path)
            for dropped in loaded.dropped:
                click.echo(f"dropped {dropped}", err=True)
            return fmt, list(loaded.passages)
        if path.is_dir():
            raise ValueError(f"{path} is a folder: give a {name} jsonl file, or --official")
        return fmt, fmt.read(path, require_answers=answers)


def _finish(fmt, records, predictions, output: Path) -> None:
    """Write the prediction file, read it back with the format's parser, and score it if answers exist."""
    output.write_text(fmt.format_predictions(predictions), encoding="utf-8", newline="\n")
    click.echo(f"wrote {output}", err=True)
    if all(r.answers is not None for r in records):
        parsed = fmt.parse_predictions(data=output.read_bytes(), filename=output.name, records=records)
        scores = fmt.score(predictions=parsed, records=records)
        click.echo(json.dumps({"format": fmt.name, **scores, "chance": fmt.chance(records=records)}))


def _load_lm(lm_model, device, threads):
    from baselines.lm_loading import load_causal_lm

    with user_errors():
        return load_causal_lm(model_path=lm_model, device=device, threads=threads)


@click.command("cloth-lm")
@click.option(
    "--input", "input_path", type=INPUT, required=True, help="CLOTH-format jsonl (or see --official)"
)
@click.option("--official", is_flag=True, help="--input is a published CLOTH file or folder of them")
@click.option("--output", type=NEW_FILE, required=True, help="the prediction file (id,blank,label lines)")
@click.option("--context-words", type=int, default=50, show_default=True, help="words each side, at most")
@click.option("--batch-size", type=int, default=8, show_default=True)
@click.option("--lm-model", default=None, help="GGUF file or model folder (default: $LM_MODEL, else SmolLM2)")
@click.option("--device", default=None, help="default: CUDA when present, else the CPU")
@click.option("--threads", type=int, default=1)
def cloth_lm(input_path, official, output, context_words, batch_size, lm_model, device, threads):
    """CLOTH's LM reader: each blank's option with the most probable blank-free span around it."""
    from baselines.cloze_lm import cloth_predict

    set_threads(threads)
    fmt, records = _records("cloth", input_path, official=official)
    lm = _load_lm(lm_model, device, threads)
    with user_errors():
        predictions, _ = cloth_predict(lm, records, context_words=context_words, batch_size=batch_size)
    _finish(fmt, records, predictions, output)


@click.command("scde-lm")
@click.option(
    "--input", "input_path", type=INPUT, required=True, help="SCDE-format jsonl (or see --official)"
)
@click.option("--official", is_flag=True, help="--input is a published SCDE split (JSON array or jsonl)")
@click.option("--output", type=NEW_FILE, required=True, help="the prediction file (id,blank,label lines)")
@click.option("--context-sentences", type=int, default=3, show_default=True, help="sentences each side")
@click.option("--scoring", type=click.Choice(["joint", "pmi"]), default="joint", show_default=True)
@click.option(
    "--decode", type=click.Choice(["hungarian", "independent"]), default="hungarian", show_default=True
)
@click.option("--batch-size", type=int, default=8, show_default=True)
@click.option("--lm-model", default=None, help="GGUF file or model folder (default: $LM_MODEL, else SmolLM2)")
@click.option("--device", default=None, help="default: CUDA when present, else the CPU")
@click.option("--threads", type=int, default=1)
def scde_lm(
    input_path, official, output, context_sentences, scoring, decode, batch_size, lm_model, device, threads
):
    """SCDE's LM scorer with the assignment decoder: distinct candidates, largest summed score."""
    from baselines.cloze_lm import scde_predict

    set_threads(threads)
    fmt, records = _records("scde", input_path, official=official)
    lm = _load_lm(lm_model, device, threads)
    with user_errors():
        predictions, _ = scde_predict(
            lm, records, context_sentences=context_sentences, scoring=scoring, decode=decode,
            batch_size=batch_size,
        )  # fmt: skip
    _finish(fmt, records, predictions, output)


@click.command("score-format")
@click.option("--format", "name", type=click.Choice(["recam", "cloth", "scde"]), required=True)
@click.option("--predictions", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True)
@click.option("--gold", type=INPUT, required=True, help="the format's jsonl with answers (or see --official)")
@click.option("--official", is_flag=True, help="--gold is in the published CLOTH / SCDE layout")
def score_format(name, predictions, gold, official):
    """Score a prediction file with its format's scorer (recam.formats), with the chance row."""
    from recam.submission import SubmissionError

    fmt, records = _records(name, gold, official=official, answers=True)
    try:
        parsed = fmt.parse_predictions(
            data=predictions.read_bytes(), filename=predictions.name, records=records
        )
    except SubmissionError as exc:
        raise click.ClickException(f"{predictions}:\n{exc}") from None
    with user_errors():
        scores = fmt.score(predictions=parsed, records=records)
    click.echo(json.dumps({"format": name, **scores, "chance": fmt.chance(records=records)}))
