"""``datagen options --ranker lm`` with and without the gate, on a tiny random LM and real dev records."""

import json

import pytest
from click.testing import CliRunner

from datagen.cli.options import options
from datagen.options.build import check_question
from datagen.options.lm_words import VERSION, WINDOW
from lexicon.resources import wordnet as load_wordnet
from recam.records import read_questions


@pytest.fixture(scope="module")
def candidates(recam_data_dir, tmp_path_factory):
    """24 ReCAM Subtask 2 dev records as candidate questions (answer: the gold option)."""
    questions = read_questions(recam_data_dir / "training_data" / "Task_2_dev.jsonl")[:24]
    path = tmp_path_factory.mktemp("candidates") / "candidates.jsonl"
    with path.open("w") as handle:
        for q in questions:
            record = {"id": q.id, "article": q.article, "question": q.question, "answer": q.answer}
            handle.write(json.dumps({**record, "subtask": 2}) + "\n")
    return path


@pytest.mark.parametrize("gate", ["--gate", "--no-gate"])
def test_lm_ranker_path_writes_checked_questions_and_a_funnel(candidates, tiny_lm, tmp_path, gate):
    output = tmp_path / "out.jsonl"
    args = ["--candidates", str(candidates), "--output", str(output), "--work-dir", str(tmp_path / "work")]
    args += ["--folds", "2", "--ranker", "lm", "--lm-model", str(tiny_lm), "--lm-top", "30", gate]
    args += ["--gate-lm2", str(tiny_lm)]  # gate version 4 with the same tiny LM as the second (fast)
    args += ["--gate-version", "4", "--per-summary", "all"]
    result = CliRunner().invoke(options, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(output.with_name("out.report.json").read_text())
    written = read_questions(output) if output.stat().st_size else []
    assert len(written) + sum(report["drops"].values()) == 24
    wordnet = load_wordnet()
    sources = {json.loads(line)["id"]: json.loads(line) for line in output.read_text().splitlines()}
    for question in written:
        assert check_question(question=question, gold=question.answer, wordnet=wordnet) == []
        assert sources[question.id]["source_id"] is not None
    assert "lm" in report["retrieval"]["2"]
    assert report["provenance"]["options"]["gate"] is (gate == "--gate")
    assert report["provenance"]["options"]["lm_window"] == WINDOW  # the default scoring window
    assert report["provenance"]["options"]["lm_scoring"] == VERSION
    cached = [json.loads(line) for line in (tmp_path / "work" / "gate-scores.jsonl").read_text().splitlines()]
    assert cached
    assert all(record["key"] for record in cached)
    if gate == "--gate":
        why = [json.loads(line) for line in output.with_suffix(".why.jsonl").read_text().splitlines()]
        assert len(why) == len(written)
        assert report["provenance"]["options"]["gate_min_rank"] == 2
        assert report["provenance"]["options"]["gate_version"] == "gate-4"
        assert report["provenance"]["options"]["gate_second_lm"] == str(tiny_lm.resolve())
        assert list((tmp_path / "work").glob("gate-scores2-*.jsonl"))  # the second LM's cache
        for entry in why:
            assert len(entry["options"]) == 4
            for reason in entry["options"].values():
                assert reason["rule"] == "gate"
                assert reason["gold_rank"] >= 2  # never the options-only LM's favourite (gate version 3)
                assert reason["pmi_margin"] > 0  # the article moves the LM towards the gold
                if reason["side"] == "below":  # ... so the article-aware LM prefers the gold
                    assert reason["article_margin"] > 0
                assert reason["second_pmi_margin"] > 0  # and the second LM agrees (version 4)
                if reason["side"] == "above":  # both LMs prefer it to the gold without the article
                    assert reason["gaps"]["lm"] < 0
                    assert reason["gaps"]["lm2"] < 0
    # resumable: the LM rankings are read back, the output is the same
    again = CliRunner().invoke(options, [*args[:3], str(tmp_path / "again.jsonl"), *args[4:]])
    assert again.exit_code == 0, again.output
    assert (tmp_path / "again.jsonl").read_text() == output.read_text()


@pytest.mark.parametrize(("value", "message"), [("-1", "0 or more"), ("four", "neither a count")])
def test_a_bad_window_is_a_usage_error_naming_the_value(candidates, tmp_path, value, message):
    output = tmp_path / "out.jsonl"
    args = ["--candidates", str(candidates), "--output", str(output), "--lm-window", value]
    result = CliRunner().invoke(options, args)
    assert result.exit_code == 2
    assert message in result.output
    assert "--lm-window" in result.output
    assert not output.exists()


def test_window_all_scores_to_the_end_of_the_summary_and_is_recorded(candidates, tiny_lm, tmp_path):
    output = tmp_path / "out.jsonl"
    args = ["--candidates", str(candidates), "--output", str(output), "--work-dir", str(tmp_path / "work")]
    args += ["--folds", "2", "--ranker", "lm", "--lm-model", str(tiny_lm), "--lm-top", "30"]
    args += ["--gate-lm2", "none", "--lm-window", "all", "--limit", "4"]
    result = CliRunner().invoke(options, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(output.with_name("out.report.json").read_text())
    assert report["provenance"]["options"]["lm_window"] is None


def test_gate_version_3_without_a_second_lm_and_a_missing_second_lm_is_a_usage_error(
    candidates, tiny_lm, tmp_path
):
    output = tmp_path / "out.jsonl"
    args = ["--candidates", str(candidates), "--output", str(output), "--work-dir", str(tmp_path / "work")]
    args += ["--folds", "2", "--ranker", "lm", "--lm-model", str(tiny_lm), "--lm-top", "30"]
    missing = CliRunner().invoke(options, [*args, "--gate-lm2", str(tmp_path / "nothing.gguf")])
    assert missing.exit_code == 2
    assert "no model at" in missing.output
    assert "--gate-lm2 none" in missing.output
    assert not output.exists()
    result = CliRunner().invoke(
        options, [*args, "--gate-lm2", "none", "--gate-version", "4"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    report = json.loads(output.with_name("out.report.json").read_text())
    assert report["provenance"]["options"]["gate_version"] == "gate-3"
    assert not list((tmp_path / "work").glob("gate-scores2-*.jsonl"))
    for line in output.with_suffix(".why.jsonl").read_text().splitlines():
        assert all("second_pmi_margin" not in r for r in json.loads(line)["options"].values())


@pytest.mark.parametrize("gate", ["--gate", "--no-gate"])
def test_gate_version_5_one_question_per_summary_and_explain_the_yield(candidates, tiny_lm, tmp_path, gate):
    from datagen.options.validity import form_problem
    from recam.siblings import sibling_leaks

    output = tmp_path / "out.jsonl"
    args = ["--candidates", str(candidates), "--output", str(output), "--work-dir", str(tmp_path / "work")]
    args += ["--folds", "2", "--ranker", "lm", "--lm-model", str(tiny_lm), "--lm-top", "30", gate]
    args += ["--gate-lm2", str(tiny_lm)]  # the default gate version: 5
    result = CliRunner().invoke(options, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(output.with_name("out.report.json").read_text())
    assert report["provenance"]["options"]["per_summary"] == "one"
    assert "candidate questions" in report["explanation"]
    assert report["explanation"] in result.output
    assert report["cost"]["wall_seconds"] > 0
    assert "## Yield, in plain words" in output.with_name("out.report.md").read_text()
    written = read_questions(output) if output.stat().st_size else []
    assert len(written) + sum(report["drops"].values()) == 24
    assert sibling_leaks(written) == []
    assert len({q.article for q in written}) == len(written)
    wordnet = load_wordnet()
    for question in written:
        assert check_question(question=question, gold=question.answer, wordnet=wordnet) == []
        for i, option in enumerate(question.options):
            if i != question.label:
                assert form_problem(word=option, tag=None, wordnet=wordnet) is None  # not rare
    if gate == "--gate":
        assert report["provenance"]["options"]["gate_version"] == "gate-5"
        for line in output.with_suffix(".why.jsonl").read_text().splitlines():
            for reason in json.loads(line)["options"].values():
                assert reason["rule"] == "gate-5"
                assert reason["gold_rank"] >= 2
                assert 1 <= reason["pmi_rank"] <= 5
                if reason["side"] == "above":
                    assert reason["gaps"]["lm"] < 0
                    assert reason["gaps"]["lm2"] < 0


def _v6_args(candidates, tiny_lm, work, output):
    args = ["--candidates", str(candidates), "--output", str(output), "--work-dir", str(work), "--folds", "2"]
    args += ["--ranker", "lm", "--lm-model", str(tiny_lm), "--lm-top", "30", "--gate-lm2", str(tiny_lm)]
    return [*args, "--gate-version", "6"]


def test_gate_version_6_applies_its_rules_and_sharded_scoring_writes_the_same_set(
    candidates, tiny_lm, tmp_path
):
    from datagen.options.contrast import MIN_CONTRAST, U_MARGIN

    one = tmp_path / "one" / "out.jsonl"
    result = CliRunner().invoke(
        options, _v6_args(candidates, tiny_lm, tmp_path / "w1", one), catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    report = json.loads(one.with_name("out.report.json").read_text())
    settings = report["provenance"]["options"]
    assert settings["gate_version"] == "gate-6"
    assert settings["gate_u_margin"] == pytest.approx(U_MARGIN)
    written = read_questions(one) if one.stat().st_size else []
    assert len(written) + sum(report["drops"].values()) == 24
    assert report["drops"].get("target-no-contrast", 0) > 0  # ReCAM golds without antonyms are no targets
    for line in one.with_suffix(".why.jsonl").read_text().splitlines():
        reasons = json.loads(line)["options"].values()
        assert sum(r["contrast"] for r in reasons) >= MIN_CONTRAST
        assert all(r["rule"] == "gate-6" and r["article_margin_lm2"] >= U_MARGIN for r in reasons)
    # two scoring shards, then one run that reads both caches: the same set, byte for byte
    two = tmp_path / "two" / "out.jsonl"
    for shard in ("0/2", "1/2"):
        args = [*_v6_args(candidates, tiny_lm, tmp_path / "w2", two), "--score-shard", shard]
        scored = CliRunner().invoke(options, args, catch_exceptions=False)
        assert scored.exit_code == 0, scored.output
        assert "nothing written" in scored.output
        assert not two.exists()
    assert len(list((tmp_path / "w2").glob("gate-scores.shard-*.jsonl"))) == 2
    final = CliRunner().invoke(
        options, _v6_args(candidates, tiny_lm, tmp_path / "w2", two), catch_exceptions=False
    )
    assert final.exit_code == 0, final.output
    assert two.read_bytes() == one.read_bytes()
    assert not (tmp_path / "w2" / "gate-scores.jsonl").stat().st_size  # every score came from the shards


def test_gate_version_6_without_a_second_lm_or_sharding_another_version_is_a_usage_error(
    candidates, tiny_lm, tmp_path
):
    output = tmp_path / "out.jsonl"
    args = _v6_args(candidates, tiny_lm, tmp_path / "w", output)
    refused = CliRunner().invoke(options, [*args, "--gate-lm2", "none"])
    assert refused.exit_code == 2
    assert "--gate-version 5" in refused.output
    sharded = CliRunner().invoke(options, [*args[:-2], "--score-shard", "0/2"])  # the default, version 5
    assert sharded.exit_code == 2
    assert "only gate version 6" in sharded.output
    bad = CliRunner().invoke(options, [*args, "--score-shard", "2/2"])
    assert bad.exit_code == 2
    assert "0 <= I < N" in bad.output
    assert not output.exists()
