"""``python -m bench [--only a,c,d]``: run the benchmarks of issue 3 and store their results."""

import sys
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import click

from bench.machine import machine_info
from bench.report import RESULTS_DIR, write_result, write_summary

ROOT = Path(__file__).resolve().parents[1]


def _default_data_dir() -> Path:
    for candidate in (ROOT / "data" / "recam", ROOT.parent / "shared" / "data" / "recam"):
        if (candidate / "test_data").is_dir():
            return candidate
    return ROOT / "data" / "recam"


def _bench_a(options: dict) -> dict:
    from bench.floor import run_floor

    return asdict(run_floor(data_dir=options["data_dir"], repeats=options["repeats"]))


def _bench_b(options: dict) -> dict:
    from bench.upload import run_upload

    return run_upload(data_dir=options["data_dir"])


def _bench_c(options: dict) -> dict:
    from bench.serve import run_serve

    return run_serve(seconds=options["seconds"])


def _bench_d(options: dict) -> dict:
    from bench.queries import run_queries

    return run_queries(data_dir=options["data_dir"])


# name -> (file stem, title, runner). Add a benchmark here and it joins `python -m bench`.
BENCHMARKS: dict[str, tuple[str, str, Callable[[dict], dict]]] = {
    "a": ("a_floor", "(a) Floor: parse + score one 2,025-line file in process", _bench_a),
    "b": ("b_upload", "(b) Upload to score visible through HTTP with a real worker", _bench_b),
    "c": ("c_leaderboard_rps", "(c) Leaderboard page requests/s from gunicorn, 200 teams x 10", _bench_c),
    "d": ("d_leaderboard_queries", "(d) Database queries per leaderboard page as teams grow", _bench_d),
}


@click.command()
@click.option("--only", default="a,b,c,d", show_default=True, help="Comma-separated benchmarks to run.")
@click.option("--data-dir", type=click.Path(path_type=Path), default=_default_data_dir, show_default=True)
@click.option("--out", type=click.Path(path_type=Path), default=RESULTS_DIR, show_default=True)
@click.option("--repeats", default=50, show_default=True, help="(a) repetitions.")
@click.option("--seconds", default=10.0, show_default=True, help="(c) length of the load loop.")
def main(only: str, data_dir: Path, out: Path, repeats: int, seconds: float) -> None:
    """Run the benchmarks; each writes results/<name>.json, then results/README.md is regenerated."""
    chosen = [name.strip() for name in only.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in BENCHMARKS]
    if unknown:
        raise click.ClickException(
            f"unknown benchmark(s) {', '.join(unknown)}: choose from {', '.join(BENCHMARKS)}"
        )
    options = {"data_dir": data_dir, "repeats": repeats, "seconds": seconds}
    command = "python -m bench " + " ".join(sys.argv[1:])
    failed = []
    for name in chosen:
        stem, title, runner = BENCHMARKS[name]
        click.echo(f"running {title} ...")
        try:
            result = runner(options)
        except NotImplementedError as exc:
            click.echo(f"  skipped: {exc}")
            continue
        except Exception as exc:  # one broken benchmark must not hide the others' figures
            click.echo(f"  FAILED: {type(exc).__name__}: {exc}", err=True)
            failed.append(name)
            continue
        path = write_result(
            name=stem,
            title=title,
            result=result,
            machine=machine_info(),
            command=command.strip(),
            out_dir=out,
        )
        click.echo(f"  {path}: " + ", ".join(f"{k}={v}" for k, v in result.items() if k != "rows"))
    click.echo(f"summary: {write_summary(out_dir=out)}")
    if failed:
        raise click.ClickException(f"benchmark(s) failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
