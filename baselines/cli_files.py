"""``python -m baselines score | bundle | report``: the commands over prediction files (no model involved)."""

import json

import click

from baselines.cli_common import DIR, FILE, NEW_FILE, read_questions, user_errors


@click.command()
@click.option("--predictions", type=FILE, required=True)
@click.option("--gold", type=FILE, required=True)
def score(predictions, gold):
    """Accuracy of an ``id,label`` file against a labelled jsonl, with the one scorer (recam.metrics)."""
    from recam.metrics import SCORER_VERSION, score_predictions
    from recam.submission import SubmissionError, parse_submission

    questions = read_questions((gold,), labels=True)
    name = "subtask1.csv"  # the parser only needs a valid name; the subtask number is irrelevant here
    try:
        parsed = parse_submission(
            data=predictions.read_bytes(), filename=name, expected_ids={1: {q.id for q in questions}}
        )
    except SubmissionError as exc:
        raise click.ClickException(f"{predictions}:\n{exc}") from None
    result = score_predictions(
        predictions=parsed.files[0].predictions, gold={q.id: q.label for q in questions}
    )
    summary = {"accuracy": result.accuracy, "correct": result.correct, "total": result.total}
    click.echo(json.dumps({**summary, "scorer": SCORER_VERSION}))


@click.command()
@click.option("--subtask1", type=FILE, default=None)
@click.option("--subtask2", type=FILE, default=None)
@click.option("--output", type=NEW_FILE, required=True)
def bundle(subtask1, subtask2, output):
    """Zip prediction files into an official submission (subtask1.csv / subtask2.csv at the root)."""
    from recam.submission import make_zip

    files = {
        name: path.read_bytes()
        for name, path in (("subtask1.csv", subtask1), ("subtask2.csv", subtask2))
        if path
    }
    if not files:
        raise click.ClickException("give --subtask1 and/or --subtask2")
    output.write_bytes(make_zip(files))
    click.echo(f"wrote {output}", err=True)


@click.command()
@click.option(
    "--predictions-dir",
    "predictions_dirs",
    type=DIR,
    required=True,
    multiple=True,
    help="holds <reader>-st<N>/subtask<M>.csv; repeat it (one directory per seed) for mean and spread",
)
@click.option("--dev1", type=FILE, required=True)
@click.option("--dev2", type=FILE, required=True)
@click.option("--output", type=NEW_FILE, required=True)
def report(predictions_dirs, dev1, dev2, output):
    """Dev accuracy table: Subtask 1, Subtask 2 and the cross (Subtask 3) results, with the one scorer.

    With several ``--predictions-dir`` (runs that differ only in their seed) each cell is the mean,
    the sample standard deviation and the range over the runs that have that prediction file.
    """
    from baselines.report import report_text

    with user_errors():
        text = report_text(predictions_dirs=predictions_dirs, dev1=dev1, dev2=dev2)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    click.echo(text)
