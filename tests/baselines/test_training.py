import json

import pytest
import torch

from baselines.training import ReaderConfig, TrainedReader, evaluate, train_reader


def _config(reader="att", **overrides):
    settings = {
        "hidden": 8,
        "hops": 2,
        "max_passage_tokens": 50,
        "batch_size": 8,
        "epochs": 2,
        "valid_fraction": 0,
    }
    return ReaderConfig(reader=reader, **{**settings, **overrides})


def test_loss_decreases_on_real_records(trial_examples, vectors):
    config = _config(epochs=4, lr=1e-2, dropout=0.0)
    reader = train_reader(config=config, train=trial_examples[:32], vectors=vectors, progress=False)
    losses = [epoch["loss"] for epoch in reader.info["history"]]
    assert len(losses) == 4
    assert losses[-1] < losses[0]


def test_training_is_deterministic_for_a_seed(trial_examples, dev_examples, vectors):
    runs = [
        train_reader(config=_config("ga", seed=s), train=trial_examples[:16], vectors=vectors, progress=False)
        for s in (5, 5, 6)
    ]
    states = [r.module.state_dict() for r in runs]
    for key in states[0]:
        torch.testing.assert_close(states[0][key], states[1][key])
    assert any(not torch.equal(states[0][k], states[2][k]) for k in states[0])
    assert runs[0].predict(examples=dev_examples) == runs[1].predict(examples=dev_examples)


def test_predictions_survive_save_and_load(tmp_path, trial_examples, dev_examples, vectors):
    reader = train_reader(
        config=_config("att-gloss"), train=trial_examples[:16], vectors=vectors, progress=False
    )
    expected = reader.predict(examples=dev_examples)
    assert all(0 <= p < 5 for p in expected)
    reader.save(tmp_path / "model")
    loaded = TrainedReader.load(tmp_path / "model", vectors=vectors)
    assert loaded.predict(examples=dev_examples) == expected
    assert 0 <= evaluate(reader=loaded, examples=dev_examples) <= 1


def test_rerun_resumes_from_the_epoch_checkpoint(tmp_path, trial_examples, vectors):
    train = trial_examples[:16]
    once = train_reader(
        config=_config(epochs=1), train=train, vectors=vectors, checkpoint_dir=tmp_path, progress=False
    )
    assert (tmp_path / "last.pt").is_file()
    resumed = train_reader(
        config=_config(epochs=2), train=train, vectors=vectors, checkpoint_dir=tmp_path, progress=False
    )
    straight = train_reader(config=_config(epochs=2), train=train, vectors=vectors, progress=False)
    assert resumed.info["history"][0] == once.info["history"][0]
    assert len(resumed.info["history"]) == 2
    for key, value in straight.module.state_dict().items():
        torch.testing.assert_close(resumed.module.state_dict()[key], value)


def test_candidate_set_mode_ranks_top_k_candidates(trial_examples, vectors):
    train = trial_examples[:24]
    candidates = sorted({e.answer.lower() for e in train})
    reader = train_reader(
        config=_config("ga"), train=train, vectors=vectors, candidates=candidates, progress=False
    )
    ranked = reader.rank(examples=train[:5], top_k=4)
    assert len(ranked) == 5
    for row in ranked:
        assert len(row) == 4
        assert {word for word, _ in row} <= set(candidates)
        probabilities = [p for _, p in row]
        assert probabilities == sorted(probabilities, reverse=True)
        assert 0 < sum(probabilities) <= 1 + 1e-6


def test_candidate_set_mode_requires_answers_in_the_set(trial_examples, vectors):
    with pytest.raises(ValueError, match="not in the candidate set"):
        train_reader(
            config=_config(), train=trial_examples[:4], vectors=vectors, candidates=["zebra"], progress=False
        )


def test_models_saved_before_query_centring_still_load(tmp_path, trial_examples, dev_examples, vectors):
    reader = train_reader(config=_config("att"), train=trial_examples[:16], vectors=vectors, progress=False)
    assert reader.config.center_query is False
    expected = reader.predict(examples=dev_examples)
    reader.save(tmp_path / "model")
    meta_path = tmp_path / "model" / "meta.json"
    meta = json.loads(meta_path.read_text())
    del meta["config"]["center_query"]  # the layout written before the setting existed
    meta_path.write_text(json.dumps(meta))
    loaded = TrainedReader.load(tmp_path / "model", vectors=vectors)
    assert loaded.config.center_query is False
    assert loaded.predict(examples=dev_examples) == expected


def test_centred_reader_predictions_survive_save_and_load(tmp_path, trial_examples, dev_examples, vectors):
    config = _config("att-gloss", center_query=True)
    reader = train_reader(config=config, train=trial_examples[:16], vectors=vectors, progress=False)
    assert torch.count_nonzero(reader.module.gloss_query_center.running_mean) > 0
    expected = reader.predict(examples=dev_examples)
    reader.save(tmp_path / "model")
    loaded = TrainedReader.load(tmp_path / "model", vectors=vectors)
    assert loaded.config.center_query is True
    torch.testing.assert_close(
        loaded.module.query_center.running_mean, reader.module.query_center.running_mean
    )
    assert loaded.predict(examples=dev_examples) == expected


def test_query_prior_measures_the_mean_query_and_leaves_the_reader_unchanged(
    trial_examples, dev_examples, vectors
):
    from baselines.training import query_prior

    reader = train_reader(
        config=_config("att-gloss"), train=trial_examples[:16], vectors=vectors, progress=False
    )
    reader.module.eval()
    before = reader.module(reader.batch(reader.encode(dev_examples, mode="mc", grow=True), mode="mc"))
    result = query_prior(reader=reader, fit_on=trial_examples[:16], evaluate_on=dev_examples)
    assert set(result["mean_query_share"]) == {"query_center", "gloss_query_center"}
    assert all(0 < share <= 1 for share in result["mean_query_share"].values())
    assert 0 <= result["accuracy_posthoc_centred"] <= 1
    after = reader.module(reader.batch(reader.encode(dev_examples, mode="mc", grow=True), mode="mc"))
    torch.testing.assert_close(after, before)  # the hooks are gone
