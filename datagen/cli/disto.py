"""``python -m datagen disto train|eval|score``: the DISTO-style distractor score (thin CLI).

The work is in :mod:`datagen.quality.disto` (sampling, features, the model) and
:mod:`datagen.quality.disto_eval` (AUC, per-option scores, ranking option files).
"""

import json
from pathlib import Path

import click

from baselines.cli_common import DIR, FILE, NEW_DIR, NEW_FILE, set_threads, user_errors
from lexicon.files import file_sha256, write_atomic
from recam.records import read_questions

SEED = click.option(
    "--seed", default=0, show_default=True, type=int, help="Negative sampling and bootstrap seed."
)
ENCODER = click.option(
    "--encoder", type=click.Path(file_okay=False), help="Encoder dir (default ENCODER_MODEL)."
)
DEVICE = click.option("--device", help='Torch device (default: CUDA when present, else "cpu").')
THREADS = click.option(
    "--threads", type=click.IntRange(min=1), help="Torch CPU threads; 1 on a busy machine."
)


def _load(paths) -> dict[str, list]:
    with user_errors():
        return {str(p): read_questions(p, require_labels=True) for p in paths}


def _encoder(encoder, device, threads):
    from datagen.quality.disto import SentenceEncoder

    if threads:
        set_threads(threads)
    with user_errors():
        return SentenceEncoder.load(encoder, device=device)


@click.group("disto")
def disto() -> None:
    """A learned distractor score (DISTO-style): train, validate by AUC, score option files."""


@disto.command("train")
@click.option("--train", "train_paths", required=True, multiple=True, type=FILE, help="Labelled ReCAM jsonl.")
@click.option("--output", "output_dir", required=True, type=NEW_DIR, help="Model dir (model.json).")
@SEED
@ENCODER
@DEVICE
@THREADS
def train_cmd(train_paths, output_dir, seed, encoder, device, threads):
    """Train on the real distractors of TRAIN files against sampled negatives; a same-input rerun loads it."""
    from datagen.quality.disto import train
    from lexicon.resources import wordnet

    sets = _load(train_paths)
    enc = _encoder(encoder, device, threads)
    questions = [q for qs in sets.values() for q in qs]
    with user_errors():
        model, reused = train(
            questions=questions, files={p: file_sha256(p) for p in sets}, encoder=enc, wordnet=wordnet(),
            seed=seed, output_dir=output_dir, progress=click.echo,
        )  # fmt: skip
    counts = ", ".join(f"{k} {v}" for k, v in model.manifest["examples"].items())
    click.echo(f"{'loaded (same inputs)' if reused else 'trained'}: {output_dir} ({counts})")


@disto.command("eval")
@click.option("--model", "model_dir", required=True, type=DIR)
@click.option("--dev", "dev_paths", multiple=True, type=FILE, help="Held-out labelled files for the AUC.")
@click.option("--options", "option_paths", multiple=True, type=FILE, help="Option files to rank.")
@click.option(
    "--reference",
    "reference_path",
    type=FILE,
    help="Labelled ReCAM file the OPTIONS files were generated from (datagen options --from-recam): rank them "
    "on the questions all of them wrote, matched by id, with this file's own distractors as a row.",
)
@click.option("--resamples", default=1000, show_default=True, type=click.IntRange(min=10))
@click.option("--output", "output_path", type=NEW_FILE, help="Write the figures as JSON too.")
@SEED
@ENCODER
@DEVICE
@THREADS
def eval_cmd(
    model_dir, dev_paths, option_paths, reference_path, resamples, output_path, seed, encoder, device, threads
):
    """AUC of real vs sampled distractors per DEV file; mean score of each OPTIONS file's distractors."""
    from datagen.quality.disto import load_model
    from datagen.quality.disto_eval import evaluate, rank_on_reference, rank_sets
    from lexicon.resources import wordnet

    if not dev_paths and not option_paths:
        raise click.UsageError("give --dev and/or --options files")
    if reference_path and not option_paths:
        raise click.UsageError("--reference ranks --options files: give at least one")
    dev, options = _load(dev_paths), _load(option_paths)
    reference = _load([reference_path])[str(reference_path)] if reference_path else None
    enc = _encoder(encoder, device, threads)
    with user_errors():
        model = load_model(model_dir, encoder=enc)
        aucs = {p: evaluate(model=model, encoder=enc, questions=qs, wordnet=wordnet(), seed=seed, resamples=resamples)
                for p, qs in dev.items()}  # fmt: skip
        if reference is None:
            ranking = rank_sets(model=model, encoder=enc, sets=options, seed=seed, resamples=resamples)
        else:
            found = rank_on_reference(model=model, encoder=enc, sets=options, reference=reference, seed=seed,
                                      resamples=resamples)  # fmt: skip
            ranking = found["ranking"]
    for path, result in aucs.items():
        click.echo(f"{path} ({result['questions']} questions): real distractors vs sampled negatives")
        for kind, a in result.items():
            if kind != "questions":
                click.echo(f"  {kind:15s} AUC {a['auc']:.3f} [{a['low']:.3f}, {a['high']:.3f}]  n={a['n']}")
    if reference is not None and ranking:
        click.echo(
            f"on the {ranking[0]['questions']} questions every options file wrote ({reference_path}: reference)"
        )
    for rank, row in enumerate(ranking, start=1):
        line = (f"{rank}. {row['set']}: mean DISTO {row['mean']:.3f} [{row['low']:.3f}, {row['high']:.3f}] "
                f"({row['questions']} questions)")  # fmt: skip
        if "minus_reference" in row:
            d = row["minus_reference"]
            line += f"; minus reference {d['mean']:+.3f} [{d['low']:+.3f}, {d['high']:+.3f}]"
        if "own" in row:
            own = row["own"]
            line += (f"; word-frequency judge {100 * row['wordfreq_accuracy']:.1f}%; on its own "
                     f"{own['questions']}: {own['mean']:.3f} [{own['low']:.3f}, {own['high']:.3f}]")  # fmt: skip
        click.echo(line)
    if output_path:
        figures = {"auc": aucs, "ranking": ranking}
        if reference is not None:
            figures["reference"] = {"path": str(reference_path), "common_ids": found["common_ids"]}
        write_atomic(path=output_path, text=json.dumps(figures, indent=1) + "\n")


@disto.command("wordfreq-options")
@click.option("--input", "input_path", required=True, type=FILE, help="Labelled ReCAM jsonl.")
@click.option("--output", "output_path", required=True, type=NEW_FILE)
@click.option(
    "--limit", type=click.IntRange(min=1), help="The first N questions (vocabulary: the whole file's)."
)
def wordfreq_options_cmd(input_path, output_path, limit):
    """The word-frequency generator: each question's gold and the 4 most frequent option words of INPUT."""
    from datagen.quality.disto_eval import wordfreq_options
    from datagen.quality.distractor_bench import vocabulary
    from recam.records import write_questions

    questions = _load([input_path])[str(input_path)]
    with user_errors():
        out = wordfreq_options(questions=questions[:limit], vocabulary=vocabulary(questions))
    write_questions(output_path, out)
    click.echo(f"{len(out)} questions -> {output_path}")


@disto.command("score")
@click.option("--model", "model_dir", required=True, type=DIR)
@click.option("--input", "input_path", required=True, type=FILE)
@click.option(
    "--output", "output_path", required=True, type=NEW_FILE, help="jsonl: id and per-option scores."
)
@ENCODER
@DEVICE
@THREADS
def score_cmd(model_dir, input_path, output_path, encoder, device, threads):
    """Score every distractor of INPUT (null at the gold), one line per question."""
    from datagen.quality.disto import load_model
    from datagen.quality.disto_eval import score_options, set_summary

    questions = _load([input_path])[str(input_path)]
    enc = _encoder(encoder, device, threads)
    with user_errors():
        model = load_model(model_dir, encoder=enc)
        table = score_options(model=model, encoder=enc, questions=questions)
    lines = [json.dumps({"id": q.id, "disto": row}) for q, row in zip(questions, table, strict=True)]
    write_atomic(path=Path(output_path), text="\n".join(lines) + "\n")
    click.echo(
        f"{len(questions)} questions: mean DISTO {set_summary(table=table)['mean']:.3f} -> {output_path}"
    )
