"""`make baselines` (scripts/baselines.sh) routes each reader to the right commands.

The script's Python is replaced by a recorder, so the shell logic (which model, which flags, the
zero-shot copy) is checked without hours of training; the commands themselves are tested elsewhere."""

import os
import subprocess
from pathlib import Path

RECORDER = """#!/usr/bin/env bash
echo "$*" >> "$CALLS"
out=""; prev=""
for a in "$@"; do [ "$prev" = --output ] && out=$a; prev=$a; done
if [ -n "$out" ]; then mkdir -p "$(dirname "$out")"; : > "$out"; fi
"""


def run_script(tmp_path: Path, readers: str) -> list[str]:
    data = tmp_path / "data"
    for name in ("trail_data/Task_1_Imperceptibility.jsonl", "trail_data/Task_2_Nonspecificity.jsonl",
                 "training_data/Task_1_dev.jsonl", "training_data/Task_2_dev.jsonl"):  # fmt: skip
        (data / name).parent.mkdir(parents=True, exist_ok=True)
        (data / name).write_text("")
    gemma = tmp_path / "gemma.gguf"
    gemma.write_bytes(b"GGUF")
    recorder = tmp_path / "python"
    recorder.write_text(RECORDER)
    recorder.chmod(0o755)
    calls = tmp_path / "calls.txt"
    env = {**os.environ, "PYTHON": str(recorder), "CALLS": str(calls), "RECAM_DATA_DIR": str(data),
           "BASELINES_DIR": str(tmp_path / "out"), "READERS": readers, "GEMMA_MODEL": str(gemma),
           "BASELINES_SUBMIT": "0", "XSUM_PATH": str(tmp_path / "none.jsonl")}  # fmt: skip
    root = Path(__file__).resolve().parents[2]
    subprocess.run(["bash", "scripts/baselines.sh"], cwd=root, env=env, check=True, capture_output=True)
    return calls.read_text().splitlines()


def test_gemma_readers_use_the_gemma_file(tmp_path):
    calls = run_script(tmp_path, "gemma-zs gemma")
    gemma = str(tmp_path / "gemma.gguf")
    trains = [c for c in calls if c.startswith("-m baselines train")]
    assert len(trains) == 3  # one zero-shot model, one LoRA model per subtask
    zero_shot = [c for c in trains if "--zero-shot" in c]
    assert len(zero_shot) == 1
    assert f"--lm-model {gemma}" in zero_shot[0]
    assert "--train" not in zero_shot[0]
    for n, trial in ((1, "Task_1_Imperceptibility"), (2, "Task_2_Nonspecificity")):
        (lora,) = [c for c in trains if f"gemma-st{n} " in c + " "]
        assert f"--lm-model {gemma}" in lora
        assert f"--train {tmp_path}/data/trail_data/{trial}.jsonl" in lora
        assert "--article-tokens 128" in lora
    predicts = [c for c in calls if c.startswith("-m baselines predict")]
    assert len(predicts) == 2 + 4  # zero-shot once per dev file; each LoRA model on both dev files
    copied = tmp_path / "out" / "predictions" / "gemma-zs-st2"
    assert (copied / "subtask1.csv").exists()
    assert (copied / "subtask2.csv").exists()


def test_smollm2_readers_keep_the_default_model(tmp_path):
    calls = run_script(tmp_path, "lm-zs lm")
    trains = [c for c in calls if c.startswith("-m baselines train")]
    assert len(trains) == 3
    assert not any("--lm-model" in c for c in trains)
    assert sum("--zero-shot" in c for c in trains) == 1
