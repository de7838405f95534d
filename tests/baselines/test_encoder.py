"""The encoder multiple-choice baseline on tiny real runs: the real MiniLM encoder, real ReCAM records, CPU."""

import json

import pytest
import torch

from baselines import encoder
from baselines.encoder import encode_questions, predict_encoder, train_encoder
from baselines.finetune_settings import FineTuneSettings
from lexicon.resources import encoder_model_dir
from recam.metrics import accuracy
from recam.records import NUM_OPTIONS, read_questions
from recam.submission import make_zip, parse_submission, write_predictions

TINY = {
    "settings": FineTuneSettings(max_length=64, batch_size=4, epochs=6.0, lr=3e-4, seed=7),
    "device": "cpu",
    "progress": False,
}


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """One torch thread: on a shared, oversubscribed CPU two threads stall on each other's barriers."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def records(recam_data_dir):
    questions = read_questions(recam_data_dir / "training_data" / "Task_1_dev.jsonl", require_labels=True)
    return {"train": questions[:4], "dev": questions[4:10]}


@pytest.fixture(scope="module")
def tiny_run(records, tmp_path_factory):
    """One tiny run: a fixed batch of 4 questions (one step per epoch), 6 steps."""
    out = tmp_path_factory.mktemp("encoder") / "run"
    metrics = train_encoder(train=records["train"], dev=records["dev"], output_dir=out, **TINY)
    return out, metrics


def test_encode_questions_gives_one_row_per_option_with_the_option_filled_in(records):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(encoder_model_dir())
    questions = records["dev"][:3]
    batch = encode_questions(tokenizer=tokenizer, questions=questions, max_length=64)
    assert set(batch) >= {"input_ids", "attention_mask"}
    for tensor in batch.values():
        assert tensor.shape[:2] == (3, NUM_OPTIONS)
        assert tensor.shape[2] <= 64
    for i, option in enumerate(questions[1].options):
        ids = batch["input_ids"][1, i][batch["attention_mask"][1, i].bool()].tolist()
        first = tokenizer.decode(ids[1 : ids.index(tokenizer.sep_token_id)])
        # The first segment is the whole filled question (only the article is truncated).
        assert first == tokenizer.decode(tokenizer(questions[1].filled(i))["input_ids"][1:-1])
        assert "@placeholder" not in first
        assert option.lower() in first


def test_loss_decreases_on_a_fixed_batch(tiny_run):
    _, metrics = tiny_run
    losses = metrics["losses"]
    assert len(losses) == metrics["steps"] == 6
    assert losses[-1] < losses[0]


def test_saved_model_round_trip_reproduces_the_dev_accuracy(tiny_run, records):
    out, metrics = tiny_run
    predictions = predict_encoder(model_dir=out, questions=records["dev"], device="cpu", batch_size=4)
    assert len(predictions) == len(records["dev"])
    assert all(p in range(NUM_OPTIONS) for p in predictions)
    references = [q.label for q in records["dev"]]
    assert accuracy(predictions=predictions, references=references)["accuracy"] == metrics["dev_accuracy"]


def test_manifest_records_versions_seed_and_input_hashes(tiny_run, records):
    out, _ = tiny_run
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["baseline"] == encoder.ENCODER_BASELINE_VERSION
    assert set(manifest["versions"]) == {"torch", "transformers"}
    assert manifest["settings"]["seed"] == TINY["settings"].seed
    assert manifest["settings"]["train_sha256"] == encoder.questions_sha256(records["train"])
    assert manifest["settings"]["dev_sha256"] == encoder.questions_sha256(records["dev"])
    assert not (out / encoder.CHECKPOINT).exists()


def test_an_interrupted_run_resumes_and_the_seed_fixes_losses_and_predictions(
    tiny_run, records, tmp_path, monkeypatch
):
    out, metrics = tiny_run
    calls = {"n": 0}
    real_encode = encoder.encode_questions

    def crash_on_fourth_step(**kwargs):
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt("simulated interruption")
        return real_encode(**kwargs)

    monkeypatch.setattr(encoder, "encode_questions", crash_on_fourth_step)
    with pytest.raises(KeyboardInterrupt):
        train_encoder(train=records["train"], dev=records["dev"], output_dir=tmp_path / "run", **TINY)
    assert (tmp_path / "run" / encoder.CHECKPOINT).is_file()
    monkeypatch.setattr(encoder, "encode_questions", real_encode)
    resumed = train_encoder(train=records["train"], dev=records["dev"], output_dir=tmp_path / "run", **TINY)
    assert resumed["losses"] == metrics["losses"]  # steps 1-3 from the checkpoint, 4-6 replayed exactly
    assert resumed["dev_accuracy"] == metrics["dev_accuracy"]
    first = predict_encoder(model_dir=out, questions=records["dev"], device="cpu")
    second = predict_encoder(model_dir=tmp_path / "run", questions=records["dev"], device="cpu")
    assert first == second


def test_a_finished_run_is_returned_and_other_settings_are_refused(tiny_run, records):
    out, metrics = tiny_run
    assert train_encoder(train=records["train"], dev=records["dev"], output_dir=out, **TINY) == metrics
    with pytest.raises(ValueError, match=r"manifest\.json: holds a finished run"):
        train_encoder(train=records["train"][:3], dev=records["dev"], output_dir=out, **TINY)


def test_unlabelled_training_data_is_refused(recam_data_dir, tmp_path):
    test = read_questions(recam_data_dir / "test_data" / "Task_1_test.jsonl")[:2]
    with pytest.raises(ValueError, match="have no label"):
        train_encoder(train=test, dev=None, output_dir=tmp_path, **TINY)


def test_predict_refuses_a_directory_without_manifest(tmp_path, records):
    with pytest.raises(ValueError, match=r"no manifest\.json"):
        predict_encoder(model_dir=tmp_path, questions=records["dev"])


def test_predictions_make_a_submission_the_platform_accepts(tiny_run, recam_data_dir, tmp_path):
    out, _ = tiny_run
    test = read_questions(recam_data_dir / "test_data" / "Task_1_test.jsonl")[:5]
    predictions = predict_encoder(model_dir=out, questions=test, device="cpu")
    csv = tmp_path / "subtask1.csv"
    write_predictions(csv, {q.id: p for q, p in zip(test, predictions, strict=True)})
    data = make_zip({"subtask1.csv": csv.read_bytes()})
    parsed = parse_submission(data=data, filename="submission.zip", expected_ids={1: {q.id for q in test}})
    assert parsed.subtasks == (1,)
    assert dict(parsed.files[0].predictions) == {q.id: p for q, p in zip(test, predictions, strict=True)}
