"""``datagen.quality_report`` sent by name to a real Celery worker on the real Redis, with a tiny LM.

The LM is the ``tiny_lm`` directory of tests/datagen/conftest.py: the real loading and scoring code.
"""

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import redis
from celery import Celery

from recam.records import read_questions, write_questions

ROOT = Path(__file__).resolve().parents[3]
REDIS_DB = os.environ.get("QUALITY_TEST_REDIS_DB", "13")
BROKER_URL = f"redis://127.0.0.1:6379/{REDIS_DB}"


@pytest.fixture(scope="module")
def worker(tmp_path_factory):
    try:
        redis.Redis.from_url(BROKER_URL).ping()
    except redis.exceptions.ConnectionError:
        pytest.fail(f"no Redis at {BROKER_URL}: run scripts/ensure_redis.sh")
    queue = f"quality-test-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "CELERY_BROKER_URL": BROKER_URL,
        "CELERY_RESULT_BACKEND": BROKER_URL,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "OMP_NUM_THREADS": "1",
        "HF_HUB_OFFLINE": "1",
    }
    log = tmp_path_factory.mktemp("worker") / "worker.log"
    with log.open("wb") as handle:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "tasks.app", "worker", "-P", "solo", "-l", "warning",
             "-Q", queue, "-n", f"{queue}@%h", "--without-gossip", "--without-mingle", "--without-heartbeat"],
            cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        yield queue
    finally:
        process.terminate()
        process.wait(timeout=30)
        client = redis.Redis.from_url(BROKER_URL)
        client.delete(queue, *client.keys(f"_kombu.binding*.{queue}"))


def test_quality_report_by_name_on_a_worker(worker, tiny_lm, recam_data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("CELERY_BROKER_URL", BROKER_URL)  # Celery reads these before its constructor's broker
    monkeypatch.setenv("CELERY_RESULT_BACKEND", BROKER_URL)
    source = tmp_path / "dev8.jsonl"
    write_questions(source, read_questions(recam_data_dir / "training_data" / "Task_2_dev.jsonl")[:8])
    output = tmp_path / "report.json"
    client = Celery(broker=BROKER_URL, backend=BROKER_URL)  # a client that imports no task module
    kwargs = {"input_path": str(source), "output_path": str(output), "model_path": str(tiny_lm),
              "cache_dir": str(tmp_path / "cache")}  # fmt: skip
    result = client.send_task("datagen.quality_report", kwargs=kwargs, queue=worker)
    summary = result.get(timeout=300)
    assert summary["n_questions"] == 8
    report = json.loads(output.read_text())
    for key in ("with_article_accuracy", "options_only_accuracy", "effective_options", "contextual_mi"):
        assert report[key] == summary[key]
    assert len(report["questions"]) == 8
    assert 1.0 <= report["effective_options"]["lm"] <= 5.0
    assert report["scorers"]["lm"]["model"] == tiny_lm.name
