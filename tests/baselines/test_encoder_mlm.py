"""The masked-word encoder baseline on tiny real runs: the real MiniLM, real ReCAM and XSum text, CPU."""

import json
from dataclasses import replace

import pytest
import torch
from click.testing import CliRunner
from transformers import AutoTokenizer

from baselines.cli import adaptation_texts, main
from baselines.encoder_mlm import adaptation_chunks, mask_chunks, option_scores, train_encoder_mlm
from baselines.finetune_settings import FineTuneSettings
from lexicon.resources import encoder_model_dir
from recam.records import read_questions, write_questions
from recam.submission import parse_submission

SETTINGS = FineTuneSettings(max_length=64, batch_size=4, epochs=1.0, lr=3e-5, seed=5)
TINY = {"settings": SETTINGS, "device": "cpu", "progress": False}


@pytest.fixture(scope="module")
def tokenizer():
    return AutoTokenizer.from_pretrained(encoder_model_dir())


@pytest.fixture(scope="module")
def questions(recam_data_dir):
    return read_questions(recam_data_dir / "training_data" / "Task_1_dev.jsonl", require_labels=True)[:12]


def test_masking_touches_only_ordinary_pieces_and_repeats_with_its_generator(tokenizer, questions):
    chunks = adaptation_chunks(tokenizer=tokenizer, texts=[q.article for q in questions[:4]], length=64)
    assert chunks
    assert all(c[0] == tokenizer.cls_token_id and c[-1] == tokenizer.sep_token_id for c in chunks)
    assert max(len(c) for c in chunks) <= 64
    first = mask_chunks(tokenizer=tokenizer, chunks=chunks, generator=torch.Generator().manual_seed(3))
    again = mask_chunks(tokenizer=tokenizer, chunks=chunks, generator=torch.Generator().manual_seed(3))
    assert torch.equal(first["input_ids"], again["input_ids"])
    predicted = first["labels"] != -100
    share = predicted.sum().item() / first["attention_mask"].sum().item()
    assert 0.08 < share < 0.22  # about 15% of the real pieces
    assert (first["input_ids"][predicted] == tokenizer.mask_token_id).all()
    specials = torch.tensor(sorted(set(tokenizer.all_special_ids)))
    assert not torch.isin(first["labels"][predicted], specials).any()
    assert (first["labels"][first["attention_mask"] == 0] == -100).all()  # padding is never a target


def test_option_scores_have_one_score_per_option_and_carry_gradients(tokenizer, questions):
    from transformers import AutoModelForMaskedLM

    model = AutoModelForMaskedLM.from_pretrained(encoder_model_dir())
    scores = option_scores(
        model=model, tokenizer=tokenizer, questions=questions[:3], max_length=64, device="cpu"
    )
    assert scores.shape == (3, 5)
    assert torch.isfinite(scores).all()
    scores.sum().backward()
    assert model.get_input_embeddings().weight.grad.abs().sum() > 0


def test_adapt_then_train_predict_and_rerun(tmp_path, questions, xsum_path):
    torch.set_num_threads(1)
    texts = tmp_path / "xsum3.jsonl"
    texts.write_text("".join(xsum_path.read_text().splitlines(keepends=True)[:3]))
    adapted = tmp_path / "adapted"
    runner = CliRunner()
    args = ["adapt", "--text", str(texts), "--output", str(adapted), "--seconds", "3", "--quiet"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    first = json.loads((adapted / "manifest.json").read_text())
    assert first["baseline"] == "encoder-mlm-adapted-1.0"
    assert first["settings"]["texts"] == 3
    assert first["metrics"]["steps"] >= 1
    result = runner.invoke(main, args)  # finished: reused, not trained again
    assert result.exit_code == 0, result.output
    assert json.loads((adapted / "manifest.json").read_text()) == first

    out = tmp_path / "model"
    run = {**TINY, "train": questions[:8], "dev": questions[8:], "output_dir": out, "model_dir": adapted}
    metrics = train_encoder_mlm(**run)
    assert metrics["steps"] == 2
    assert 0.0 <= metrics["dev_accuracy"] <= 1.0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["baseline"] == "encoder-mlm-1.0"
    assert manifest["settings"]["base_manifest"]["baseline"] == "encoder-mlm-adapted-1.0"  # provenance
    assert train_encoder_mlm(**run) == metrics  # finished: reused
    with pytest.raises(ValueError, match="other inputs or settings"):
        train_encoder_mlm(**{**run, "settings": replace(SETTINGS, seed=6)})
    dev_file = tmp_path / "dev.jsonl"
    write_questions(dev_file, questions[8:], with_ids=True)
    csv = tmp_path / "subtask1.csv"
    result = runner.invoke(
        main, ["predict", "--model", str(out), "--input", str(dev_file), "--output", str(csv)]
    )
    assert result.exit_code == 0, result.output
    parsed = parse_submission(
        data=csv.read_bytes(), filename="subtask1.csv", expected_ids={1: {q.id for q in questions[8:]}}
    )
    assert len(parsed.files[0].predictions) == 4


def test_adaptation_texts_skip_excluded_articles_and_name_bad_lines(tmp_path, questions):
    good = tmp_path / "a.jsonl"
    good.write_text("".join(json.dumps({"article": q.article}) + "\n" for q in questions[:3]) + "\n")
    assert adaptation_texts((good, good), exclude={questions[0].article}) == [
        q.article for q in questions[1:3]
    ]
    bad = tmp_path / "b.jsonl"
    bad.write_text(json.dumps({"document": "fine"}) + "\n{oops\n")
    with pytest.raises(Exception, match=r"b\.jsonl:2: not JSON"):
        adaptation_texts((bad,), exclude=set())
