"""``python -m datagen overlap``: drop XSum pairs whose article is in ReCAM files (thin: parse, run, report)."""

import json
from pathlib import Path

import click

from datagen.overlap import DEFAULT_MAX_SHARE, DEFAULT_N, OverlapIndex, split_by_overlap
from datagen.xsum import read_pairs
from recam.records import read_questions

FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


@click.command()
@click.option(
    "--input", "input_path", required=True, type=FILE, help="XSum-format jsonl: {id, document, summary}."
)
@click.option(
    "--against",
    "against_files",
    required=True,
    multiple=True,
    type=FILE,
    help="ReCAM jsonl whose articles must not be reused, e.g. the dev and test files (repeat the option).",
)
@click.option(
    "--output",
    "output_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The pairs kept (input lines verbatim); a report OUTPUT.overlap.json goes beside it.",
)
@click.option(
    "--n", "n", type=click.IntRange(min=1), default=DEFAULT_N, show_default=True, help="Words per shingle."
)
@click.option(
    "--max-share",
    type=click.FloatRange(0.0, 1.0),
    default=DEFAULT_MAX_SHARE,
    show_default=True,
    help="Drop a pair when at least this share of its article's shingles occur in an --against article.",
)
def overlap(input_path, against_files, output_path, n, max_share) -> None:
    """Drop pairs whose article shares word n-grams with the articles of ReCAM files."""
    if output_path.resolve() == input_path.resolve():
        raise click.ClickException(f"{output_path}: --output must differ from --input")
    index = OverlapIndex(n=n)
    try:
        for path in against_files:
            index.add((q.article for q in read_questions(path)), source=path.name)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    pairs, bad = read_pairs(path=input_path)
    for line in bad:
        click.echo(f"{input_path}:{line.line}: skipped: {line.message}", err=True)
    kept, dropped = split_by_overlap([p.document for p in pairs], index, max_share=max_share)
    lines = input_path.read_text(encoding="utf-8", errors="replace").splitlines()
    output_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = output_path.with_name(output_path.name + ".tmp")
    tmp.write_text("".join(lines[pairs[i].line - 1] + "\n" for i in kept), encoding="utf-8")
    tmp.replace(output_path)
    report = {
        "input": str(input_path),
        "against": [str(p) for p in against_files],
        "n": n,
        "max_share": max_share,
        "pairs": len(pairs),
        "bad_lines": len(bad),
        "kept": len(kept),
        "dropped": [
            {"id": pairs[i].id, "line": pairs[i].line, "share": round(o.share, 4), "source": o.source}
            for i, o in dropped
        ],
    }
    report_path = output_path.with_name(output_path.name + ".overlap.json")
    report_path.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    click.echo(
        f"kept {len(kept)} of {len(pairs)} pairs; dropped {len(dropped)} sharing >= {max_share:g} of their "
        f"{n}-grams with {len(against_files)} file(s); report {report_path}"
    )
