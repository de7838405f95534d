"""CLOTH- and SCDE-style passages from real XSum documents, with a tiny random LM and real word resources."""

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from datagen.cli import main
from datagen.nlp import Analysis, Token
from datagen.options.cloth import ClothSettings, attested, candidate_tokens, scale_of
from datagen.options.cloze_run import report_path, run_cloth, run_scde
from datagen.options.inflection import inflect_like
from datagen.options.scde import ScdeSettings, blank_positions, choose_distractors
from datagen.quality.multiblank import cloth_options_only, prior_scorer, scde_candidates_only
from recam.formats.cloth import BLANK, ClothPassage, read_cloth
from recam.formats.scde import ScdePassage, read_scde


@pytest.fixture(scope="module")
def pairs_file(xsum_path, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("xsum") / "pairs.jsonl"
    with xsum_path.open(encoding="utf-8") as handle:
        path.write_text("".join(itertools.islice(handle, 6)), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def lm(tiny_lm):
    from baselines.lm_loading import load_causal_lm

    return load_causal_lm(model_path=str(tiny_lm), device="cpu", threads=1)


@pytest.fixture(scope="module")
def mrc_scale():
    from datagen.targets.abstractness import mrc_ratings

    return scale_of(mrc_ratings())


def _token(text, pos, sent, start, lemma=None):
    return Token(
        text=text, lemma=lemma or text.lower(), pos=pos, sent=sent, start=start, end=start + len(text)
    )


def test_candidate_blanks_skip_the_first_sentence_first_words_capitals_and_repeated_lemmas():
    tokens = (
        _token("Plans", "NOUN", 0, 0), _token("failed", "VERB", 0, 6), _token(".", "PUNCT", 0, 12),
        _token("Hope", "NOUN", 1, 14), _token("remains", "VERB", 1, 19), _token("for", "ADP", 1, 27),
        _token("Paris", "PROPN", 1, 31), _token("plans", "NOUN", 1, 37, lemma="plan"),
        _token("and", "CCONJ", 1, 43), _token("plan", "NOUN", 1, 47), _token("truly", "ADV", 1, 52),
    )  # fmt: skip
    analysis = Analysis(text="x" * 60, tokens=tokens)
    found = [analysis.tokens[i].text for i in candidate_tokens(analysis.tokens)]
    assert found == ["remains", "truly"]  # not: sentence 0, "Hope" (first word), Paris, the two "plan"s


def test_scde_blanks_are_never_first_or_adjacent_and_are_seeded():
    sentences = ["The first one is here now."] + [f"Sentence number {i} has six words." for i in range(1, 9)]
    settings = ScdeSettings(blanks=3)
    for key in "abcdefgh":
        positions = blank_positions(sentences, key=key, settings=settings)
        assert positions == blank_positions(sentences, key=key, settings=settings)
        assert len(positions) == 3
        assert 0 not in positions
        assert all(b - a > 1 for a, b in itertools.pairwise(positions))
    assert blank_positions(sentences[:4], key="a", settings=settings) is None  # 1..3: no 3 non-adjacent


def test_a_draw_within_the_margin_of_any_answer_is_not_kept():
    # 2 blanks (answers in columns 0, 1), 3 draws; blank 0's answer scores 5, blank 1's 4
    matrix = np.array([[5.0, 0.0, 3.0, 4.5, 1.0], [0.0, 4.0, 2.5, 0.0, 3.5]])
    chosen, closest = choose_distractors(matrix, blanks=2, settings=ScdeSettings(distractors=2, margin=1.0))
    assert closest == [1.5, 0.5, 0.5]  # draw 1 fits blank 0 (gap 0.5), draw 2 fits blank 1 (gap 0.5)
    assert chosen == [0]
    chosen, _ = choose_distractors(matrix, blanks=2, settings=ScdeSettings(distractors=2, margin=0.25))
    assert chosen == [1, 2]  # the two closest to fitting, ties by draw order


def test_cloth_passages_from_xsum_are_valid_gated_and_reproducible(pairs_file, lm, mrc_scale, tmp_path):
    settings = ClothSettings(blanks=3, min_blanks=1, tries=6, max_words=120)
    out = tmp_path / "cloth.jsonl"
    report = run_cloth(input_path=pairs_file, output=out, settings=settings, lm=lm, scale=mrc_scale, limit=4)
    passages = read_cloth(out, require_answers=True)
    assert report["written"] == len(passages) >= 1
    assert sum(report["funnel"]["passages_dropped"].values()) + len(passages) == 4
    documents = [
        " ".join(json.loads(line)["document"].split()) for line in pairs_file.read_text().splitlines()
    ]
    for passage, source in zip(passages, report["sources"], strict=True):
        filled = passage.filled()
        assert any(d.startswith(filled) for d in documents)  # the gold words restore the article
        golds = [opts[a] for opts, a in zip(passage.options, passage.answers, strict=True)]
        assert golds == [b["gold"] for b in source["blanks"]]
        for opts, gold, blank in zip(passage.options, golds, source["blanks"], strict=True):
            assert len(set(opts)) == 4
            for option in opts:
                assert attested(option)
                if option != gold:  # each distractor is in the gold's part of speech and inflection
                    assert inflect_like(word=option, tag=blank["why"]["tag"]) == option
                    assert blank["why"][option]["pmi_margin"] > 0
    again = tmp_path / "again.jsonl"
    run_cloth(input_path=pairs_file, output=again, settings=settings, lm=lm, scale=mrc_scale, limit=4)
    assert again.read_bytes() == out.read_bytes()
    saved = json.loads(report_path(out).read_text())
    assert saved["output_sha256"] == report["output_sha256"]
    assert saved["versions"]["wordfreq"]


def test_scde_passages_keep_only_draws_that_fit_no_blank(pairs_file, lm, tmp_path):
    out = tmp_path / "scde.jsonl"
    report = run_scde(input_path=pairs_file, output=out, settings=ScdeSettings(margin=-1e9), lm=lm)
    passages = read_scde(out, require_answers=True)
    assert len(passages) == report["written"] >= 1
    documents = [
        " ".join(json.loads(line)["document"].split()) for line in pairs_file.read_text().splitlines()
    ]
    for passage in passages:
        assert passage.blanks == 3
        assert len(passage.candidates) == 5
        own = next(d for d in documents if d.startswith(" ".join(passage.filled()[:1])))
        assert all(s in own for s in passage.filled())  # the answers restore the article's sentences
        assert not any(passage.candidates[d] in own for d in passage.distractors)  # drawn elsewhere
    strict = run_scde(
        input_path=pairs_file, output=tmp_path / "none.jsonl", settings=ScdeSettings(margin=1e9), lm=lm
    )
    assert strict["written"] == 0
    assert strict["funnel"]["passages_dropped"]["too-few-distractors"] == report["written"]
    assert strict["funnel"]["draws_fitting_no_blank"] == 0


def test_cloth_options_only_accuracy_with_the_word_frequency_prior():
    common, rare = "the", "obstreperous"
    p = ClothPassage(
        id=0, article="a _ b _", options=(("zyzzyva", common, rare, "quixotic"),) * 2, answers=(1, 2)
    )
    report = cloth_options_only([p], scorers={"wordfreq": prior_scorer})
    assert report["options_only_accuracy"]["wordfreq"] == 0.5
    assert report["blanks"] == 2


def test_scde_candidates_only_accuracy_and_its_chance():
    p = ScdePassage(id=0, sentences=("<1>", "x", "<2>"), candidates=("a", "bb", "ccc"), answers=(0, 2))
    scores = {"a": 3.0, "bb": 2.0, "ccc": 1.0}
    report = scde_candidates_only([p], scorer=lambda texts: np.array([scores[t] for t in texts]))
    assert report["candidates_only_accuracy"] == pytest.approx(1 / 3)  # calls a, bb answers: a right
    subsets = list(itertools.combinations(range(3), 2))
    exact = np.mean([np.mean([(i in s) == (i in (0, 2)) for i in range(3)]) for s in subsets])
    assert report["chance"] == pytest.approx(exact)


def test_quality_flag_reads_a_cloth_file_and_names_the_bad_line(tiny_lm, tmp_path):
    good = {"id": 0, "article": "He _ home .", "options": [["went", "swam", "ran", "sat"]], "answers": [0]}
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(good) + "\n", encoding="utf-8")
    out = tmp_path / "q.json"
    args = [
        "quality",
        "--format",
        "cloth",
        "--input",
        str(path),
        "--output",
        str(out),
        "--model",
        str(tiny_lm),
    ]
    result = CliRunner().invoke(main, [*args, "--device", "cpu"])
    assert result.exit_code == 0, result.output
    assert set(json.loads(out.read_text())["options_only_accuracy"]) == {"lm", "wordfreq"}
    bad = {**good, "options": [["went", "swam", "ran"]]}
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, [*args, "--device", "cpu"])
    assert result.exit_code == 1
    assert f"{path}:2: options[0] (blank 1) must hold exactly 4 options, got 3" in result.output


def test_the_commands_name_bad_xsum_lines_and_write_validated_files(pairs_file, tiny_lm, tmp_path):
    lines = pairs_file.read_text(encoding="utf-8").splitlines()
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([lines[0], "{not json", *lines[1:]]) + "\n", encoding="utf-8")
    out = tmp_path / "s.jsonl"
    args = ["scde", "--input", str(broken), "--output", str(out), "--lm-model", str(tiny_lm)]
    result = CliRunner().invoke(main, [*args, "--device", "cpu", "--margin", "-1e9", "--quiet"])
    assert result.exit_code == 0, result.output
    assert f"{broken}:2: skipped: not JSON" in result.output
    assert len(read_scde(out)) == json.loads(report_path(out).read_text())["written"] >= 1
    assert not BLANK.search(" ".join(lines))  # the sample has no lone underscore to confuse CLOTH


def test_a_record_the_format_refuses_is_never_written_and_names_the_output_line(tmp_path):
    from datagen.options.cloze_run import validated_text
    from recam.formats.cloth import cloth_from_json

    good = ClothPassage(id=0, article="He _ home .", options=(("went", "swam", "ran", "sat"),), answers=(0,))
    bad = ClothPassage(
        id=1, article="He went _ and _ .", options=(("home", "out", "in", "up"),), answers=(0,)
    )
    out = tmp_path / "cloth.jsonl"
    assert validated_text([good], output=out, parse=cloth_from_json).count("\n") == 1
    with pytest.raises(ValueError, match=rf"{out}:2: the article has 2 blank\(s\)"):
        validated_text([good, bad], output=out, parse=cloth_from_json)
    assert not out.exists()
