"""``--backend celery`` against a real worker on the real Redis: same bytes as the local run."""

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from datagen.targets.pipeline import Settings
from datagen.targets.shards import run_candidates
from tests.datagen.targets.test_pipeline import small_pairs

ROOT = Path(__file__).resolve().parents[3]
REDIS_DB = os.environ.get("DATAGEN_TEST_REDIS_DB", "13")  # our own DB: other engineers' workers never see it


@pytest.mark.integration
def test_celery_backend_writes_the_same_bytes_as_the_local_run(xsum_path, tmp_path):
    small_pairs(xsum_path, tmp_path / "in.jsonl", count=4, chars=500)
    tag = uuid.uuid4().hex[:8]
    env = {
        **os.environ,
        "CELERY_BROKER_URL": f"redis://127.0.0.1:6379/{REDIS_DB}",
        "CELERY_RESULT_BACKEND": f"redis://127.0.0.1:6379/{REDIS_DB}",
        "CELERY_CPU_QUEUE": f"datagen-test-cpu-{tag}",
        "CELERY_GPU_QUEUE": f"datagen-test-gpu-{tag}",
        "HF_HUB_OFFLINE": "1",
        "NLTK_DATA": os.environ.get("NLTK_DATA", str(ROOT / "var" / "nltk_data")),
    }
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "tasks.app", "worker", "-P", "solo", "-l", "warning",
         "-Q", f"{env['CELERY_CPU_QUEUE']},{env['CELERY_GPU_QUEUE']}", "-n", f"datagen-test-{tag}@%h",
         "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        cli = subprocess.run(
            [sys.executable, "-m", "datagen", "candidates", "--input", str(tmp_path / "in.jsonl"), "--subtask", "2",
             "--output", str(tmp_path / "celery.jsonl"), "--backend", "celery", "--shard-size", "2", "--quiet"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
    finally:
        worker.terminate()
        _, worker_err = worker.communicate(timeout=60)
    assert cli.returncode == 0, cli.stderr + worker_err.decode(errors="replace")[-2000:]
    assert "in.jsonl:5: skipped" in cli.stderr
    run_candidates(
        input_path=tmp_path / "in.jsonl",
        output_path=tmp_path / "local.jsonl",
        settings=Settings(subtask=2),
        shard_size=2,
        progress=False,
    )
    local = (tmp_path / "local.jsonl").read_bytes()
    assert local  # a non-empty output, so the comparison means something
    assert (tmp_path / "celery.jsonl").read_bytes() == local
