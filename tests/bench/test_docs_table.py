"""``python -m bench.docs_table``: the benchmark records page is rendered from the committed JSON."""

import json

from click.testing import CliRunner

from bench.docs_table import DOCS_PAGE, main, read_records, render

RECORD = {
    "benchmark": "a_floor",
    "title": "(a) Floor: parse + score one 2,025-line file in process",
    "measured_at": "2026-11-22T00:03:56+00:00",
    "command": "python -m bench --only a",
    "machine": {
        "nproc": 2,
        "cpu_model": "Test CPU",
        "ram_gib": 23.6,
        "python": "3.11.7",
        "packages": {},
        "load_average_1m": 1.11,
    },
    "result": {"total_ms_median": 3.555, "rows": [{"teams": 10, "queries": 1}]},
}


def test_render_gives_one_overview_row_and_the_figures_per_record():
    page = render([("a_floor.json", RECORD)])
    assert page.startswith("# Benchmark results\n")
    row = (
        "| [a_floor.json](../../bench/results/a_floor.json) | (a) Floor: parse + score one 2,025-line file "
        "in process | 2026-11-22 00:03 UTC | 2 x Test CPU, 23.6 GiB | 1.11 | `python -m bench --only a` |"
    )
    assert row in page.splitlines()
    assert "### (a) Floor: parse + score one 2,025-line file in process" in page
    assert "| total_ms_median | 3.555 |" in page
    assert "| 10 | 1 |" in page


def test_check_fails_on_a_stale_page_and_passes_after_writing(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    (results / "a_floor.json").write_text(json.dumps(RECORD), encoding="utf-8")
    page = tmp_path / "benchmarks.md"
    page.write_text("# old\n", encoding="utf-8")
    args = ["--results-dir", str(results), "--page", str(page)]
    stale = CliRunner().invoke(main, [*args, "--check"])
    assert stale.exit_code == 1
    assert "is stale: run python -m bench.docs_table" in stale.output
    assert CliRunner().invoke(main, args).exit_code == 0
    fresh = CliRunner().invoke(main, [*args, "--check"])
    assert fresh.exit_code == 0, fresh.output


def test_the_committed_page_matches_the_committed_results():
    assert DOCS_PAGE.read_text(encoding="utf-8") == render(read_records()), (
        "docs/results/benchmarks.md is stale: run python -m bench.docs_table"
    )
