"""Render the committed benchmark results (bench/results/*.json) as the docs page docs/results/benchmarks.md.

``python -m bench.docs_table`` rewrites the page; ``python -m bench.docs_table --check`` exits 1 when the
page differs from what the JSON files give (a result committed without its page). The page is one
overview table (one row per result file, with its date, machine, load and command) and then each
result's figures, in the layout of bench/results/README.md.
"""

import json
import sys
from pathlib import Path

import click

from bench.report import RESULTS_DIR, _section

ROOT = Path(__file__).resolve().parents[1]
DOCS_PAGE = ROOT / "docs" / "results" / "benchmarks.md"
HEADER = [
    "# Benchmark results",
    "",
    "Generated from `bench/results/*.json` by `python -m bench.docs_table`; do not edit by hand. Each",
    "row is one measured run: the command, when it ran, the machine and its load average at the start",
    "(the project's machines are shared, so the load is part of the result). How the benchmarks work:",
    "[the benchmarks reference](../reference/benchmarks.md).",
    "",
]


def _date(measured_at: str) -> str:
    return measured_at[:16].replace("T", " ") + " UTC"


def _machine(machine: dict) -> str:
    return f"{machine['nproc']} x {machine['cpu_model']}, {machine['ram_gib']} GiB"


def overview(records: list[tuple[str, dict]]) -> list[str]:
    """One row per result file: file (linked), benchmark, measured, machine, load, command."""
    lines = [
        "| file | benchmark | measured | machine | load | command |",
        "|---|---|---|---|---|---|",
    ]
    for name, record in records:
        machine = record["machine"]
        lines.append(
            f"| [{name}](../../bench/results/{name}) | {record['title']} | {_date(record['measured_at'])} "
            f"| {_machine(machine)} | {machine.get('load_average_1m', '')} | `{record['command']}` |"
        )
    return lines


def render(records: list[tuple[str, dict]]) -> str:
    """The whole page for ``records`` (file name, parsed JSON), in the order given."""
    lines = [*HEADER, *overview(records), ""]
    for _, record in records:
        section = _section(record)
        section[0] = "#" + section[0]  # "## title" -> "### title": under the overview
        lines += section
    return "\n".join(lines).rstrip() + "\n"


def read_records(results_dir: Path = RESULTS_DIR) -> list[tuple[str, dict]]:
    return [(p.name, json.loads(p.read_text(encoding="utf-8"))) for p in sorted(results_dir.glob("*.json"))]


@click.command()
@click.option("--check", is_flag=True, help="Exit 1 if the page is not what the JSON files give.")
@click.option("--results-dir", type=click.Path(path_type=Path, file_okay=False), default=RESULTS_DIR)
@click.option("--page", type=click.Path(path_type=Path, dir_okay=False), default=DOCS_PAGE)
def main(check: bool, results_dir: Path, page: Path) -> None:
    """Write docs/results/benchmarks.md from bench/results/*.json."""
    text = render(read_records(results_dir))
    if check:
        if not page.exists() or page.read_text(encoding="utf-8") != text:
            click.echo(f"{page} is stale: run python -m bench.docs_table", err=True)
            sys.exit(1)
        click.echo(f"{page} is up to date")
        return
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(text, encoding="utf-8")
    click.echo(f"wrote {page}")


if __name__ == "__main__":
    main()
