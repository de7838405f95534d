"""``python -m datagen abstractness train | eval | score WORD...``: the imperceptibility scorer of §3.2.

``datagen.targets.abstractness`` (torch) is imported inside the commands: ``python -m datagen`` stays quick.
"""

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from datagen.targets.abstractness import FitReport


def _ab():
    from datagen.targets import abstractness

    return abstractness


def _report_line(report: "FitReport") -> str:
    return (
        f"| {report.variant} | {report.dims} | {report.n_train} / {report.n_test} | "
        f"{report.train_r:.3f} | {report.test_r:.3f} | {_p(max(report.train_p, report.test_p))} |"
    )


def _p(value: float) -> str:
    return "< 1e-300" if value == 0.0 else f"{value:.1e}"  # scipy's p underflows to 0.0 below ~1e-308


TABLE_HEAD = (
    "| variant | dims | n train / test | train r | test r | p (max of both) |\n|---|---|---|---|---|---|"
)


def _regressor_options(command):
    """--epochs / --dropout / --weight-decay / --hidden: override the regressor's defaults."""
    for option in reversed(
        [
            click.option("--epochs", type=int, help="Override the regressor's epochs."),
            click.option("--dropout", type=float, help="Override the dropout."),
            click.option("--weight-decay", type=float, help="Override Adam's weight decay."),
            click.option(
                "--hidden", type=(int, int), help="Override the two hidden sizes, e.g. --hidden 512 128."
            ),
        ]
    ):
        command = option(command)
    return command


def _settings(seed: int, **overrides) -> dict:
    return {"seed": seed, **{key: value for key, value in overrides.items() if value is not None}}


def _fit(variant: str, seed: int, ratings: Path | None, overrides: dict):
    ab = _ab()
    try:
        vectors = ab.build_vectors(variant=variant)
    except ValueError as error:
        raise click.ClickException(str(error)) from error
    except ImportError as error:
        raise click.ClickException(
            f"variant {variant}: {error} (see docs/reference/imperceptibility.md)"
        ) from error
    settings = _settings(seed, **overrides)
    try:
        return ab.train_scorer(
            ratings_path=ratings,
            vectors=vectors,
            variant=variant,
            regressor=ab.AbstractnessRegressor(**settings),
        )
    except (ValueError, FileNotFoundError) as error:
        raise click.ClickException(str(error)) from error


@click.group()
def abstractness() -> None:
    """Imperceptibility: MRC concreteness regressor over word vectors (0 = most abstract)."""


@abstractness.command()
@click.option("--variant", help="Vectors: parts joined by '+' [default: glove50+minilm].")
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--ratings", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="MRC CSV.")
@click.option(
    "--output",
    type=click.Path(file_okay=False, path_type=Path),
    help="Model dir [models_dir()/abstractness].",
)
@_regressor_options
@click.option(
    "--if-missing",
    is_flag=True,
    help="Do nothing when a model exists and matches the current vectors (for set-up scripts).",
)
def train(variant, seed, ratings, output, if_missing, **overrides) -> None:
    """Fit on the seeded 2,148-word split, report Pearson r on train and test, save the model."""
    ab = _ab()
    variant = variant or ab.DEFAULT_VARIANT
    output = output or ab.default_model_dir()
    if if_missing and (output / ab.MODEL_FILE).is_file():
        try:
            scorer = ab.ImperceptibilityScorer.load(output)
        except ValueError as stale:  # trained on other vectors or an older format: retrain below
            click.echo(f"retraining: {stale}")
        else:
            click.echo(f"abstractness model already at {output / ab.MODEL_FILE}: skipped")
            _calibrate(scorer, ratings, output)
            return
    scorer, report = _fit(variant, seed, ratings, overrides)
    saved = scorer.save(output)
    click.echo(TABLE_HEAD)
    click.echo(_report_line(report))
    click.echo(f"saved {saved} (vectors sha256 {scorer.provenance['vectors_sha256'][:12]}...)")
    _calibrate(scorer, ratings, output)


def _calibrate(scorer, ratings: Path | None, output: Path) -> None:
    """The default calibration map beside the model (fitted once, then read), so that the set-up
    leaves nothing for the first candidates run to fit."""
    from datagen.targets.imperceptibility import DEFAULT_CALIBRATION, cached_calibration

    knots = cached_calibration(
        scorer=scorer, ratings=_ab().mrc_ratings(ratings), method=DEFAULT_CALIBRATION, model_dir=output
    )
    click.echo(f"calibration {knots['method']}: {len(knots['x'])} knots beside the model")


def _option_words(paths: tuple[Path, ...]) -> list[str]:
    from recam.records import read_questions

    words: set[str] = set()
    for path in paths:
        for question in read_questions(path):
            words.update(question.options)
    return sorted(words)


@abstractness.command(name="eval")
@click.option("--variant", "variants", multiple=True, help="Repeatable; default: every variant.")
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--ratings", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@_regressor_options
@click.option("--coverage", "coverage_files", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="ReCAM jsonl files: also report the share of their option words that get a score.")  # fmt: skip
@click.option(
    "--json-out", type=click.Path(dir_okay=False, path_type=Path), help="Write the rows as JSON too."
)
def evaluate(variants, seed, ratings, coverage_files, json_out, **overrides) -> None:
    """Fit each variant on the seeded split (nothing saved) and print the train/test Pearson table."""
    ab = _ab()
    options = _option_words(coverage_files) if coverage_files else []
    rows = []
    head, rule = TABLE_HEAD.split("\n")
    click.echo(head + (" option coverage |" if options else "") + "\n" + rule + ("---|" if options else ""))
    for variant in variants or ab.VARIANTS:
        scorer, report = _fit(variant, seed, ratings, overrides)
        row = {**report.__dict__}
        line = _report_line(report)
        if options:
            scored = sum(score is not None for score in scorer.score(options))
            row["option_coverage"] = [scored, len(options)]
            line += f" {scored} / {len(options)} |"
        rows.append(row)
        click.echo(line)
    if json_out:
        json_out.write_text(json.dumps(rows, indent=2) + "\n")


@abstractness.command()
@click.argument("words", nargs=-1, required=True)
@click.option(
    "--model", type=click.Path(exists=True, path_type=Path), help="Model dir or file [default model]."
)
def score(words, model) -> None:
    """Print `word<TAB>score` (0 = most abstract); `-` for a word without a vector."""
    ab = _ab()
    try:
        scorer = ab.ImperceptibilityScorer.load(model)
    except (ValueError, FileNotFoundError) as error:
        raise click.ClickException(str(error)) from error
    for word, value in zip(words, scorer.score(list(words)), strict=True):
        click.echo(f"{word}\t{'-' if value is None else f'{value:.3f}'}")
