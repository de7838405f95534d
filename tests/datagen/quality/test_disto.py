"""DISTO-style distractor score: negative sampling, training, save/load, AUC, the CLI and the report."""

import hashlib
import json
from itertools import islice

import numpy as np
import pytest
from click.testing import CliRunner

from datagen.cli import main
from datagen.quality import disto
from datagen.quality.disto_eval import (
    auc_interval,
    evaluate,
    rank_on_reference,
    rank_sets,
    score_options,
    wordfreq_accuracy,
    wordfreq_options,
)
from datagen.quality.report import build_report
from datagen.quality.run import markdown
from recam.records import Question, iter_questions


class HashEncoder:
    """A tiny deterministic encoder: hashed bag of words, L2-normalised (no model files)."""

    def __init__(self, dim: int = 64, sha256: str = "hash-encoder-1") -> None:
        self.dim, self.name, self.sha256 = dim, "hash", sha256

    def encode(self, texts):
        out = np.zeros((len(texts), self.dim))
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, int(hashlib.sha256(word.encode()).hexdigest(), 16) % self.dim] += 1.0
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


@pytest.fixture(scope="module")
def wordnet():
    from lexicon.resources import wordnet

    return wordnet()


@pytest.fixture(scope="module")
def trial(recam_data_dir) -> list[Question]:
    path = recam_data_dir / "trail_data" / "Task_1_Imperceptibility.jsonl"
    with path.open(encoding="utf-8") as handle:
        return list(islice(iter_questions(handle, source=str(path)), 8))


COLORS = ["red", "blue", "green", "yellow", "purple", "orange", "brown", "black", "white", "pink"]
FILLER = ["zarb", "quov", "plenk", "trusk", "vimo", "gorf", "snell", "drabe", "kulp", "werq", "yolt"]


def toy(n: int, seed: int) -> list[Question]:
    """Questions whose options are all colours: real distractors are colours, sampled ones mostly not."""
    rng = np.random.default_rng(seed)
    questions = []
    for i in range(n):
        options = tuple(rng.choice(COLORS, size=5, replace=False))
        article = " ".join(rng.choice(FILLER, size=30))
        questions.append(
            Question(i, article, "the car was @placeholder today", options, int(rng.integers(5)))
        )
    return questions


def test_inflections_and_synonyms_come_from_lemminflect_and_wordnet(wordnet):
    assert {"lose", "losing", "loses"} <= set(disto.inflections("lost"))
    assert "lost" not in disto.inflections("lost")
    assert disto.inflections("xqzzyv") == []
    assert "automobile" in disto.synonyms(wordnet=wordnet, word="car")
    assert all("_" not in w for w in disto.synonyms(wordnet=wordnet, word="car"))


def test_negative_sampling_draws_each_kind_and_never_an_own_option(trial, wordnet):
    vocabulary = disto.vocabulary_of(trial)
    examples = disto.examples_for(
        questions=trial, wordnet=wordnet, rng=np.random.default_rng(0), vocabulary=vocabulary
    )
    real = [e for e in examples if e.label == 1]
    assert len(real) == 4 * len(trial)
    assert {e.kind for e in real} == {disto.REAL}
    negatives = [e for e in examples if e.label == 0]
    assert {e.kind for e in negatives} == set(disto.NEGATIVE_KINDS)
    for e in negatives:
        assert e.distractor.lower() not in {o.lower() for o in e.question.options}
        if e.kind == "inflection":
            assert e.distractor in disto.inflections(e.question.answer)
        if e.kind == "synonym":
            assert e.distractor in disto.synonyms(wordnet=wordnet, word=e.question.answer)
        if e.kind == "random":
            assert e.distractor in vocabulary
        if e.kind == "other_question":
            assert any(e.distractor in q.options for q in trial if q is not e.question)
    again = disto.examples_for(
        questions=trial, wordnet=wordnet, rng=np.random.default_rng(0), vocabulary=vocabulary
    )
    assert again == examples  # seeded


def test_training_beats_chance_on_a_separable_toy_set(tmp_path, wordnet):
    model, reused = disto.train(
        questions=toy(60, seed=1), files={"toy": "0"}, encoder=HashEncoder(), wordnet=wordnet, seed=0
    )
    assert not reused
    result = evaluate(
        model=model, encoder=HashEncoder(), questions=toy(40, seed=2), wordnet=wordnet, resamples=50
    )
    assert result["random"]["auc"] > 0.9
    assert result["all"]["low"] > 0.5  # the interval excludes chance


def test_save_load_round_trip_rerun_loads_and_another_encoder_is_refused(tmp_path, wordnet):
    kwargs = dict(questions=toy(20, seed=3), files={"toy": "0"}, wordnet=wordnet, output_dir=tmp_path / "m")
    model, _reused = disto.train(encoder=HashEncoder(), seed=0, **kwargs)
    loaded = disto.load_model(tmp_path / "m", encoder=HashEncoder())
    questions = toy(5, seed=4)
    np.testing.assert_allclose(
        np.array(score_options(model=loaded, encoder=HashEncoder(), questions=questions), dtype=float),
        np.array(score_options(model=model, encoder=HashEncoder(), questions=questions), dtype=float),
    )
    assert disto.train(encoder=HashEncoder(), seed=0, **kwargs)[1] is True  # same inputs: loaded
    assert disto.train(encoder=HashEncoder(), seed=1, **kwargs)[1] is False  # another seed: retrained
    other = HashEncoder(sha256="another-encoder")
    with pytest.raises(ValueError, match="retrain"):
        disto.load_model(tmp_path / "m", encoder=other)
    with pytest.raises(ValueError, match="retrain"):
        score_options(model=loaded, encoder=other, questions=questions)


def test_score_options_leaves_the_gold_out_and_rank_sets_orders_by_mean(wordnet):
    model, _ = disto.train(questions=toy(40, seed=5), files={}, encoder=HashEncoder(), wordnet=wordnet)
    good = toy(10, seed=6)
    bad = [Question(q.id, q.article, q.question, tuple(q.answer if j == q.label else f"gorf{j}" for j in range(5)),
                    q.label) for q in good]  # fmt: skip
    table = score_options(model=model, encoder=HashEncoder(), questions=good)
    assert all(
        row[q.label] is None and sum(s is not None for s in row) == 4
        for q, row in zip(good, table, strict=True)
    )
    ranking = rank_sets(model=model, encoder=HashEncoder(), sets={"bad": bad, "good": good}, resamples=50)
    assert [r["set"] for r in ranking] == ["good", "bad"]


def test_auc_interval_on_separated_and_on_tied_scores():
    perfect = auc_interval(labels=[0, 0, 0, 1, 1, 1], scores=[0.1, 0.2, 0.3, 0.7, 0.8, 0.9], resamples=50)
    assert perfect["auc"] == 1.0
    assert perfect["low"] == 1.0
    tied = auc_interval(labels=[0, 1] * 20, scores=[0.5] * 40, resamples=50)
    assert tied["auc"] == 0.5
    with pytest.raises(ValueError, match="both"):
        auc_interval(labels=[1, 1], scores=[0.1, 0.2])


def test_real_encoder_features_have_the_documented_shape(trial):
    encoder = disto.SentenceEncoder.load(device="cpu")
    q = trial[0]
    examples = [
        disto.Example(q, q.options[(q.label + 1) % 5], 1, disto.REAL),
        disto.Example(q, q.answer, 0, "gold"),
    ]
    x = disto.features(examples=examples, encoder=encoder)
    hidden = encoder.encode(["a"]).shape[1]
    assert x.shape == (2, 3 * hidden + 5)
    np.testing.assert_allclose(x[1, :hidden], 0.0, atol=1e-6)  # the gold as its own distractor: d - g = 0
    assert x[1, -5] == pytest.approx(1.0, abs=1e-5)  # cos(d, g)
    assert len(encoder.sha256) == 64


def test_cli_names_the_file_and_line_of_bad_input(tmp_path, trial):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(trial[0].to_json()) + "\n{not json\n", encoding="utf-8")
    result = CliRunner().invoke(
        main, ["disto", "train", "--train", str(bad), "--output", str(tmp_path / "m")]
    )
    assert result.exit_code == 1
    assert f"{bad}:2" in result.output
    unlabelled = tmp_path / "unlabelled.jsonl"
    record = trial[0].to_json()
    del record["label"]
    unlabelled.write_text(json.dumps(record) + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["disto", "score", "--model", str(tmp_path), "--input", str(unlabelled),
                                       "--output", str(tmp_path / "s.jsonl")])  # fmt: skip
    assert result.exit_code == 1
    assert f"{unlabelled}" in result.output
    assert "line 1" in result.output


def test_report_shows_disto_scores_only_when_given():
    questions = toy(3, seed=7)
    zeros = np.zeros((3, 5))
    plain = build_report(questions=questions, lm_with=zeros, lm_without=zeros, provenance={})
    assert "disto" not in plain
    assert all("disto" not in row for row in plain["questions"])
    assert "DISTO" not in markdown(plain | {"input": {}})
    scores = [[None if j == q.label else 0.25 * (j % 2) for j in range(5)] for q in questions]
    report = build_report(questions=questions, lm_with=zeros, lm_without=zeros, provenance={},
                          disto={"scores": scores, "model": {"dir": "m"}})  # fmt: skip
    assert report["questions"][0]["disto"] == scores[0]
    assert report["disto"]["distractors"] == 12
    assert report["disto"]["mean_distractor_score"] == pytest.approx(
        np.mean([s for r in scores for s in r if s is not None])
    )
    assert "| mean DISTO score of the distractors |" in markdown(report | {"input": {}})
    assert {k: v for k, v in report.items() if k != "disto"} == {
        k: v if k != "questions" else [r | {"disto": s} for r, s in zip(v, scores, strict=True)]
        for k, v in plain.items()
    }


def test_run_quality_passes_the_disto_scores_into_both_report_files(tmp_path):
    from datagen.quality.run import run_quality

    questions = toy(4, seed=8)
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(q.to_json()) + "\n" for q in questions), encoding="utf-8")

    def disto_scores(batch):
        return {
            "scores": [[None if j == q.label else 0.5 for j in range(5)] for q in batch],
            "model": {"dir": "m"},
        }

    report = run_quality(
        input_path=source, output_path=tmp_path / "r.json", score_fn=lambda b, _: np.zeros((len(b), 5)),
        identity={"model": "fake"}, cache_dir=tmp_path / "c", disto=disto_scores,
    )  # fmt: skip
    assert report["disto"]["mean_distractor_score"] == 0.5
    assert json.loads((tmp_path / "r.json").read_text())["questions"][0]["disto"][questions[0].label] is None
    assert "| mean DISTO score of the distractors | 0.500 |" in (tmp_path / "r.md").read_text()


def test_generators_are_ranked_on_the_questions_all_of_them_wrote(wordnet):
    model, _ = disto.train(questions=toy(60, seed=1), files={}, encoder=HashEncoder(), wordnet=wordnet)
    reference = toy(8, seed=9)
    bad = [Question(q.id, q.article, q.question, tuple(q.answer if j == q.label else f"gorf{j}" for j in range(5)),
                    q.label) for q in reference]  # fmt: skip
    sets = {"colours": reference[:6], "fillers": bad[2:]}  # ids 0-5 and 2-7: 2-5 in common
    found = rank_on_reference(
        model=model, encoder=HashEncoder(), sets=sets, reference=reference, resamples=50
    )
    assert found["common_ids"] == [2, 3, 4, 5]
    rows = {r["set"]: r for r in found["ranking"]}
    assert set(rows) == {"colours", "fillers", "reference"}
    assert [r["questions"] for r in found["ranking"]] == [4, 4, 4]
    assert (rows["colours"]["own"]["questions"], rows["fillers"]["own"]["questions"]) == (6, 6)
    assert rows["reference"]["own"]["questions"] == 8  # every question some file wrote
    common = [q for q in reference if q.id in (2, 3, 4, 5)]
    table = score_options(model=model, encoder=HashEncoder(), questions=common)
    expected = np.mean([np.mean([s for s in row if s is not None]) for row in table])
    assert rows["reference"]["mean"] == pytest.approx(expected)
    assert rows["colours"]["mean"] == pytest.approx(expected)  # the same questions and options
    assert rows["fillers"]["mean"] < rows["colours"]["mean"]
    assert rows["colours"]["minus_reference"]["mean"] == pytest.approx(0.0)  # the reference's own options
    fillers = rows["fillers"]["minus_reference"]
    assert fillers["mean"] == pytest.approx(rows["fillers"]["mean"] - rows["reference"]["mean"])
    assert fillers["low"] <= fillers["mean"] <= fillers["high"] < 0
    assert "minus_reference" not in rows["reference"]
    assert rows["fillers"]["wordfreq_accuracy"] == wordfreq_accuracy([q for q in bad if q.id in (2, 3, 4, 5)])
    other_gold = [Question(0, reference[0].article, reference[0].question, ("a", "b", "c", "d", "e"), 0)]
    with pytest.raises(ValueError, match="gold 'a'"):
        rank_on_reference(
            model=model, encoder=HashEncoder(), sets={"x.jsonl": other_gold}, reference=reference
        )
    with pytest.raises(ValueError, match=r"x\.jsonl: question id 99 is not in the reference"):
        rank_on_reference(model=model, encoder=HashEncoder(), sets={"x.jsonl": [Question(99, "a", "b @placeholder",
                          ("a", "b", "c", "d", "e"), 0)]}, reference=reference)  # fmt: skip


def test_the_word_frequency_generator_keeps_the_gold_and_adds_the_commonest_words():
    questions = [Question(0, "art", "q @placeholder", ("zebra", "the", "walrus", "yak", "gnu"), 0),
                 Question(1, "art", "q @placeholder", ("ox", "of", "the", "gnu", "and"), 2)]  # fmt: skip
    vocabulary = ["and", "gnu", "of", "ox", "the", "walrus", "yak", "zebra"]
    out = wordfreq_options(questions=questions, vocabulary=vocabulary)
    assert [q.options for q in out] == [
        ("zebra", "the", "and", "of", "ox"),
        ("and", "of", "the", "ox", "zebra"),
    ]
    assert [q.label for q in out] == [0, 2]
    assert wordfreq_accuracy(out) == 0.5  # "the" is the commonest option of the second question
    with pytest.raises(ValueError, match="the vocabulary has 2 word"):
        wordfreq_options(questions=questions[:1], vocabulary=["zebra", "the", "of"])
