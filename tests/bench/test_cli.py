"""``python -m bench``: runs the chosen benchmarks in their own process and writes their results."""

import json

from click.testing import CliRunner

from bench.__main__ import main


def test_bench_a_writes_json_and_summary(tmp_path, recam_data_dir):
    result = CliRunner().invoke(
        main, ["--only", "a", "--repeats", "2", "--data-dir", str(recam_data_dir), "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    record = json.loads((tmp_path / "a_floor.json").read_text())
    assert record["result"]["lines"] == 2025
    assert record["command"].startswith("python -m bench")
    assert "## (a) Floor" in (tmp_path / "README.md").read_text()


def test_unknown_benchmark_is_refused(tmp_path):
    result = CliRunner().invoke(main, ["--only", "z", "--out", str(tmp_path)])
    assert result.exit_code == 1
    assert "unknown benchmark(s) z: choose from a, b, c, d" in result.output
