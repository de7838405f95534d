"""The shared fine-tune loop's checkpoints: today's layout, the two layouts of the code before it, bad files.

A tiny linear model stands in for the encoder (the loop only needs a torch module); the encoder
trainers' own resume tests (test_encoder.py, test_encoder_mlm.py) run the real MiniLM.
"""

import pytest
import torch
from click.testing import CliRunner

from baselines.cli import main
from baselines.finetune import CHECKPOINT, FineTuneRun
from baselines.finetune_settings import FineTuneSettings, questions_sha256
from recam.records import read_questions

SETTINGS = {"seed": 3, "lr": 0.05, "inputs": "fixed"}
POINTS = torch.tensor([[1.0, 2.0], [0.5, -1.0], [-2.0, 0.3]])  # Shape: (3, 2)


def tiny_linear(_model_dir, _device):
    return None, torch.nn.Linear(2, 1)


def open_run(output_dir, *, scheduled: bool) -> FineTuneRun:
    return FineTuneRun.start(
        output_dir=output_dir,
        base_dir=output_dir,
        settings=SETTINGS,
        device="cpu",
        kind="tiny",
        load=tiny_linear,
        schedule=(lambda opt: torch.optim.lr_scheduler.StepLR(opt, step_size=2)) if scheduled else None,
    )


def train(run: FineTuneRun, steps: int, *, noisy: bool) -> None:
    """``noisy``: each step draws on the global RNG (as the encoder's dropout does), so a resume must
    restore it; otherwise a step is a function of its number (as the masked-LM runs' seeded masks)."""

    def step_loss(step: int) -> torch.Tensor:
        target = torch.randn(1) if noisy else torch.tensor([float(step)])
        return ((run.model(POINTS[step % 3]) - target) ** 2).sum()

    run.train(step_loss=step_loss, total_steps=steps, budget_s=None, clip=True, desc="t", progress=False)


def old_encoder_layout(saved: dict) -> dict:
    """What train_encoder wrote before the shared loop: step, elapsed and losses at the top level."""
    old = {key: saved[key] for key in ("settings", "model", "optimizer", "scheduler", "rng")}
    return old | saved["state"]


def old_masked_lm_layout(saved: dict) -> dict:
    """What the masked-LM runs wrote before the shared loop: no scheduler and no RNG state."""
    return {key: saved[key] for key in ("settings", "model", "optimizer", "state")}


@pytest.mark.parametrize(
    ("layout", "scheduled", "noisy"),
    [(old_encoder_layout, True, True), (old_masked_lm_layout, False, False)],
)
def test_a_half_finished_run_of_the_old_code_resumes(tmp_path, layout, scheduled, noisy):
    straight = open_run(tmp_path / "straight", scheduled=scheduled)
    train(straight, 6, noisy=noisy)
    train(open_run(tmp_path / "run", scheduled=scheduled), 3, noisy=noisy)
    path = tmp_path / "run" / CHECKPOINT
    torch.save(layout(torch.load(path, weights_only=False)), path)

    resumed = open_run(tmp_path / "run", scheduled=scheduled)
    assert resumed.state["step"] == 3
    train(resumed, 6, noisy=noisy)
    assert resumed.state["losses"] == straight.state["losses"]
    assert torch.equal(resumed.model.weight, straight.model.weight)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not a torch file", "not a readable checkpoint"),
        ({"weights": 1}, "not a checkpoint of these trainers"),
        ({"settings": SETTINGS, "model": {}, "optimizer": {}}, "a checkpoint with no training state"),
    ],
)
def test_an_unusable_checkpoint_is_a_value_error_naming_the_file_and_what_to_do(tmp_path, content, message):
    tmp_path.mkdir(exist_ok=True)
    path = tmp_path / CHECKPOINT
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        torch.save(content, path)
    with pytest.raises(
        ValueError, match=rf"{CHECKPOINT}: {message}.*delete it .* or train into a new --output"
    ):
        open_run(tmp_path, scheduled=True)


def test_a_checkpoint_of_another_model_is_a_value_error(tmp_path):
    train(open_run(tmp_path, scheduled=False), 2, noisy=False)
    path = tmp_path / CHECKPOINT
    saved = torch.load(path, weights_only=False)
    saved["model"] = {"weight": torch.zeros(3, 3)}
    torch.save(saved, path)
    with pytest.raises(ValueError, match=rf"{CHECKPOINT}: does not fit this model.*delete it"):
        open_run(tmp_path, scheduled=False)


def test_the_cli_reports_an_unreadable_checkpoint_without_a_traceback(tmp_path, recam_data_dir):
    output = tmp_path / "run"
    output.mkdir()
    (output / CHECKPOINT).write_bytes(b"half-written")
    train_file = recam_data_dir / "training_data" / "Task_1_dev.jsonl"
    args = ["train", "--reader", "encoder", "--train", str(train_file), "--output", str(output)]
    result = CliRunner().invoke(main, [*args, "--epochs", "1", "--device", "cpu", "--quiet"])
    assert result.exit_code == 1
    assert f"Error: {output / CHECKPOINT}: not a readable checkpoint" in result.output
    assert "delete it to train this run from the start, or train into a new --output" in result.output
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, KeyError)


def test_settings_are_checked_when_made():
    with pytest.raises(ValueError, match=r"bad settings epochs=0 batch_size=8 max_length=256"):
        FineTuneSettings(epochs=0)
    with pytest.raises(ValueError, match=r"max_length=8"):
        FineTuneSettings(max_length=8)


def test_the_identity_has_the_names_of_the_manifests_and_checkpoints_written_before(recam_data_dir):
    """A run started with keyword settings (before FineTuneSettings) must still match its checkpoint."""
    questions = read_questions(recam_data_dir / "training_data" / "Task_1_dev.jsonl", require_labels=True)
    identity = FineTuneSettings(epochs=1.0, lr=1e-4).identity(train=questions[:3], dev=questions[3:5])
    assert identity == {
        "epochs": 1.0,
        "max_length": 256,
        "batch_size": 8,
        "lr": 1e-4,
        "time_budget_s": None,
        "seed": 13,
        "train_sha256": questions_sha256(questions[:3]),
        "train_size": 3,
        "dev_sha256": questions_sha256(questions[3:5]),
    }
    assert FineTuneSettings().identity(train=questions[:3], dev=None)["dev_sha256"] is None
