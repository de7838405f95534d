"""``python -m bench [--only a,b,c,d,e,f]``: run the benchmarks and store their results (bs: (b) on SQLite, e: analytics, f: the LM scorer, g: the gate's word scores, h: the gate's scoring window, i: a small upload of millions of lines, j: statistics CPU per score change, k: torch threads beside a busy process, l: CPU per upload by component)."""

import sys
from pathlib import Path

import click

from bench.docs_table import DOCS_PAGE, read_records, render
from bench.machine import machine_info
from bench.report import RESULTS_DIR, write_result, write_summary
from bench.runners import BENCHMARKS, run_isolated

ROOT = Path(__file__).resolve().parents[1]


def _default_data_dir() -> Path:
    for candidate in (ROOT / "data" / "recam", ROOT.parent / "shared" / "data" / "recam"):
        if (candidate / "test_data").is_dir():
            return candidate
    return ROOT / "data" / "recam"


@click.command()
@click.option("--only", default="a,b,c,d", show_default=True, help="Comma-separated benchmarks to run.")
@click.option("--data-dir", type=click.Path(path_type=Path), default=_default_data_dir, show_default=True)
@click.option("--out", type=click.Path(path_type=Path), default=RESULTS_DIR, show_default=True)
@click.option("--repeats", default=50, show_default=True, help="(a) repetitions.")
@click.option("--seconds", default=10.0, show_default=True, help="(c) length of each load loop.")
@click.option("--lm-questions", default=12, show_default=True, help="(e) dev questions scored each way.")
def main(only: str, data_dir: Path, out: Path, repeats: int, seconds: float, lm_questions: int) -> None:
    """Run the benchmarks; each writes results/<name>.json, then results/README.md is regenerated."""
    chosen = [name.strip() for name in only.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in BENCHMARKS]
    if unknown:
        raise click.ClickException(
            f"unknown benchmark(s) {', '.join(unknown)}: choose from {', '.join(BENCHMARKS)}"
        )
    options = {"data_dir": data_dir, "repeats": repeats, "seconds": seconds, "lm_questions": lm_questions}
    command = " ".join(["python -m bench", *sys.argv[1:]])
    failed = []
    for name in chosen:
        stem, title, _ = BENCHMARKS[name]
        click.echo(f"running {title} ...")
        machine = machine_info()  # the load average before the run
        try:
            result = run_isolated(name, options)
        except NotImplementedError as exc:
            click.echo(f"  skipped: {exc}")
            continue
        except Exception as exc:  # one broken benchmark must not hide the others' figures
            click.echo(f"  FAILED: {type(exc).__name__}: {exc}", err=True)
            failed.append(name)
            continue
        path = write_result(
            name=stem, title=title, result=result, machine=machine, command=command, out_dir=out
        )
        click.echo(f"  {path}: " + ", ".join(f"{k}={v}" for k, v in result.items() if k != "rows"))
    click.echo(f"summary: {write_summary(out_dir=out)}")
    if out.resolve() == RESULTS_DIR.resolve():  # the committed results: keep their docs page in step
        DOCS_PAGE.write_text(render(read_records(out)), encoding="utf-8")
        click.echo(f"records page: {DOCS_PAGE}")
    if failed:
        raise click.ClickException(f"benchmark(s) failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
