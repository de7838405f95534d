"""``python -m datagen candidates``: candidate questions from XSum pairs (thin: parse, run, report)."""

import json
from pathlib import Path

import click

from datagen.targets.config import (
    CALIBRATIONS,
    DEFAULT_CALIBRATION,
    DEFAULT_SCALE,
    DEFAULT_WSD,
    SCALES,
    SYNONYM_SCOPES,
    WSD_CHOICES,
    WSD_CONTEXTS,
)
from datagen.targets.filters import DEFAULT_CONTEXTUAL_MAX
from datagen.targets.pipeline import Settings, local_runner
from datagen.targets.shards import run_candidates


@click.command()
@click.option(
    "--input",
    "input_path",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="XSum-format jsonl: {id, document, summary} per line.",
)
@click.option(
    "--subtask", required=True, type=click.Choice(["1", "2"]), help="1: imperceptibility, 2: nonspecificity."
)
@click.option(
    "--output",
    "output_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Candidate records (jsonl); the funnel report goes beside it.",
)
@click.option("--backend", type=click.Choice(["local", "celery"]), default="local", show_default=True)
@click.option(
    "--shard-size",
    type=click.IntRange(min=1),
    default=50,
    show_default=True,
    help="Pairs per shard (the unit of resume and of Celery tasks).",
)
@click.option("--no-encoder", is_flag=True, help="Skip the contextual-similarity filter (no encoder).")
@click.option(
    "--imperceptibility-max",
    type=float,
    default=0.35,
    show_default=True,
    help="Subtask 1: keep words scoring below this.",
)
@click.option(
    "--depth-max",
    type=int,
    default=6,
    show_default=True,
    help="Subtask 2: keep senses with max_depth below this.",
)
@click.option(
    "--glove-max",
    type=float,
    default=0.85,
    show_default=True,
    help="Drop a target if its GloVe cosine with a passage word is above this.",
)
@click.option(
    "--contextual-max",
    type=float,
    default=DEFAULT_CONTEXTUAL_MAX,
    show_default=True,
    help="Drop a target if its contextual cosine with a passage token is above this "
    "(default calibrated for MiniLM-L6 by python -m datagen.targets.contextual; the paper's 0.85 is for BERT-large).",
)
@click.option(
    "--lesk-window",
    type=click.IntRange(min=1),
    default=8,
    show_default=True,
    help="Content words each side of the target for the word senses (with --wsd-context window).",
)
@click.option(
    "--wsd-context",
    type=click.Choice(WSD_CONTEXTS),
    default="text",
    show_default=True,
    help="Word-sense context: the whole summary + passage (§3.3), or a window of --lesk-window words.",
)
@click.option(
    "--wsd",
    type=click.Choice(WSD_CHOICES),
    default=DEFAULT_WSD,
    show_default=True,
    help="Word senses (Subtask 2 depth; the sense-scoped synonym filter).",
)
@click.option(
    "--synonym-scope",
    type=click.Choice(SYNONYM_SCOPES),
    default="sense",
    show_default=True,
    help="Synonyms/antonyms of the chosen sense only, or of every sense (the paper's wording).",
)
@click.option(
    "--imperceptibility-scale",
    type=click.Choice(SCALES),
    default=DEFAULT_SCALE,
    show_default=True,
    help="Subtask 1: MRC ratings + calibrated regressor, or the raw regressor.",
)
@click.option(
    "--calibration",
    type=click.Choice(CALIBRATIONS),
    default=DEFAULT_CALIBRATION,
    show_default=True,
    help="Subtask 1, mrc+calibrated: fit the map on out-of-fold predictions of the regressor's training "
    "words (held-out) or on its own fit of them (in-sample, pipeline version 3).",
)
@click.option("--no-pos-rescue", is_flag=True, help="Take spaCy's ADJ/PROPN tags as they are.")
@click.option(
    "--threads",
    type=click.IntRange(min=1),
    default=None,
    help="Torch CPU threads for the encoder (local backend; default: auto, fewer under load; docs/operations.md).",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
def candidates(
    input_path,
    subtask,
    output_path,
    backend,
    shard_size,
    no_encoder,
    imperceptibility_max,
    depth_max,
    glove_max,
    contextual_max,
    lesk_window,
    wsd_context,
    wsd,
    synonym_scope,
    imperceptibility_scale,
    no_pos_rescue,
    quiet,
    threads=None,
    calibration=DEFAULT_CALIBRATION,  # a default: callers of ``candidates.callback`` may leave it out
) -> None:
    """Select target words (§3.2-3.4) and write one question per surviving target."""
    settings = Settings(
        subtask=int(subtask),
        imperceptibility_max=imperceptibility_max,
        depth_max=depth_max,
        glove_max=glove_max,
        contextual_max=contextual_max,
        lesk_window=lesk_window,
        wsd_context=wsd_context,
        use_encoder=not no_encoder,
        wsd=wsd,
        synonym_scope=synonym_scope,
        imperceptibility_scale=imperceptibility_scale,
        calibration=calibration,
        pos_rescue=not no_pos_rescue,
    )
    runner = local_runner
    if backend == "local" and not no_encoder:
        from lexicon.threads import set_torch_threads

        set_torch_threads(threads)
    if backend == "celery":
        from datagen.cli.celery_client import celery_runner  # celery (not torch) loaded only when asked

        runner = celery_runner
    try:
        report = run_candidates(
            input_path=input_path,
            output_path=output_path,
            settings=settings,
            shard_size=shard_size,
            runner=runner,
            progress=not quiet,
        )
    except (ValueError, FileNotFoundError) as error:
        raise click.ClickException(str(error)) from None
    for bad in report["bad_lines"]:
        click.echo(f"{input_path}:{bad['line']}: skipped: {bad['message']}", err=True)
    click.echo(json.dumps(report["funnel"], indent=1))
    click.echo(f"wrote {report['funnel']['kept']} candidates to {output_path}", err=True)
