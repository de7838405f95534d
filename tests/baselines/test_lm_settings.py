"""The LM reader's cost settings on a tiny random Llama: LoRA on the top layers only, the weight dtype."""

import re

import pytest
import torch
from click.testing import CliRunner

from baselines import lm_reader
from baselines.cli import main
from baselines.lm_loading import load_causal_lm, resolve_dtype
from baselines.lm_reader import FineTuneConfig, LMSettings, fine_tune, lora_layer_indices
from baselines.lm_scorer import option_logprobs
from recam.records import Question, write_questions
from tests.baselines.conftest import TEXTS

QUESTIONS = [
    Question(id=1, article=TEXTS[0], question="The council @placeholder the budget.",
             options=("approved", "won", "found", "lost", "became"), label=0),
    Question(id=2, article=TEXTS[1], question="Staff at the @placeholder lost their jobs.",
             options=("river", "factory", "match", "council", "goal"), label=1),
]  # fmt: skip


def test_the_default_adapts_the_top_quarter_rounded_up():
    assert lora_layer_indices(num_layers=30, lora_layers=None) == list(range(22, 30))  # SmolLM2-135M
    assert lora_layer_indices(num_layers=2, lora_layers=None) == [1]
    assert lora_layer_indices(num_layers=30, lora_layers=0) == list(range(30))
    assert lora_layer_indices(num_layers=30, lora_layers=3) == [27, 28, 29]
    assert lora_layer_indices(num_layers=4, lora_layers=9) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match=">= 0"):
        lora_layer_indices(num_layers=30, lora_layers=-1)


def test_backward_reaches_only_the_adapted_top_layer(tiny_lm_dir):
    lm = load_causal_lm(model_path=str(tiny_lm_dir), device="cpu")
    lm_reader._add_lora(lm.model, rank=4, layers=[1])
    lora = {name: p for name, p in lm.model.named_parameters() if "lora_" in name}
    assert lora
    assert all(".layers.1." in name for name in lora)
    seen = set()  # (layer, its input is in the autograd graph, its output is)

    def record(module, args, output, *, index):
        out = output[0] if isinstance(output, tuple) else output
        seen.add((index, args[0].requires_grad, out.requires_grad))

    hooks = [
        layer.register_forward_hook(lambda m, a, o, i=i: record(m, a, o, index=i))
        for i, layer in enumerate(lm.model.get_decoder().layers)
    ]
    lm.model.train()
    lm_reader._listwise_loss(lm, QUESTIONS, LMSettings(article_tokens=8)).backward()
    for hook in hooks:
        hook.remove()
    assert seen == {(0, False, False), (1, False, True)}  # the graph starts inside layer 1
    assert all(p.grad is not None for p in lora.values())
    assert all(p.grad.abs().sum() > 0 for name, p in lora.items() if "lora_B" in name)  # B starts at 0
    assert all(p.grad is None for name, p in lm.model.named_parameters() if "lora_" not in name)


def test_fine_tuning_records_its_layers_and_cost(tmp_path, tiny_lm_dir):
    metrics = fine_tune(
        train=QUESTIONS, dev=None, output_dir=tmp_path / "ft", settings=LMSettings(article_tokens=8),
        config=FineTuneConfig(epochs=1, batch_size=1, lora_rank=2, time_budget_s=None, lora_layers=1),
        model_path=str(tiny_lm_dir), device="cpu", progress=False,
    )  # fmt: skip
    assert metrics["lora_layers"] == [1, 1]
    assert metrics["steps_done"] == 2
    assert metrics["seconds_per_question"] > 0


def test_dtype_setting(monkeypatch, tiny_lm_dir):
    monkeypatch.delenv("LM_DTYPE", raising=False)
    assert resolve_dtype(device="cpu") == torch.float32
    assert resolve_dtype(device="cuda") == torch.bfloat16
    monkeypatch.setenv("LM_DTYPE", "bfloat16")
    assert resolve_dtype(device="cpu") == torch.bfloat16
    assert resolve_dtype(device="cpu", dtype="float32") == torch.float32  # the argument wins
    monkeypatch.setenv("LM_DTYPE", "int3")
    with pytest.raises(ValueError, match="float32, bfloat16"):
        resolve_dtype(device="cpu")
    monkeypatch.setenv("LM_DTYPE", "bfloat16")
    lm = load_causal_lm(model_path=str(tiny_lm_dir), device="cpu")
    assert next(lm.model.parameters()).dtype == torch.bfloat16
    data = {"articles": [q.article for q in QUESTIONS], "questions": [q.question for q in QUESTIONS]}
    scores = option_logprobs(lm, **data, options=[q.options for q in QUESTIONS], article_tokens=8)
    assert scores.shape == (2, 5)
    assert (scores < 0).all()


def test_lora_layers_from_the_environment(tmp_path, tiny_lm_dir, monkeypatch):
    train = tmp_path / "train.jsonl"
    write_questions(train, QUESTIONS)
    args = ["train", "--reader", "lm", "--train", str(train), "--lm-model", str(tiny_lm_dir), "--epochs", "0.5",
            "--article-tokens", "8", "--quiet", "--output", str(tmp_path / "m")]  # fmt: skip
    monkeypatch.setenv("LM_LORA_LAYERS", "two")
    result = CliRunner().invoke(main, args)
    assert result.exit_code != 0
    assert "LM_LORA_LAYERS must be an integer" in result.output
    monkeypatch.setenv("LM_LORA_LAYERS", "0")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert '"lora_layers": [\n  0,\n  1\n ]' in result.output  # 0 = every layer of the two


def test_lora_layers_option_overrides_the_environment(tmp_path, tiny_lm_dir, monkeypatch):
    train = tmp_path / "train.jsonl"
    write_questions(train, QUESTIONS)
    args = ["train", "--reader", "lm", "--train", str(train), "--lm-model", str(tiny_lm_dir), "--epochs", "0.5",
            "--article-tokens", "8", "--quiet", "--output", str(tmp_path / "m"), "--lora-layers", "1"]  # fmt: skip
    monkeypatch.setenv("LM_LORA_LAYERS", "0")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    found = re.findall(r'"lora_layers": \[([\d,\s]*)\]', result.output)
    # the metrics give the first and last adapted layer: from 1 to 1, the top one of the two layers only
    assert [[int(x) for x in f.replace(",", " ").split()] for f in found] == [[1, 1]]
