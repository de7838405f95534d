"""The multi-blank baselines: the assignment decoder, the span scorer, and the commands end to end."""

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
import torch
from click.testing import CliRunner

from baselines.cli import main
from baselines.cloze_lm import (
    assign,
    cloth_predict,
    cloth_windows,
    scde_predict,
    scde_scores,
    scde_windows,
    text_logprobs,
)
from baselines.lm_scorer import LoadedLM
from recam.formats import get_format
from recam.formats.official import load_cloth_official, load_scde_official
from tests.baselines.conftest import TEXTS, tiny_llama

FIXTURES = Path(__file__).parents[1] / "recam" / "fixtures"
CLOTH_DIR = FIXTURES / "cloth_official"
SCDE_DEV = FIXTURES / "scde_official" / "dev.json"


@pytest.fixture(scope="module")
def tiny_lm(tiny_tokenizer) -> LoadedLM:
    model = tiny_llama(len(tiny_tokenizer))
    return LoadedLM(model=model, tokenizer=tiny_tokenizer, device="cpu", name="tiny", sha256="0" * 64)


def exhaustive(scores: np.ndarray) -> tuple[int, ...]:
    """The SCDE paper's exhaustive decoding: the permutation of candidates with the largest summed score."""
    blanks, candidates = scores.shape
    return max(
        itertools.permutations(range(candidates), blanks),
        key=lambda picks: sum(scores[b, c] for b, c in enumerate(picks)),
    )


@pytest.mark.parametrize(("blanks", "candidates"), [(1, 1), (2, 4), (5, 7), (5, 5), (4, 8)])
def test_hungarian_decoding_equals_exhaustive_search(blanks, candidates):
    rng = np.random.default_rng(blanks * 10 + candidates)
    for _ in range(20):
        scores = rng.normal(size=(blanks, candidates))
        picks = assign(scores)
        assert len(set(picks)) == blanks
        assert picks == exhaustive(scores)


def test_assign_refuses_more_blanks_than_candidates_and_unknown_decoders():
    with pytest.raises(ValueError, match="3 blanks but only 2 candidates"):
        assign(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="decode 'greedy': choose from hungarian, independent"):
        assign(np.zeros((1, 2)), decode="greedy")


def test_text_logprobs_equal_a_full_forward_pass_whatever_the_batch(tiny_lm):
    texts = [TEXTS[0], TEXTS[1][:20], TEXTS[2], "A"]
    start = tiny_lm.tokenizer.pad_token_id
    expected = []
    for text in texts:
        ids = torch.tensor([[start, *tiny_lm.tokenizer.encode(text, add_special_tokens=False)]])
        with torch.inference_mode():
            logp = torch.log_softmax(tiny_lm.model(input_ids=ids).logits[0, :-1].float(), dim=-1)
        expected.append(float(logp.gather(-1, ids[0, 1:, None]).sum()))
    for batch_size in (1, 3, 8):
        found = text_logprobs(tiny_lm, texts, batch_size=batch_size)
        np.testing.assert_allclose(found, expected, rtol=1e-4, atol=1e-4)
    assert np.all(np.asarray(expected) < 0)


def test_cloth_windows_are_the_blank_free_spans_around_each_blank():
    passage = load_cloth_official(CLOTH_DIR).passages[1]
    windows = cloth_windows(passage, context_words=50)
    assert (
        windows[0][1]
        == "It rained all day , so the children stayed inside and played games in the kitchen . Their mother made hot soup for"
    )
    assert (
        windows[1][1]
        == "and played games in the kitchen . Their mother made hot soup for dinner , and after the meal everybody felt warm and"
    )
    assert cloth_windows(passage, context_words=2)[2] == [
        "warm and cold .",
        "warm and sad .",
        "warm and happy .",
        "warm and wet .",
    ]


def test_scde_windows_stop_at_the_neighbouring_blanks():
    second = load_scde_official(SCDE_DEV).passages[1]  # blanks 2 and 3 are neighbours
    windows = scde_windows(second, context_sentences=3)
    assert windows[0] == (
        "Our town library has changed a lot this year.",
        "Children can now borrow tablets as well as books.",
    )
    assert windows[1] == ("Children can now borrow tablets as well as books.", "")
    assert windows[2] == ("", "Everyone is welcome, and membership is still free.")
    first = load_scde_official(SCDE_DEV).passages[0]
    assert (
        scde_windows(first, context_sentences=1)[1][0]
        == "Practise floating on your back before you try to move."
    )
    assert scde_windows(first, context_sentences=0)[0] == ("", "")


def test_cloth_predictions_are_each_blanks_best_option(tiny_lm):
    passages = load_cloth_official(CLOTH_DIR).passages
    predictions, matrices = cloth_predict(tiny_lm, passages, context_words=8, batch_size=5)
    assert [m.shape for m in matrices] == [(3, 4), (3, 4)]
    for passage, matrix in zip(passages, matrices, strict=True):
        assert [predictions[(passage.id, b)] for b in (1, 2, 3)] == matrix.argmax(axis=1).tolist()


def test_scde_predictions_use_distinct_candidates_and_pmi_removes_the_candidate_prior(tiny_lm):
    passages = load_scde_official(SCDE_DEV).passages
    predictions, matrices = scde_predict(tiny_lm, passages, context_sentences=2)
    for passage, matrix in zip(passages, matrices, strict=True):
        picks = [predictions[(passage.id, b)] for b in range(1, passage.blanks + 1)]
        assert len(set(picks)) == passage.blanks
        assert tuple(picks) == exhaustive(matrix)
    joint = scde_scores(tiny_lm, passages[0], context_sentences=2)
    pmi = scde_scores(tiny_lm, passages[0], context_sentences=2, scoring="pmi")
    prior = text_logprobs(tiny_lm, passages[0].candidates)
    np.testing.assert_allclose(pmi, joint - prior[None, :], rtol=1e-5, atol=1e-4)


def invoke(*args) -> dict:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_commands_write_prediction_files_their_format_scores(tmp_path, tiny_lm_dir):
    cloth_out, scde_out = tmp_path / "cloth.csv", tmp_path / "scde.csv"
    common = ["--lm-model", tiny_lm_dir, "--device", "cpu", "--threads", "1"]
    cloth = invoke("cloth-lm", "--official", "--input", CLOTH_DIR, "--output", cloth_out, *common)
    scde = invoke(
        "scde-lm", "--official", "--input", SCDE_DEV, "--output", scde_out, "--scoring", "pmi", *common
    )
    assert cloth["chance"] == {"accuracy": 0.25}
    assert set(scde) == {"format", "blank_accuracy", "passage_accuracy", "distractor_error", "chance"}
    assert len(cloth_out.read_text().splitlines()) == 6
    assert scde_out.read_text().splitlines()[0].startswith("0,1,")
    for name, out, gold in (("cloth", cloth_out, CLOTH_DIR), ("scde", scde_out, SCDE_DEV)):
        scored = invoke("score-format", "--format", name, "--official", "--predictions", out, "--gold", gold)
        assert scored == (cloth if name == "cloth" else scde)


def test_score_format_reads_the_formats_jsonl_and_names_bad_lines(tmp_path):
    gold = tmp_path / "cloth.jsonl"
    fmt = get_format("cloth")
    passages = load_cloth_official(CLOTH_DIR).passages
    gold.write_text("".join(json.dumps(p.to_json()) + "\n" for p in passages), encoding="utf-8")
    good = tmp_path / "good.csv"
    good.write_text(
        fmt.format_predictions({(p.id, b + 1): a for p in passages for b, a in enumerate(p.answers)})
    )
    assert (
        invoke("score-format", "--format", "cloth", "--predictions", good, "--gold", gold)["accuracy"] == 1.0
    )
    bad = tmp_path / "bad.csv"
    bad.write_text(good.read_text().replace("0,2,3", "0,2,D"))
    result = CliRunner().invoke(
        main, ["score-format", "--format", "cloth", "--predictions", str(bad), "--gold", str(gold)]
    )
    assert result.exit_code == 1
    assert "bad.csv, line 2: label 'D' is written as a word or letter" in result.output


@pytest.mark.slow
def test_the_packaged_smollm2_reads_the_hand_made_passages(tmp_path):
    """The real model end to end on the CPU; the hand-made CLOTH blanks are easy, so it beats chance."""
    out = tmp_path / "cloth.csv"
    cloth = invoke(
        "cloth-lm", "--official", "--input", CLOTH_DIR, "--output", out, "--device", "cpu", "--threads", "1"
    )
    assert cloth["accuracy"] > cloth["chance"]["accuracy"]
    scde = invoke(
        "scde-lm", "--official", "--input", SCDE_DEV, "--output", tmp_path / "scde.csv", "--device", "cpu"
    )
    assert 0.0 <= scde["blank_accuracy"] <= 1.0
