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
    assert "unknown benchmark(s) z: choose from a, b, bs, c, d" in result.output


def test_summary_is_written_even_when_no_benchmark_wrote_the_out_dir(tmp_path):
    from bench.report import write_summary

    out = tmp_path / "fresh" / "results"
    path = write_summary(out_dir=out)
    assert path == out / "README.md"
    assert path.read_text(encoding="utf-8").startswith("# Benchmark results")


def test_bench_f_runs_to_the_end_on_the_cpu(recam_data_dir):
    """Regression: the float32 model was freed before the bfloat16 row, then read for the result."""
    from bench.lm_scoring import run_lm_scoring

    result = run_lm_scoring(data_dir=recam_data_dir, questions=2, batch_size=2, threads=1)
    assert result["device"] == "cpu"
    assert result["model"].startswith("SmolLM2")
    assert [row["dtype"] for row in result["rows"]] == ["float32", "float32", "float32", "bfloat16"]
    assert result["answers_identical_to_naive"] is True


def test_summary_keeps_the_hand_written_performance_notes(tmp_path):
    from bench.report import PERFORMANCE_NOTES, write_summary

    (tmp_path / PERFORMANCE_NOTES).write_text("## Performance\n\nbefore / after rows\n", encoding="utf-8")
    text = write_summary(out_dir=tmp_path).read_text(encoding="utf-8")
    assert text.startswith("# Benchmark results")
    assert "## Performance\n\nbefore / after rows" in text
