"""Quality report: calibration maths on constructed cases, the flag rule, keys, cache resume, bad input."""

import json
import math

import numpy as np
import pytest
from scipy.special import softmax

from datagen.options.prior import prior_scores
from datagen.quality import calibration
from datagen.quality.report import build_report, cache_key
from datagen.quality.run import run_quality
from recam.records import Question

KEYS = {"with_article_accuracy", "options_only_accuracy", "effective_options", "contextual_mi"}


def test_entropy_effective_options_and_mi_on_extremes():
    uniform = np.full((1, 5), 0.2)
    certain = np.array([[1.0, 0, 0, 0, 0]])
    assert calibration.effective_options(uniform)[0] == pytest.approx(5.0)
    assert calibration.effective_options(certain)[0] == pytest.approx(1.0)
    mi = calibration.contextual_mi(options_only=uniform, with_article=certain)
    assert mi[0] == pytest.approx(math.log(5))
    half = np.array([[0.5, 0.5, 0, 0, 0]])
    assert calibration.effective_options(half)[0] == pytest.approx(2.0)


def test_fit_temperature_recovers_the_generating_temperature():
    rng = np.random.default_rng(0)
    logits = rng.normal(scale=2.0, size=(4000, 5))
    true_t = 3.0
    labels = np.array([rng.choice(5, p=p) for p in softmax(logits, axis=1)])
    # a scorer 3x overconfident: its scores are the logits times 3
    fitted = calibration.fit_temperature(scores=logits * true_t, labels=labels)
    assert fitted == pytest.approx(true_t, rel=0.1)


def test_kfold_probabilities_hold_each_fold_out_and_fall_back_without_labels():
    scores = np.tile([2.0, 0, 0, 0, 0], (20, 1))
    probs, temps = calibration.kfold_probabilities(scores=scores, labels=[None] * 20)
    assert temps == [1.0]
    np.testing.assert_allclose(probs, softmax(scores, axis=1))
    labels = [0] * 10 + [1] * 10
    probs, temps = calibration.kfold_probabilities(scores=scores, labels=labels)
    assert len(temps) == calibration.K_FOLDS
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    folds = calibration.fold_of(n=20)
    assert sorted(np.bincount(folds)) == [4] * 5


def test_accuracy_uses_first_maximum():
    assert calibration.accuracy(scores=np.array([[1, 1, 0, 0, 0], [0, 0, 0, 0, 3]]), labels=[1, 4]) == 0.5


def test_prior_prefers_common_words_and_sums_multiword_options():
    scores = prior_scores(options=[["the", "announced", "zyzzyvaqx", "of the", "year"]])[0]
    assert scores[0] > scores[1] > scores[2]
    assert scores[3] < scores[0]


def _questions(n: int) -> list[Question]:
    return [
        Question(
            id=i,
            article=f"article {i}",
            question=f"word {i} @placeholder here",
            options=("year", "plunged", "easing", "announced", "proposals"),
            label=i % 5,
        )
        for i in range(n)
    ]


def test_report_keys_and_flag_rule():
    questions = _questions(20)
    with_article = np.zeros((20, 5))
    without = np.zeros((20, 5))
    for q in questions:
        with_article[q.id, q.label] = 5.0
        if q.id < 10:  # the LM answers the first ten without the article
            without[q.id, q.label] = 3.0
    report = build_report(questions=questions, lm_with=with_article, lm_without=without, provenance={})
    assert set(report) >= KEYS
    assert set(report) >= {"questions", "scorers", "versions"}
    assert report["with_article_accuracy"] == 1.0
    assert set(report["options_only_accuracy"]) == {"lm", "wordfreq"}
    assert report["options_only_accuracy"]["lm"] == pytest.approx(0.5 + 0.5 * 0.2)  # ties: first option
    lm_flagged = [r["id"] for r in report["questions"] if "lm" in r["flagged_by"]]
    assert lm_flagged == list(range(10))
    assert report["questions"][15]["effective_options"]["lm"] == pytest.approx(5.0)
    assert report["contextual_mi"] > 0
    # wordfreq: the same options each time and "year" (index 0) most common: labels 0 are answered
    assert report["options_only_accuracy"]["wordfreq"] == pytest.approx(0.2)


def test_cache_key_ignores_the_article_when_not_shown():
    a, b = (
        _questions(1)[0],
        Question(
            id=0,
            article="other",
            question="word 0 @placeholder here",
            options=_questions(1)[0].options,
            label=0,
        ),
    )
    assert cache_key(scorer="s", question=a, with_article=False) == cache_key(
        scorer="s", question=b, with_article=False
    )
    assert cache_key(scorer="s", question=a, with_article=True) != cache_key(
        scorer="s", question=b, with_article=True
    )


def _write(path, questions):
    path.write_text("".join(json.dumps(q.to_json()) + "\n" for q in questions), encoding="utf-8")


def test_run_resumes_from_the_cache(tmp_path):
    calls = []

    def score(batch, with_article):
        calls.append((len(batch), with_article))
        return np.array([[float(with_article), 0, 0, 0, -1.0] for _ in batch])

    source = tmp_path / "in.jsonl"
    _write(source, _questions(12))
    kwargs = dict(
        input_path=source, score_fn=score, identity={"model": "fake"}, cache_dir=tmp_path / "c", batch_size=5
    )
    first = run_quality(output_path=tmp_path / "r.json", **kwargs)
    assert sum(n for n, _ in calls) == 24
    cache_file = next((tmp_path / "c").glob("*.jsonl"))
    with cache_file.open("a") as handle:
        handle.write('{"key": "torn')  # an interrupted write
    calls.clear()
    second = run_quality(output_path=tmp_path / "r2.json", **kwargs)
    assert calls == []
    assert first["questions"] == second["questions"]
    saved = json.loads((tmp_path / "r.json").read_text())
    assert set(saved) >= KEYS
    assert (tmp_path / "r.md").read_text().startswith("# Quality report")


def test_bad_line_is_named(tmp_path):
    source = tmp_path / "in.jsonl"
    _write(source, _questions(2))
    with source.open("a") as handle:
        handle.write("{not json\n")
    with pytest.raises(ValueError, match=r"in\.jsonl:3"):
        run_quality(
            input_path=source, output_path=tmp_path / "r.json", score_fn=lambda b, w: None, identity={}
        )


def test_an_empty_file_is_named_before_any_model_loads(tmp_path, monkeypatch):
    from datagen.quality import run

    source = tmp_path / "empty.jsonl"
    source.write_text("\n", encoding="utf-8")
    monkeypatch.setattr(run, "lm_scorer", lambda **kw: pytest.fail("the model loaded for an empty file"))
    with pytest.raises(ValueError, match=r"empty\.jsonl: no questions"):
        run.quality_with_lm(input_path=source, output_path=tmp_path / "r.json")
    assert not (tmp_path / "r.json").exists()


def test_a_saved_lm_reader_directory_scores_the_report_with_its_own_window(tmp_path, tiny_lm, recam_data_dir):
    """``--model`` may name an LM reader directory (fine-tuned or zero-shot): its window, its hash in the key."""
    from baselines.lm_reader import LMSettings, write_zero_shot
    from datagen.quality.run import quality_with_lm

    source = recam_data_dir / "training_data" / "Task_2_dev.jsonl"
    sample = tmp_path / "dev6.jsonl"
    sample.write_text("".join(source.read_text(encoding="utf-8").splitlines(keepends=True)[:6]))
    reader = tmp_path / "reader"
    write_zero_shot(
        output_dir=reader, settings=LMSettings(article_tokens=32), model_path=str(tiny_lm), device="cpu"
    )
    common = {"input_path": sample, "device": "cpu", "threads": 1, "cache_dir": tmp_path / "cache"}
    via_reader = quality_with_lm(output_path=tmp_path / "a.json", model_path=str(reader), **common)
    via_model = quality_with_lm(
        output_path=tmp_path / "b.json", model_path=str(tiny_lm), article_tokens=32, **common
    )
    lm = via_reader["scorers"]["lm"]
    assert lm["article_tokens"] == 32
    assert lm["reader_dir"] == str(reader)
    assert len(lm["reader_sha256"]) == 64
    assert "reader_dir" not in via_model["scorers"]["lm"]
    first = [q["scores"]["with_article"] for q in via_reader["questions"]]
    second = [q["scores"]["with_article"] for q in via_model["questions"]]
    assert np.allclose(first, second, atol=1e-4)  # a zero-shot reader is the LM itself


def test_the_pmi_rule_and_the_sibling_check_are_rows_of_the_report():
    questions = _questions(10)
    without = np.zeros((10, 5))
    with_article = np.zeros((10, 5))
    for q in questions:
        without[q.id, (q.label + 1) % 5] = 5.0  # the options-only LM favours a distractor ...
        with_article[q.id, (q.label + 1) % 5] = 5.5  # ... which the article raises a little
        with_article[q.id, q.label] = 3.0  # and the gold, from 0, a lot: PMI picks the gold
    report = build_report(questions=questions, lm_with=with_article, lm_without=without, provenance={})
    assert report["with_article_accuracy"] == 0.0
    assert report["pmi_accuracy"] == 1.0
    assert report["siblings"] == {
        "leaks": 0,
        "pairs": [],
        "articles_with_several_questions": 0,
        "refused": False,
    }
    leaking = [*questions[:2], Question(id=99, article=questions[0].article, question="The year was @placeholder .",
                                        options=("odd", "ok", "bad", "fine", "good"), label=0)]  # fmt: skip
    report = build_report(questions=leaking, lm_with=with_article[:3], lm_without=without[:3], provenance={})
    assert report["siblings"]["refused"]
    assert report["siblings"]["leaks"] == 1
    assert "question 0's answer 'year' is in question 99" in report["siblings"]["pairs"][0]
