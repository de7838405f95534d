"""``datagen.overlap`` and ``python -m datagen overlap``: XSum pairs whose article is in ReCAM files."""

import json

import pytest
from click.testing import CliRunner

from datagen.cli import main
from datagen.overlap import OverlapIndex, shingles, split_by_overlap
from recam.records import read_questions

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "omicron",
    "pi",
]


def test_shingles_are_lower_cased_word_ngrams():
    assert shingles("The cat, the CAT!", n=2) == {("the", "cat"), ("cat", "the")}
    assert shingles("one two", n=8) == {("one", "two")}  # shorter than n: one shingle
    assert shingles("  ... ", n=3) == set()
    with pytest.raises(ValueError, match="at least 1"):
        shingles("a b", n=0)


def test_overlap_share_is_the_texts_own_shingles_found_in_the_references():
    index = OverlapIndex(n=3)
    index.add([" ".join(WORDS[:8])], source="dev.jsonl")  # shingles starting at words 0-5
    index.add([" ".join(WORDS[10:14])], source="test.jsonl")  # shingles starting at words 10-11
    copy = index.overlap(" ".join(WORDS[:8]).upper())
    assert (copy.share, copy.source) == (1.0, "dev.jsonl")
    unrelated = index.overlap("nothing here is shared with anything")
    assert (unrelated.share, unrelated.source) == (0.0, None)
    # WORDS[4:14] has 8 shingles: starting at 4, 5 (dev) and 10, 11 (test) are shared
    partial = index.overlap(" ".join(WORDS[4:14]))
    assert partial.share == pytest.approx(4 / 8)
    mostly_test = index.overlap(" ".join(WORDS[5:14]))  # 7 shingles: 5 (dev), 10 and 11 (test)
    assert mostly_test.share == pytest.approx(3 / 7)
    assert mostly_test.source == "test.jsonl"


def test_split_by_overlap_drops_at_or_above_the_share_and_keeps_unshared_texts():
    index = OverlapIndex(n=3)
    index.add([" ".join(WORDS[:8])], source="dev")
    texts = [" ".join(WORDS[:8]), " ".join(WORDS[4:14]), "fresh words only in this text", ""]
    # WORDS[4:14]: 8 shingles, those starting at words 4 and 5 are in the reference: share 0.25
    kept, dropped = split_by_overlap(texts, index, max_share=0.25)
    assert kept == [2, 3]
    assert [(i, o.share) for i, o in dropped] == [(0, 1.0), (1, 0.25)]
    kept, dropped = split_by_overlap(texts, index, max_share=0.3)
    assert kept == [1, 2, 3]
    assert [i for i, _ in dropped] == [0]
    kept, dropped = split_by_overlap(texts, index, max_share=0.0)  # any shared shingle drops the text
    assert kept == [2, 3]
    assert [i for i, _ in dropped] == [0, 1]
    with pytest.raises(ValueError, match="between 0 and 1"):
        split_by_overlap(texts, index, max_share=1.5)


def _xsum_line(pair_id: str, document: str, summary: str = "A one-sentence summary.") -> str:
    return json.dumps({"id": pair_id, "document": document, "summary": summary})


def test_cli_drops_pairs_carrying_a_real_dev_article_and_keeps_the_rest_verbatim(tmp_path, recam_data_dir):
    dev = recam_data_dir / "training_data" / "Task_2_dev.jsonl"
    article = read_questions(dev)[3].article
    fresh = "A small museum in a coastal town reopened after a year of repairs, its curator said on Monday."
    lines = [
        _xsum_line("a", article),
        "{broken",
        _xsum_line("b", fresh),
        _xsum_line("c", "Intro. " + article),
    ]
    source = tmp_path / "pairs.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    output = tmp_path / "kept.jsonl"
    result = CliRunner().invoke(
        main, ["overlap", "--input", str(source), "--against", str(dev), "--output", str(output)]
    )
    assert result.exit_code == 0, result.output
    assert f"{source}:2: skipped: not JSON" in result.output
    assert "kept 1 of 3 pairs; dropped 2" in result.output
    assert output.read_text(encoding="utf-8") == lines[2] + "\n"
    report = json.loads((tmp_path / "kept.jsonl.overlap.json").read_text(encoding="utf-8"))
    assert report["pairs"] == 3
    assert report["bad_lines"] == 1
    assert report["kept"] == 1
    assert [(d["id"], d["line"], d["source"]) for d in report["dropped"]] == [
        ("a", 1, "Task_2_dev.jsonl"),
        ("c", 4, "Task_2_dev.jsonl"),
    ]
    assert report["dropped"][0]["share"] == 1.0
    assert 0.9 < report["dropped"][1]["share"] < 1.0  # "Intro." adds shingles found nowhere


def test_cli_names_the_bad_reference_line_and_leaves_an_existing_output_alone(tmp_path):
    bad = tmp_path / "dev.jsonl"
    bad.write_text('{"article": "x"}\nnot json\n', encoding="utf-8")
    source = tmp_path / "pairs.jsonl"
    source.write_text(_xsum_line("a", "Some article text.") + "\n", encoding="utf-8")
    output = tmp_path / "kept.jsonl"
    output.write_text("kept from an earlier run\n", encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(
        main, ["overlap", "--input", str(source), "--against", str(bad), "--output", str(output)]
    )
    assert result.exit_code != 0
    assert f"{bad}:1" in result.output
    assert output.read_text(encoding="utf-8") == "kept from an earlier run\n"
    same = runner.invoke(
        main, ["overlap", "--input", str(source), "--against", str(bad), "--output", str(source)]
    )
    assert same.exit_code != 0
    assert "must differ" in same.output
