"""Distractor benchmark metrics on constructed rankings, and the word-frequency row end to end."""

import json

import pytest
from click.testing import CliRunner

from datagen.cli.bench import distractors_bench
from datagen.quality.distractor_bench import (
    cached,
    evaluate,
    fused,
    pooled,
    question_metrics,
    remembered,
    wordfreq_ranker,
)
from recam.records import Question


def test_metrics_on_constructed_rankings():
    relevant = {"a", "b", "c", "d"}
    perfect = question_metrics(ranked=["a", "b", "c", "d", "x"], relevant=relevant)
    assert perfect == {"P@1": 1.0, "F1@3": pytest.approx(2 * 1 * 0.75 / 1.75), "MRR": 1.0, "NDCG@10": 1.0}
    late = question_metrics(ranked=["x", "y", "a", "z"], relevant=relevant)
    assert late["P@1"] == 0.0
    assert late["MRR"] == pytest.approx(1 / 3)
    assert late["F1@3"] == pytest.approx(2 * (1 / 3) * (1 / 4) / (1 / 3 + 1 / 4))
    ideal = sum(1 / __import__("math").log2(i + 2) for i in range(4))
    assert late["NDCG@10"] == pytest.approx((1 / 2) / ideal)
    assert question_metrics(ranked=["x"], relevant=relevant)["MRR"] == 0.0


def test_fusion_and_evaluate():
    question = Question(
        id=0, article="x", question="@placeholder", options=("the", "of", "zyx", "and", "qqq"), label=2
    )
    vocab = ["the", "of", "and", "qqq", "zzzword"]
    row = evaluate(questions=[question], ranker=wordfreq_ranker, vocab=vocab)
    assert row["P@1"] == 100.0
    assert row["questions"] == 1
    reverse = lambda q, v: list(reversed(wordfreq_ranker(q, v)))  # noqa: E731
    assert fused(wordfreq_ranker, reverse)(question, vocab) != []


def test_cli_word_frequency_row(tmp_path):
    path = tmp_path / "in.jsonl"
    records = [
        {
            "article": "a",
            "question": "q @placeholder",
            "label": 0,
            **{f"option_{i}": w for i, w in enumerate(ws)},
        }
        for ws in (["gold", "the", "of", "and", "to"], ["other", "in", "is", "it", "zyxq"])
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "bench.json"
    result = CliRunner().invoke(
        distractors_bench, ["--input", str(path), "--rankers", "wordfreq", "--output", str(out)]
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(out.read_text())["rows"]
    assert rows["wordfreq"]["P@1"] == 50.0  # question 2: "the" (of question 1) outranks its "in"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(path.read_text() + "{oops\n")
    result = CliRunner().invoke(distractors_bench, ["--input", str(bad), "--rankers", "wordfreq"])
    assert result.exit_code != 0
    assert "bad.jsonl:3" in result.output


def test_a_remembered_ranker_runs_once_per_question_for_the_lm_and_fused_rows():
    calls = []

    def slow(question, vocab):
        calls.append(question.id)
        return sorted(vocab, reverse=True)

    ranker = remembered(slow)
    question = Question(
        id=7, article="x", question="@placeholder", options=("a", "b", "c", "d", "e"), label=0
    )
    vocab = ["b", "c", "d", "e"]
    first = evaluate(questions=[question], ranker=ranker, vocab=vocab)
    second = evaluate(questions=[question], ranker=fused(wordfreq_ranker, ranker), vocab=vocab)
    assert calls == [7]  # the fused row reused the first row's ranking
    assert first["MRR"] == 100.0  # "e" first: a real distractor
    assert second["questions"] == 1


def test_a_pool_takes_each_rankers_top_words_by_agreement_then_fuses_the_rest():
    question = Question(
        id=1, article="x", question="@placeholder", options=("a", "b", "c", "d", "e"), label=0
    )
    vocab = ["p", "q", "r", "s", "t", "u"]
    first = lambda q, v: ["p", "q", "r", "s", "t", "u"]  # noqa: E731
    second = lambda q, v: ["r", "s", "p", "u", "t", "q"]  # noqa: E731
    ranking = pooled(first, second, top=2)(question, vocab)
    # pool: the top 2 of each (p q / r s), none proposed twice, so by best rank (p r 1, q s 2);
    # then the rest by reciprocal-rank fusion: u (4 + 4) before t (5 + 5)
    assert ranking == ["p", "r", "q", "s", "u", "t"]
    agreed = pooled(first, lambda q, v: ["q", "u", "p", "r", "s", "t"], top=2)(question, vocab)
    assert agreed[0] == "q"  # proposed by both rankers: first, whatever its rank
    assert sorted(agreed) == sorted(vocab)


def test_cached_rankings_are_read_back_and_keyed_by_what_the_ranker_sees(tmp_path):
    calls = []

    def slow(question, vocab):
        calls.append(question.id)
        return sorted(vocab)

    path = tmp_path / "rankings.jsonl"
    q1 = Question(id=1, article="x", question="a @placeholder", options=("a", "b", "c", "d", "e"), label=0)
    q2 = Question(id=1, article="y", question="a @placeholder", options=("a", "b", "c", "d", "e"), label=0)
    vocab = ["b", "c"]
    assert cached(slow, path=path, identity={"m": 1})(q1, vocab) == ["b", "c"]
    again = cached(slow, path=path, identity={"m": 1})
    assert again(q1, vocab) == ["b", "c"]
    assert calls == [1]  # read back by a new process's ranker
    again(q2, vocab)  # another article: scored anew
    cached(slow, path=path, identity={"m": 2})(q1, vocab)  # another ranker identity: scored anew
    assert calls == [1, 1, 1]
    with path.open("a") as handle:  # a stopped run's partial last line
        handle.write('{"key": "abc", "ran')
    resumed = cached(slow, path=path, identity={"m": 3})
    resumed(q1, vocab)
    assert cached(slow, path=path, identity={"m": 3})(q1, vocab) == ["b", "c"]
    assert calls == [1, 1, 1, 1]  # the record after the partial line was written whole and read back


def _head(source, path, n, *, drop_label=False):
    lines = source.read_text(encoding="utf-8").splitlines()[:n]
    if drop_label:
        lines = [json.dumps({k: v for k, v in json.loads(line).items() if k != "label"}) for line in lines]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


TINY_READER = ["--epochs", "1", "--hidden", "8", "--hops", "1", "--batch-size", "16"]


def test_reader_rows_train_on_other_recam_questions_and_are_reused(recam_data_dir, tmp_path, monkeypatch):
    import torch

    dev = _head(recam_data_dir / "training_data" / "Task_1_dev.jsonl", tmp_path / "dev.jsonl", 10)
    trial = recam_data_dir / "trail_data" / "Task_1_Imperceptibility.jsonl"
    train = tmp_path / "train.jsonl"  # 30 trial questions and 2 of dev's own: those 2 must be left out
    train.write_text(
        _head(trial, tmp_path / "t.jsonl", 30).read_text() + _head(dev, tmp_path / "d.jsonl", 2).read_text()
    )
    out = tmp_path / "bench.json"
    args = ["--input", str(dev), "--reader-train", str(train), "--work-dir", str(tmp_path / "work")]
    args += ["--rankers", "ga,att,att-gloss,readers,wordfreq", "--output", str(out), *TINY_READER]
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        result = CliRunner().invoke(distractors_bench, args, catch_exceptions=False)
    finally:
        torch.set_num_threads(before)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["reader_train"][str(train)] == {"kept": 30, "dropped": 2}
    assert set(data["rows"]) == {"ga", "att", "att-gloss", "readers", "wordfreq"}
    for row in data["rows"].values():
        assert row["questions"] == 10
        assert 0 <= row["MRR"] <= 100
    for reader in ("ga", "att", "att-gloss"):
        assert (tmp_path / "work" / "readers" / reader / "model" / "DONE").is_file()
        meta = json.loads((tmp_path / "work" / "readers" / reader / "model" / "meta.json").read_text())
        assert (meta["config"]["hidden"], meta["config"]["epochs"]) == (8, 1)  # the CLI's settings

    def no_training(**_kwargs):
        raise AssertionError("a trained reader was trained again")

    monkeypatch.setattr("baselines.training.train_reader", no_training)
    again = CliRunner().invoke(distractors_bench, args, catch_exceptions=False)
    assert again.exit_code == 0, again.output
    assert json.loads(out.read_text())["rows"] == data["rows"]  # the same readers, the same rankings
    other = [*args[:3], str(_head(trial, tmp_path / "t2.jsonl", 20)), *args[4:]]
    refused = CliRunner().invoke(distractors_bench, other)
    assert refused.exit_code != 0
    assert "trained on other inputs" in refused.output


def test_reader_rows_need_labelled_training_data(recam_data_dir, tmp_path):
    dev = _head(recam_data_dir / "training_data" / "Task_1_dev.jsonl", tmp_path / "dev.jsonl", 5)
    result = CliRunner().invoke(distractors_bench, ["--input", str(dev), "--rankers", "both"])
    assert result.exit_code != 0
    assert "need --reader-train" in result.output
    trial = recam_data_dir / "trail_data" / "Task_1_Imperceptibility.jsonl"
    unlabelled = _head(trial, tmp_path / "unlabelled.jsonl", 3, drop_label=True)
    args = ["--input", str(dev), "--rankers", "ga", "--reader-train", str(unlabelled), *TINY_READER]
    result = CliRunner().invoke(distractors_bench, [*args, "--work-dir", str(tmp_path / "w")])
    assert result.exit_code != 0
    assert "unlabelled.jsonl" in result.output
    assert "no 'label' (first at line 1," in result.output
