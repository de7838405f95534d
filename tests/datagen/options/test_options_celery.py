"""``datagen options --backend celery`` against a real worker on the real Redis: same bytes as the local run."""

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import redis

from recam.records import read_questions

ROOT = Path(__file__).resolve().parents[3]
# our own DB and queue: other engineers' workers never see these tasks, and ours never take theirs
REDIS_DB = os.environ.get("OPTIONS_TEST_REDIS_DB", "14")
BROKER_URL = f"redis://127.0.0.1:6379/{REDIS_DB}"
TINY = ["--folds", "2", "--readers", "att", "--epochs", "1", "--hidden", "8", "--hops", "1"]
TINY += ["--batch-size", "16", "--ranker", "readers", "--no-gate"]  # the paper path


def _env(queue: str) -> dict[str, str]:
    return {
        **os.environ,
        "CELERY_BROKER_URL": BROKER_URL,
        "CELERY_RESULT_BACKEND": BROKER_URL,
        "CELERY_GPU_QUEUE": queue,
        "PYTHONPATH": str(ROOT),  # the CLI runs from a temporary directory
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "OMP_NUM_THREADS": "1",  # a busy 2-core machine; and the same thread count as the local run
        "HF_HUB_OFFLINE": "1",
        "NLTK_DATA": os.environ.get("NLTK_DATA", str(ROOT / "var" / "nltk_data")),
    }


def _drop_queue(queue: str) -> None:
    client = redis.Redis.from_url(BROKER_URL)
    client.delete(queue, *client.keys(f"_kombu.binding*.{queue}"))


def _options(*args: str, env: dict[str, str], cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "datagen", "options", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


@pytest.fixture(scope="module")
def candidates(recam_data_dir, tmp_path_factory) -> Path:
    """32 real ReCAM Subtask 1 dev records as candidate questions (answer: the gold option)."""
    questions = read_questions(recam_data_dir / "training_data" / "Task_1_dev.jsonl")[:32]
    path = tmp_path_factory.mktemp("candidates") / "candidates.jsonl"
    with path.open("w") as handle:
        for q in questions:
            record = {"id": q.id, "article": q.article, "question": q.question, "answer": q.answer}
            handle.write(json.dumps({**record, "subtask": 1, "scores": {}}) + "\n")
    return path


@pytest.fixture(scope="module")
def worker(tmp_path_factory):
    """A real ``celery -A tasks.app worker`` on its own Redis DB and queue; yields its environment."""
    try:
        redis.Redis.from_url(BROKER_URL).ping()
    except redis.exceptions.ConnectionError:
        pytest.fail(f"no Redis at {BROKER_URL}: run scripts/ensure_redis.sh")
    queue = f"options-test-{uuid.uuid4().hex[:8]}"
    env = _env(queue)
    log = tmp_path_factory.mktemp("worker") / "worker.log"
    with log.open("wb") as handle:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "tasks.app", "worker", "-P", "solo", "-l", "warning",
             "-Q", queue, "-n", f"{queue}@%h", "--without-gossip", "--without-mingle", "--without-heartbeat"],
            cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        yield env
    finally:
        process.terminate()
        process.wait(timeout=60)
        _drop_queue(queue)
        print(log.read_text(errors="replace")[-3000:])  # shown by pytest when a test failed


@pytest.mark.integration
def test_celery_backend_writes_the_same_bytes_as_the_local_run(worker, candidates, tmp_path):
    # relative paths, from a directory that is not the worker's: the worker must get absolute ones
    celery = _options(
        "--candidates", str(candidates), "--output", "celery/recam.jsonl", "--work-dir", "celery-work",
        *TINY, "--backend", "celery", "--timeout", "300",
        env=worker, cwd=tmp_path,
    )  # fmt: skip
    assert celery.returncode == 0, celery.stdout + celery.stderr
    assert "sent 2 fold trainings to the Celery queue" in celery.stdout
    # the worker trained every fold: the CLI process itself never trains on the celery backend
    assert len(list((tmp_path / "celery-work").glob("subtask1/*-fold*/model/DONE"))) == 2
    local = _options(
        "--candidates", str(candidates), "--output", str(tmp_path / "local" / "recam.jsonl"),
        "--work-dir", str(tmp_path / "local-work"), *TINY, "--backend", "local", "--threads", "1",
        env=worker,
    )  # fmt: skip
    assert local.returncode == 0, local.stdout + local.stderr
    local_bytes = (tmp_path / "local" / "recam.jsonl").read_bytes()
    assert len(local_bytes.splitlines()) >= 16  # most of the 32 questions survive: a real comparison
    assert (tmp_path / "celery" / "recam.jsonl").read_bytes() == local_bytes
    reports = [json.loads((tmp_path / d / "recam.report.json").read_text()) for d in ("celery", "local")]
    assert reports[0]["retrieval"] == reports[1]["retrieval"]
    assert set(reports[0]["retrieval"]["1"]) == {"att"}


@pytest.mark.integration
def test_a_failure_on_the_worker_ends_the_cli_with_its_message(worker, candidates, tmp_path):
    bad_vectors = tmp_path / "vectors.txt"
    bad_vectors.write_text("notavector\n")  # the CLI only checks it exists; the worker reads it
    result = _options(
        "--candidates", str(candidates), "--output", str(tmp_path / "recam.jsonl"),
        "--work-dir", str(tmp_path / "work"), "--vectors", str(bad_vectors), *TINY,
        "--backend", "celery", "--timeout", "300", env=worker,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    assert "subtask 1, att, fold 0 failed on the worker: ValueError:" in result.stderr
    assert "vectors.txt:1: expected `word v1 ... vN`" in result.stderr
    assert not (tmp_path / "recam.jsonl").exists()


@pytest.mark.integration
def test_no_worker_on_the_queue_ends_the_cli_after_the_timeout(candidates, tmp_path):
    env = _env(f"options-test-nobody-{uuid.uuid4().hex[:8]}")
    result = _options(
        "--candidates", str(candidates), "--output", str(tmp_path / "recam.jsonl"),
        "--work-dir", str(tmp_path / "work"), *TINY, "--backend", "celery", "--timeout", "2", env=env,
    )  # fmt: skip
    _drop_queue(env["CELERY_GPU_QUEUE"])
    assert result.returncode == 1, result.stdout + result.stderr
    assert "subtask 1, att, fold 0: no result after 2 s" in result.stderr
    assert f"consuming the Celery queue {env['CELERY_GPU_QUEUE']!r}" in result.stderr
    assert not (tmp_path / "recam.jsonl").exists()


def test_the_gate_runs_over_celery_with_the_same_bytes_as_locally(worker, candidates, tiny_lm, tmp_path):
    """``--ranker lm --gate``: the gate's LM scoring goes to the worker by task name, in shards."""
    lm = ["--folds", "2", "--ranker", "lm", "--gate", "--lm-model", str(tiny_lm), "--lm-top", "30"]
    lm += ["--gate-lm2", str(tiny_lm)]  # the second LM's scoring goes to the worker too (gate version 4)
    celery = _options(
        "--candidates", str(candidates), "--output", str(tmp_path / "celery" / "recam.jsonl"),
        "--work-dir", str(tmp_path / "celery-work"), *lm, "--backend", "celery", "--timeout", "300", env=worker,
    )  # fmt: skip
    assert celery.returncode == 0, celery.stdout + celery.stderr
    assert "gate shard(s) to the Celery queue" in celery.stdout
    local = _options(
        "--candidates", str(candidates), "--output", str(tmp_path / "local" / "recam.jsonl"),
        "--work-dir", str(tmp_path / "local-work"), *lm, "--backend", "local", env=worker,
    )  # fmt: skip
    assert local.returncode == 0, local.stdout + local.stderr
    assert (tmp_path / "celery" / "recam.why.jsonl").read_bytes() == (
        tmp_path / "local" / "recam.why.jsonl"
    ).read_bytes()
    assert (tmp_path / "celery" / "recam.jsonl").read_bytes() == (
        tmp_path / "local" / "recam.jsonl"
    ).read_bytes()


def test_gate_shards_scored_before_a_failed_shard_stay_in_the_cache(worker, tiny_lm, tmp_path, monkeypatch):
    """A shard that fails on the worker ends the run, but every shard before it is already in the work
    dir's cache (the results stream in shard by shard), so a rerun resumes instead of starting over."""
    import click

    from datagen.cli import celery_client
    from datagen.cli.options import _celery_scorer
    from datagen.options.finish import _cached_gate_scores

    monkeypatch.setenv("CELERY_BROKER_URL", BROKER_URL)  # Celery reads these before its constructor's broker
    monkeypatch.setenv("CELERY_RESULT_BACKEND", BROKER_URL)
    monkeypatch.setattr(
        celery_client, "settings",
        celery_client.ClientSettings(
            CELERY_BROKER_URL=BROKER_URL, CELERY_RESULT_BACKEND=BROKER_URL, CELERY_CPU_QUEUE="cpu",
            CELERY_GPU_QUEUE=worker["CELERY_GPU_QUEUE"], CELERY_LONG_TASK_TIME_LIMIT=300,
        ),
    )  # fmt: skip
    celery_client.client_app.cache_clear()
    good = [
        {"id": i, "article": f"The council met on day {i}.", "question": "The council @placeholder plans.",
         "answer": "announced", "words": ["announced", "rejected"], "must": ["announced", "rejected"], "top": 0}
        for i in range(8)
    ]  # fmt: skip
    bad = [{**good[0], "id": "bad", "question": "No blank in this summary."}]  # the worker raises on it
    try:
        with pytest.raises(click.ClickException, match=r"gate shard 2 of 2 failed: ValueError") as failed:
            _cached_gate_scores(
                work=tmp_path, items=good + bad, score_many=_celery_scorer(lm_model=str(tiny_lm), timeout=300),
                chunk=None,
            )  # fmt: skip
        assert "rerun to resume" in failed.value.message
        cached = [json.loads(line) for line in (tmp_path / "gate-scores.jsonl").read_text().splitlines()]
        assert [c["id"] for c in cached] == list(range(8))  # the whole first shard was kept
        assert all(set(c["article"]) == {"announced", "rejected"} for c in cached)
    finally:
        celery_client.client_app.cache_clear()
