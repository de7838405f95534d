import json
from pathlib import Path

from click.testing import CliRunner

from baselines.cli import main
from recam.records import read_questions, write_questions
from recam.submission import parse_submission


def test_train_then_predict_writes_a_file_the_platform_accepts(tmp_path, trial_path, dev_path):
    train_file, dev_file = tmp_path / "train.jsonl", tmp_path / "dev.jsonl"
    write_questions(train_file, read_questions(trial_path)[:24], with_ids=False)
    dev = read_questions(dev_path)[:10]
    write_questions(dev_file, dev, with_ids=False)
    runner = CliRunner()
    model = tmp_path / "model"
    args = ["train", "--reader", "att", "--train", str(train_file), "--exclude", str(dev_file)]
    args += ["--output", str(model), "--epochs", "1", "--hidden", "8", "--max-length", "40", "--quiet"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert json.loads((model / "meta.json").read_text())["info"]["train_examples"] == 24
    out = tmp_path / "subtask1.csv"
    result = runner.invoke(
        main, ["predict", "--model", str(model), "--input", str(dev_file), "--output", str(out)]
    )
    assert result.exit_code == 0, result.output
    parsed = parse_submission(
        data=out.read_bytes(), filename="subtask1.csv", expected_ids={1: {q.id for q in dev}}
    )
    assert set(parsed.files[0].predictions) == {q.id for q in dev}
    result = runner.invoke(main, ["score", "--predictions", str(out), "--gold", str(dev_file)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.strip().splitlines()[-1])["total"] == 10


def test_train_reports_a_bad_input_file_by_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"article": "a"}\n', encoding="utf-8")
    result = CliRunner().invoke(
        main, ["train", "--reader", "ga", "--train", str(bad), "--output", str(tmp_path / "m")]
    )
    assert result.exit_code != 0
    assert "bad.jsonl:1" in result.output


def test_train_turns_an_encoder_input_error_into_a_usage_error(tmp_path, trial_path):
    # every training question is excluded: train_encoder raises ValueError, the CLI reports it cleanly
    train_file = tmp_path / "train.jsonl"
    write_questions(train_file, read_questions(trial_path)[:4], with_ids=False)
    args = ["train", "--reader", "encoder", "--train", str(train_file), "--exclude", str(train_file)]
    result = CliRunner().invoke(main, [*args, "--output", str(tmp_path / "m"), "--quiet"])
    assert result.exit_code == 1, result.output
    assert "Error: train_encoder: the training set is empty" in result.output
    assert not isinstance(result.exception, ValueError)


def test_report_over_several_seeds_gives_mean_sd_and_range(tmp_path, dev_path):
    dev = read_questions(dev_path)[:10]
    dev_file = tmp_path / "dev.jsonl"
    write_questions(dev_file, dev, with_ids=False)
    ids = [q.id for q in read_questions(dev_file)]
    gold = [q.label for q in read_questions(dev_file)]
    dirs = []
    for seed, right in (("s1", 2), ("s2", 4), ("s3", 6)):  # 20%, 40%, 60% on Subtask 1 dev
        run = tmp_path / seed / "ga-st1"
        run.mkdir(parents=True)
        labels = [g if i < right else (g + 1) % 5 for i, g in enumerate(gold)]
        (run / "subtask1.csv").write_text("".join(f"{i},{lab}\n" for i, lab in zip(ids, labels, strict=True)))
        dirs += ["--predictions-dir", str(tmp_path / seed)]
    out = tmp_path / "report.md"
    args = ["report", *dirs, "--dev1", str(dev_file), "--dev2", str(dev_file), "--output", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    row = next(line for line in out.read_text().splitlines() if line.startswith("| GA Reader"))
    assert row.split(" | ")[1] == "40.0 ± 20.0 [20.0-60.0]"
    assert "over 3 runs" in out.read_text()


def test_report_has_a_row_for_every_reader_make_baselines_runs(tmp_path, dev_path):
    """Every READERS name of scripts/baselines.sh (Gemma included) gets its row and its cross cells."""
    import re

    from baselines.report import NAMES

    script = (Path(__file__).resolve().parents[2] / "scripts" / "baselines.sh").read_text()
    readers = set(re.search(r"declare -A NAME=\((.*?)\)\n", script, re.S).group(1).split("[")[1:])
    readers = {r.split("]")[0] for r in readers}
    assert "gemma" in readers
    assert readers == set(NAMES)
    dev_file = tmp_path / "dev.jsonl"
    write_questions(dev_file, read_questions(dev_path)[:10], with_ids=False)
    gold = [(q.id, q.label) for q in read_questions(dev_file)]
    for run, right in (("gemma-st1", 7), ("gemma-st2", 3)):
        (tmp_path / "p" / run).mkdir(parents=True)
        for m in (1, 2):
            rows = [f"{i},{g if k < right else (g + 1) % 5}\n" for k, (i, g) in enumerate(gold)]
            (tmp_path / "p" / run / f"subtask{m}.csv").write_text("".join(rows))
    out = tmp_path / "report.md"
    args = [
        "report",
        "--predictions-dir",
        str(tmp_path / "p"),
        "--dev1",
        str(dev_file),
        "--dev2",
        str(dev_file),
    ]
    result = CliRunner().invoke(main, [*args, "--output", str(out)])
    assert result.exit_code == 0, result.output
    row = next(line for line in out.read_text().splitlines() if line.startswith("| Gemma 3 270M LM, LoRA"))
    assert row.split(" | ")[1:] == ["70.0", "30.0", "70.0", "30.0 |"]


def test_predict_with_several_models_averages_their_option_probabilities(tmp_path, trial_path, dev_path):
    from baselines.cli import ensemble_predictions, option_probabilities

    train_file, dev_file = tmp_path / "train.jsonl", tmp_path / "dev.jsonl"
    write_questions(train_file, read_questions(trial_path)[:24], with_ids=False)
    dev = read_questions(dev_path)[:12]
    write_questions(dev_file, dev, with_ids=False)
    dev = read_questions(dev_file)
    runner = CliRunner()
    models = []
    for seed in (1, 2):
        model = tmp_path / f"model-{seed}"
        args = ["train", "--reader", "att", "--train", str(train_file), "--output", str(model)]
        args += ["--epochs", "1", "--hidden", "8", "--max-length", "40", "--seed", str(seed), "--quiet"]
        result = runner.invoke(main, args)
        assert result.exit_code == 0, result.output
        models.append(model)
    probs = [option_probabilities(model=m, questions=dev) for m in models]
    for p in probs:
        assert p.shape == (12, 5)
        assert abs(float(p.sum(dim=1).mean()) - 1.0) < 1e-5
    assert not bool((probs[0] - probs[1]).abs().max() < 1e-6)  # the seeds differ
    expected = (probs[0] + probs[1]).argmax(dim=1).tolist()
    assert ensemble_predictions(models=tuple(models), questions=dev) == expected
    assert ensemble_predictions(models=(models[0],), questions=dev) == probs[0].argmax(dim=1).tolist()
    out = tmp_path / "subtask1.csv"
    args = ["predict", "--model", str(models[0]), "--model", str(models[1]), "--input", str(dev_file)]
    result = runner.invoke(main, [*args, "--output", str(out)])
    assert result.exit_code == 0, result.output
    parsed = parse_submission(
        data=out.read_bytes(), filename="subtask1.csv", expected_ids={1: {q.id for q in dev}}
    )
    assert [parsed.files[0].predictions[q.id] for q in dev] == expected
