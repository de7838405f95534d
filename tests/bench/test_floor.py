"""The floor benchmark (a) does the real parse + score and reports the machine it ran on."""

import doctest
import json

import bench.floor
from bench.floor import make_floor_input, percentile, run_floor
from bench.machine import machine_info
from bench.report import write_result, write_summary


def test_floor_input_is_the_test_set_ids_with_seeded_labels(recam_data_dir):
    upload, gold, ids = make_floor_input(data_dir=recam_data_dir, seed=13)
    again, _, _ = make_floor_input(data_dir=recam_data_dir, seed=13)
    other, _, _ = make_floor_input(data_dir=recam_data_dir, seed=14)
    test_ids = {
        json.loads(line)["id"] for line in (recam_data_dir / "test_data" / "Task_1_test.jsonl").open()
    }
    assert ids == test_ids == set(gold)
    assert len(ids) == 2025
    assert upload == again
    assert upload != other


def test_floor_accuracy_equals_an_independent_count(recam_data_dir):
    import io
    import zipfile

    result = run_floor(data_dir=recam_data_dir, seed=13, repeats=2)
    upload, gold, _ = make_floor_input(data_dir=recam_data_dir, seed=13)
    lines = zipfile.ZipFile(io.BytesIO(upload)).read("subtask1.csv").decode().split()
    correct = sum(gold[int(qid)] == int(label) for qid, label in (line.split(",") for line in lines))
    assert result.lines == 2025
    assert result.repeats == 2
    assert result.accuracy == round(correct / 2025, 4)
    assert 0 < result.total_ms_min <= result.total_ms_median <= result.total_ms_p95


def test_percentile_doctest_and_edges():
    assert doctest.testmod(bench.floor).failed == 0
    assert percentile([7.0], 95) == 7.0
    assert percentile([float(i) for i in range(1, 101)], 95) == 95.0


def test_results_carry_the_machine_and_the_command(tmp_path):
    machine = machine_info()
    assert machine["nproc"] >= 1
    assert machine["cpu_model"]
    assert machine["packages"]["django"] != "not installed"
    path = write_result(
        name="a_floor",
        title="(a) t",
        result={"total_ms_median": 1.5, "rows": [{"x": 1}]},
        machine=machine,
        command="python -m bench --only a",
        out_dir=tmp_path,
    )
    record = json.loads(path.read_text())
    assert record["command"] == "python -m bench --only a"
    assert record["machine"]["python"] == machine["python"]
    summary = write_summary(out_dir=tmp_path).read_text()
    assert "| total_ms_median | 1.5 |" in summary
    assert "| x |" in summary
