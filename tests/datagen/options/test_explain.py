import json

from datagen.options.explain import explain
from datagen.quality.report import generation_row


def test_the_largest_drops_are_explained_with_what_to_change():
    text = explain(candidates=40, written=6, drops={"gate-gold-options-favourite": 20, "one-per-summary": 8,
                                                   "gold-in-article": 1, "too-few-distractors": 6})  # fmt: skip
    assert text.startswith("6 of 40 candidate questions (15%) were written.")
    assert text.index("20 dropped") < text.index("8 dropped") < text.index("6 dropped")
    assert "gold-in-article" not in text  # only the three largest
    assert "--lm-top 20" in text


def test_no_questions_and_no_candidates_are_said_plainly():
    assert "No questions" in explain(candidates=12, written=0, drops={"gate-gold-options-favourite": 12})
    assert "kept no target word" in explain(candidates=0, written=0, drops={})
    assert "dropped as something-new" in explain(candidates=2, written=0, drops={"something-new": 2})


def test_the_quality_report_reads_the_generating_runs_yield(tmp_path):
    report = {"sizes": {"Candidates": {"2": 40}, "Questions": {"2": 6}}, "explanation": "why",
              "cost": {"cpu_seconds_this_process": 60.0}, "provenance": {"options": {"gate_version": "gate-5"}}}  # fmt: skip
    path = tmp_path / "set.report.json"
    path.write_text(json.dumps(report))
    row = generation_row(path)
    assert (row["candidates"], row["written"], row["yield"], row["gate_version"]) == (40, 6, 0.15, "gate-5")
    assert generation_row(tmp_path / "none.report.json") is None
