"""Retrieval metrics, report tables, and a real 2-fold option run with tiny readers on ReCAM dev records."""

import json
import shutil

import pytest
import torch
from click.testing import CliRunner

from datagen.cli.options import options
from datagen.options.build import assign_folds, check_question, read_candidates
from datagen.options.retrieval import metrics_table, retrieval_metrics
from datagen.options.stats import size_table
from lexicon.resources import wordnet as load_wordnet
from recam.records import read_questions


def test_retrieval_metrics_on_hand_checked_ranks():
    metrics = retrieval_metrics(gold_ranks=[1, 2, 4, 5, 10, 11, None, 1])
    assert metrics["MRR"] == pytest.approx((1 + 1 / 2 + 1 / 4 + 1 / 5 + 1 / 10 + 1 / 11 + 0 + 1) / 8)
    assert metrics["R@1"] == 2 / 8
    assert metrics["R@5"] == 5 / 8
    assert metrics["R@10"] == 6 / 8


def test_retrieval_metrics_reject_bad_input():
    with pytest.raises(ValueError, match="no rankings"):
        retrieval_metrics(gold_ranks=[])
    with pytest.raises(ValueError, match="1-based"):
        retrieval_metrics(gold_ranks=[0, 3])


def test_tables_follow_the_paper_layout():
    table = metrics_table(
        rows={
            "ga": {"MRR": 0.2451, "R@1": 0.175, "R@5": 0.314, "R@10": 0.378},
            "att-gloss": dict.fromkeys(("MRR", "R@1", "R@5", "R@10"), 0.5),
        }
    )
    lines = table.splitlines()
    assert lines[0] == "| | MRR | R@1 | R@5 | R@10 |"
    assert lines[2] == "| GAReader | 0.245 | 0.175 | 0.314 | 0.378 |"
    assert lines[3].startswith("| +gloss | 0.500")
    sizes = size_table(counts={"Train": {"1": 3227, "2": 3318}, "Dev": {"1": 837, "2": 851}})
    assert sizes.splitlines()[0] == "| Dataset | Subtask 1 | Subtask 2 | Total |"
    assert sizes.splitlines()[2] == "| Train | 3,227 | 3,318 | 6,545 |"


TINY = ["--folds", "2", "--epochs", "1", "--hidden", "8", "--hops", "1", "--batch-size", "16"]
TINY += ["--ranker", "readers", "--no-gate"]  # the paper path (the default adds the LM ranker and gate)


@pytest.fixture(scope="module")
def dev_candidates(recam_data_dir, tmp_path_factory):
    """A candidate file from real ReCAM dev records: the answer is the gold option word."""
    questions = read_questions(recam_data_dir / "training_data" / "Task_1_dev.jsonl")[:24]
    path = tmp_path_factory.mktemp("candidates") / "candidates.jsonl"
    with path.open("w") as handle:
        for q in questions:
            record = {"id": q.id, "article": q.article, "question": q.question, "answer": q.answer}
            handle.write(json.dumps({**record, "subtask": 1, "scores": {}}) + "\n")
    return path


@pytest.fixture(scope="module")
def two_fold_run(dev_candidates, tmp_path_factory):
    """One real 2-fold run of the three tiny readers through the CLI (shared: training is the slow part)."""
    out = tmp_path_factory.mktemp("run")
    args = ["--candidates", str(dev_candidates), "--output", str(out / "recam.jsonl"), "--work-dir"]
    args += [str(out / "work"), *TINY]
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # a shared 2-core machine: more threads only contend
    try:
        result = CliRunner().invoke(options, args, catch_exceptions=False)
    finally:
        torch.set_num_threads(before)
    assert result.exit_code == 0, result.output
    return out, args


def test_two_fold_run_writes_a_checked_recam_file(two_fold_run, dev_candidates):
    out, _ = two_fold_run
    written = read_questions(out / "recam.jsonl", require_labels=True)
    candidates = {c.id: c for c in read_candidates(dev_candidates)}
    report = json.loads((out / "recam.report.json").read_text())
    dropped = sum(report["drops"].values())
    assert len(written) + dropped == len(candidates)
    assert len(written) >= len(candidates) // 2
    wordnet = load_wordnet()
    for question in written:
        assert question.answer == candidates[question.id].answer
        assert question.question == candidates[question.id].question
        assert check_question(question=question, gold=question.answer, wordnet=wordnet) == []
    assert set(report["retrieval"]["1"]) == {"ga", "att", "att-gloss"}
    for metrics in report["retrieval"]["1"].values():
        assert 0 < metrics["MRR"] <= 1
        assert metrics["R@1"] <= metrics["R@5"] <= metrics["R@10"]
    markdown = (out / "recam.report.md").read_text()
    assert "| GAReader |" in markdown
    assert "| Questions |" in markdown


def test_a_rerun_resumes_without_training(two_fold_run, monkeypatch):
    out, args = two_fold_run

    def no_training(**_kwargs):
        raise AssertionError("a finished fold was trained again")

    monkeypatch.setattr("baselines.training.train_reader", no_training)
    first = (out / "recam.jsonl").read_text()
    result = CliRunner().invoke(options, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert (out / "recam.jsonl").read_text() == first


def test_a_work_dir_from_other_inputs_is_refused(two_fold_run, tmp_path):
    out, args = two_fold_run
    shutil.copytree(out / "work", tmp_path / "work")
    args = [*args, "--seed", "14"]
    args[args.index(str(out / "work"))] = str(tmp_path / "work")
    args[args.index(str(out / "recam.jsonl"))] = str(tmp_path / "b.jsonl")
    changed = CliRunner().invoke(options, args)
    assert changed.exit_code != 0
    assert "holds a result for other inputs" in changed.output
    assert not (tmp_path / "b.jsonl").exists()


def test_fold_task_runs_a_planned_fold_on_the_gpu_queue(two_fold_run, dev_candidates, monkeypatch):
    from dataclasses import replace

    from datagen.cli import celery_client
    from datagen.cli.celery_client import OPTIONS_TRAIN_FOLD, options_queue
    from tasks.options import options_train_fold

    out, _ = two_fold_run
    kwargs = {"work_dir": str(out / "work"), "subtask": "1", "reader": "att", "fold": 1}
    result = options_train_fold.apply(kwargs=kwargs)
    folds = assign_folds(candidates=read_candidates(dev_candidates), folds=2, seed=13)
    held_out = sum(1 for fold in folds.values() if fold == 1)
    assert result.get() == {"subtask": "1", "reader": "att", "fold": 1, "questions": held_out}
    assert options_train_fold.name == OPTIONS_TRAIN_FOLD  # the name the CLI sends
    monkeypatch.setattr(celery_client, "settings", replace(celery_client.settings, CELERY_GPU_QUEUE="gpu"))
    assert options_queue() == "gpu"
    cpu_only = replace(celery_client.settings, CELERY_GPU_QUEUE="", CELERY_CPU_QUEUE="cpu")
    monkeypatch.setattr(celery_client, "settings", cpu_only)
    assert options_queue() == "cpu"


def test_bad_candidates_are_reported_with_file_and_line(tmp_path):
    path = tmp_path / "candidates.jsonl"
    path.write_text('{"article": "A.", "question": "no placeholder", "answer": "w"}\n')
    result = CliRunner().invoke(options, ["--candidates", str(path), "--output", str(tmp_path / "o.jsonl")])
    assert result.exit_code != 0
    assert "candidates.jsonl:1: the question must contain @placeholder" in result.output


def test_extra_training_questions_join_every_fold_but_not_the_ranking(
    two_fold_run, dev_candidates, recam_data_dir, tmp_path
):
    """``--extra-train``: labelled ReCAM questions train every fold; a question on a candidate's article
    is left out; the held-out questions are still ranked over the candidate set alone."""
    from datagen.options.retrieval import candidate_set, extra_training, read_plan

    dev = read_questions(recam_data_dir / "training_data" / "Task_1_dev.jsonl")
    candidates = read_candidates(dev_candidates)
    extra_path = tmp_path / "extra.jsonl"
    # 30 other dev questions, and the first candidate's own record (its article: must be left out)
    with extra_path.open("w") as handle:
        for q in [*dev[24:54], dev[0]]:
            handle.write(json.dumps(q.to_json()) + "\n")
    out, args = two_fold_run
    args = [*args, "--extra-train", str(extra_path)]
    args[args.index(str(out / "work"))] = str(tmp_path / "work")
    args[args.index(str(out / "recam.jsonl"))] = str(tmp_path / "x.jsonl")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        result = CliRunner().invoke(options, args, catch_exceptions=False)
    finally:
        torch.set_num_threads(before)
    assert result.exit_code == 0, result.output
    plan = read_plan(work_dir=tmp_path / "work")
    assert plan.extra_train == (str(extra_path.resolve()),)
    extra = extra_training(plan=plan, group=candidates)
    assert len(extra) == 30  # dev[0] shares its article with the first candidate
    assert all(c.article != candidates[0].article for c in extra)
    words = set(candidate_set(candidates))
    assert {c.answer for c in extra} - words  # the extra answers are new words to the readers ...
    meta = json.loads((tmp_path / "work" / "subtask1" / "ga-fold0" / "model" / "DONE").read_text())
    assert "extra_sha256" in meta
    for line in (tmp_path / "work" / "subtask1" / "ga-fold0" / "rankings.jsonl").read_text().splitlines():
        ranked = json.loads(line)
        assert set(ranked["top"]) <= words  # ... but the held-out questions are ranked over the candidates
    report = json.loads((tmp_path / "x.report.json").read_text())
    assert report["provenance"]["plan"]["extra_train"] == [str(extra_path.resolve())]


def test_extra_training_data_must_be_labelled(dev_candidates, recam_data_dir, tmp_path):
    test_file = tmp_path / "Task_1_test.jsonl"
    lines = (recam_data_dir / "test_data" / "Task_1_test.jsonl").read_text().splitlines()[:3]
    test_file.write_text("\n".join(lines) + "\n")
    args = ["--candidates", str(dev_candidates), "--output", str(tmp_path / "o.jsonl"), *TINY]
    result = CliRunner().invoke(options, [*args, "--extra-train", str(test_file)])
    assert result.exit_code != 0
    assert f"{test_file}, line 1: no label" in result.output
    assert not (tmp_path / "o.jsonl").exists()
