"""(l) CPU per upload by component, in one process: what (b)'s throughput on 2 cores is made of.

The same upload as (b) (one team's 2,025-line zipped subtask1.csv to the evaluation phase of a throw-away
competition) goes through Django's full request stack in process (``django.test.Client``: middleware,
token authentication, DRF, the views; no gunicorn, no HTTP), then the scoring service runs in process
(no Celery). Each component is timed with ``time.process_time`` (CPU of this process only, so the machine's
load barely moves it, unlike wall-clock figures) and its database statements are counted:

- the upload request (answered 201, with its queue place and ETA),
- a status poll while the submission is queued, and one after it is scored (what a client pays per poll),
- the scoring service (``submission_score``: the claim, the parse or stored labels, gold, the score, the
  commit of the score and board rows, the statistics request).

The scoring task is sent by name to a queue no worker reads (nothing is scored twice); the statistics
task likewise. PostgreSQL's own CPU is not in these figures ((b) reports it per upload).
"""

import os
import statistics
import time
from pathlib import Path

REPEATS = int(os.environ.get("BENCH_CPU_REPEATS", "40"))


def _median_cpu_ms(calls) -> float:
    """Median CPU milliseconds of this process over the calls (each a no-argument callable)."""
    spent = []
    for call in calls:
        start = time.process_time()
        call()
        spent.append((time.process_time() - start) * 1000)
    return round(statistics.median(spent), 2)


def run_upload_cpu(*, data_dir: Path, database_url: str | None = None, repeats: int = REPEATS) -> dict:
    os.environ["CELERY_SCORING_QUEUE"] = f"bench-cpu-unread-{os.getpid()}"  # sent, never consumed
    os.environ["RATELIMIT_ENABLED"] = "false"
    os.environ["ALLOWED_HOSTS"] = "testserver"
    from bench.upload import DEFAULT_DATABASE_URL, PHASE, SLUG, _prepare_phase, _team_files

    database_url = database_url or os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE_URL)
    gold, tokens = _prepare_phase(data_dir=data_dir, database_url=database_url, teams=1)
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.db import connection

    # Persistent connections, as (b) runs its servers (``_persistent``): else every request reconnects.
    connection.settings_dict["CONN_MAX_AGE"] = 60 if database_url.startswith("postgres") else 0
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from submissions.scoring import submission_score

    data = _team_files(data_dir=data_dir, gold=gold, count=1)[0][0]
    client = Client(HTTP_AUTHORIZATION=f"Token {tokens[0]}")
    upload_url = f"/api/phases/{PHASE}/submissions/?competition={SLUG}"
    created: list[int] = []

    def upload() -> None:
        response = client.post(upload_url, {"file": SimpleUploadedFile("predictions.zip", data)})
        if response.status_code != 201:
            raise RuntimeError(f"upload answered {response.status_code}: {response.content[:300]!r}")
        created.append(response.json()["id"])

    def poll(pk: int):
        def call() -> None:
            response = client.get(f"/api/submissions/{pk}/")
            if response.status_code != 200:
                raise RuntimeError(f"poll answered {response.status_code}")

        return call

    def score(pk: int):
        return lambda: submission_score(submission_id=pk)

    for _ in range(3):  # warm-up: imports, connections, the first scoring's caches
        upload()
        poll(created[-1])()
        score(created[-1])()
        poll(created[-1])()
    created.clear()
    cpu = {"upload_request": _median_cpu_ms([upload] * repeats)}
    cpu["poll_queued"] = _median_cpu_ms([poll(pk) for pk in created])
    cpu["scoring_service"] = _median_cpu_ms([score(pk) for pk in created])
    cpu["poll_scored"] = _median_cpu_ms([poll(pk) for pk in created])

    queries = {}
    with CaptureQueriesContext(connection) as captured:
        upload()
    queries["upload_request"] = len(captured)
    pk = created[-1]
    for name, call in (("poll_queued", poll(pk)), ("scoring_service", score(pk)), ("poll_scored", poll(pk))):
        with CaptureQueriesContext(connection) as captured:
            call()
        queries[name] = len(captured)
    rows = [
        {"component": name, "cpu_ms_median": cpu[name], "statements": queries[name]}
        for name in ("upload_request", "poll_queued", "scoring_service", "poll_scored")
    ]
    return {
        "database": database_url.split("@")[-1],
        "repeats": repeats,
        "upload": f"subtask1.csv zipped ({len(data):,} bytes) to the {PHASE} phase, in process",
        "cpu_ms_upload_plus_scoring_plus_one_poll": round(
            cpu["upload_request"] + cpu["scoring_service"] + cpu["poll_scored"], 2
        ),
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "rows": rows,
    }
