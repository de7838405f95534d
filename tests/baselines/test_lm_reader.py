"""The LM reader on a tiny random Llama: zero-shot model dirs, LoRA fine-tuning, resume, the CLI."""

import json

import pytest
import torch
from click.testing import CliRunner

from baselines.cli import main
from baselines.lm_reader import FineTuneConfig, LMSettings, fine_tune, lm_probabilities, load_lm_reader
from recam.records import Question, write_questions
from recam.submission import parse_submission
from tests.baselines.conftest import TEXTS


def _questions() -> list[Question]:
    made = [
        ("The council @placeholder the budget.", ("approved", "won", "found", "lost", "became"), 0),
        ("Staff at the @placeholder lost their jobs.", ("river", "factory", "match", "council", "goal"), 1),
        ("The river had become @placeholder.", ("late", "final", "warmer", "new", "long"), 2),
        ("The team won with a late @placeholder.", ("budget", "union", "decade", "goal", "road"), 3),
    ]
    return [
        Question(id=i + 1, article=TEXTS[i], question=q, options=opts, label=label)
        for i, (q, opts, label) in enumerate(made)
    ]


def test_zero_shot_then_predict_and_score_through_the_cli(tmp_path, tiny_lm_dir):
    questions = _questions()
    dev = tmp_path / "dev.jsonl"
    write_questions(dev, questions, with_ids=True)
    model = tmp_path / "lm-zs"
    runner = CliRunner()
    args = ["train", "--reader", "lm", "--zero-shot", "--lm-model", str(tiny_lm_dir), "--output", str(model)]
    result = runner.invoke(main, [*args, "--article-tokens", "16", "--reduction", "mean"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((model / "lm.json").read_text())
    assert manifest["settings"]["article_tokens"] == 16
    assert manifest["settings"]["reduction"] == "mean"
    assert manifest["adapter"] is None
    assert len(manifest["model_sha256"]) == 64
    assert set(manifest["versions"]) >= {"torch", "transformers", "peft"}
    out = tmp_path / "subtask1.csv"
    result = runner.invoke(
        main, ["predict", "--model", str(model), "--input", str(dev), "--output", str(out)]
    )
    assert result.exit_code == 0, result.output
    parsed = parse_submission(data=out.read_bytes(), filename="subtask1.csv", expected_ids={1: {1, 2, 3, 4}})
    assert set(parsed.files[0].predictions) == {1, 2, 3, 4}
    result = runner.invoke(main, ["score", "--predictions", str(out), "--gold", str(dev)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.strip().splitlines()[-1])["total"] == 4


def test_zero_shot_rejects_training_files_and_training_needs_them(tmp_path, tiny_lm_dir):
    dev = tmp_path / "dev.jsonl"
    write_questions(dev, _questions(), with_ids=True)
    base = ["train", "--reader", "lm", "--lm-model", str(tiny_lm_dir), "--output", str(tmp_path / "m")]
    result = CliRunner().invoke(main, [*base, "--zero-shot", "--train", str(dev)])
    assert result.exit_code != 0
    assert "--zero-shot trains nothing" in result.output
    result = CliRunner().invoke(main, base)
    assert result.exit_code != 0
    assert "--train" in result.output


def test_fine_tuning_lowers_the_listwise_loss_and_resumes(tmp_path, tiny_lm_dir):
    questions = _questions()
    settings = LMSettings(article_tokens=16, reduction="mean")
    config = FineTuneConfig(
        epochs=8, lr=5e-2, batch_size=2, lora_rank=4, time_budget_s=None, checkpoint_every=1
    )
    out = tmp_path / "ft"
    first = fine_tune(
        train=questions, dev=None, output_dir=out, settings=settings, model_path=str(tiny_lm_dir),
        config=FineTuneConfig(**{**config.__dict__, "epochs": 4}), device="cpu", progress=False,
    )  # fmt: skip
    assert first["steps_done"] == first["steps_planned"] == 8
    metrics = fine_tune(
        train=questions, dev=questions, output_dir=out, settings=settings, model_path=str(tiny_lm_dir),
        config=config, device="cpu", progress=False,
    )  # fmt: skip
    manifest = json.loads((out / "lm.json").read_text())
    assert metrics["steps_done"] == metrics["steps_planned"] == 16
    assert len(manifest["losses"]) == 16  # resumed at step 8, not restarted
    assert sum(manifest["losses"][-4:]) < sum(manifest["losses"][:4])
    assert metrics["dev_accuracy"] >= 0.5  # it fits its 4 training questions
    tuned = lm_probabilities(model_dir=out, questions=questions, device="cpu", progress=False)
    assert tuned.shape == (4, 5)
    torch.testing.assert_close(tuned.sum(-1), torch.ones(4, dtype=tuned.dtype))
    lm, loaded = load_lm_reader(out, device="cpu")
    assert loaded == settings
    assert not any("lora" in name for name, _ in lm.model.named_parameters())  # merged


def test_a_zero_budget_stops_before_the_first_step(tmp_path, tiny_lm_dir):
    metrics = fine_tune(
        train=_questions(), dev=None, output_dir=tmp_path / "ft", settings=LMSettings(article_tokens=8),
        config=FineTuneConfig(time_budget_s=0.0), model_path=str(tiny_lm_dir), device="cpu", progress=False,
    )  # fmt: skip
    assert metrics["stopped_by_budget"]
    assert metrics["steps_done"] == 0


def test_a_changed_model_file_is_refused(tmp_path, tiny_lm_dir):
    from baselines.lm_reader import write_zero_shot

    write_zero_shot(
        output_dir=tmp_path / "m", settings=LMSettings(), model_path=str(tiny_lm_dir), device="cpu"
    )
    manifest = json.loads((tmp_path / "m" / "lm.json").read_text())
    manifest["model_sha256"] = "0" * 64
    (tmp_path / "m" / "lm.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="sha256 differs"):
        load_lm_reader(tmp_path / "m", device="cpu")
