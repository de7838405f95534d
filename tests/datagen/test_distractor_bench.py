"""Distractor benchmark metrics on constructed rankings, and the word-frequency row end to end."""

import json

import pytest
from click.testing import CliRunner

from datagen.cli_bench import distractors_bench
from datagen.distractor_bench import evaluate, fused, question_metrics, remembered, wordfreq_ranker
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
