"""(i) A small upload that unpacks to millions of lines: the web request's time and peak memory.

The red-team file: a 46 KB deflated zip holding a ``subtask1.csv`` of 45 MiB of ``0,1`` lines (under the
50 MiB unpacked budget), sent through the web upload form (Django's test client, in this process) to the
evaluation phase of the ReCAM competition (its official test sets). Beside it: a bare 10 MiB CSV
of the same lines (the largest upload allowed) and a valid 2,025-line zip, as the reference. Each row
gives the request's wall time and the peak of Python memory allocated during it (tracemalloc), and the
process's resident memory growth over the row (ru_maxrss).
"""

import os
import resource
import statistics
import time
import tracemalloc
from pathlib import Path

from bench.django_env import BENCH_DIR, setup_django
from bench.floor import make_floor_input

SLUG = "recam-bench-bomb"
REPEATS = 5


def _uploads(data_dir: Path) -> list[tuple[str, str, bytes]]:
    from recam.submission import make_zip

    lines = b"0,1\n" * (45 * 2**18)  # 45 MiB
    valid, _, _ = make_floor_input(data_dir=data_dir, seed=13)
    return [
        ("zip of 45 MiB of '0,1' lines", "predictions.zip", make_zip({"subtask1.csv": lines})),
        ("bare subtask1.csv of 10 MiB of '0,1' lines", "subtask1.csv", lines[: 10 * 2**20]),
        ("valid zip, 2,025 lines (reference)", "predictions.zip", valid),
    ]


def _client(data_dir: Path):
    from django.contrib.auth import get_user_model
    from django.test import Client

    from competitions.services import competition_load_recam
    from teams.services import team_create

    competition = competition_load_recam(data_dir=data_dir, slug=SLUG).competition
    phase = competition.phases.get(kind="evaluation")
    phase.max_submissions_per_day = phase.max_submissions_total = None
    phase.save(update_fields=["max_submissions_per_day", "max_submissions_total"])
    user = get_user_model().objects.create_user(username="bench-bomb", password="x" * 20)
    team_create(competition=competition, user=user, name="bench bomb")
    client = Client()
    client.force_login(user)
    return client, competition, phase


def _measure(client, url: str, form: dict, name: str, data: bytes) -> tuple[float, float, int]:
    from django.core.files.uploadedfile import SimpleUploadedFile

    tracemalloc.start()
    start = time.perf_counter()
    response = client.post(url, {**form, "file": SimpleUploadedFile(name, data)})
    elapsed = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return elapsed * 1000, peak / 2**20, response.status_code


def run_upload_bomb(*, data_dir: Path, repeats: int = REPEATS) -> dict:
    database = BENCH_DIR / "upload-bomb.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
    os.environ.update(CACHE_URL="locmemcache://", RATELIMIT_ENABLED="false")
    # The valid upload's scoring task goes to an in-memory broker: it is sent, never run (not measured).
    os.environ.update(CELERY_BROKER_URL="memory://", CELERY_RESULT_BACKEND="cache+memory://")
    setup_django(database=database)
    from django.urls import reverse

    client, competition, phase = _client(data_dir)
    url = reverse("submit", args=[competition.slug])
    form = {
        "phase": phase.pk,
        "trained_on_1": 1,
        "trained_on_2": 2,
        "system_name": "bench",
        "description": "",
    }
    rows = []
    for label, name, data in _uploads(data_dir):
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        runs = [_measure(client, url, form, name, data) for _ in range(repeats)]
        rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        rows.append(
            {
                "upload": label,
                "upload_bytes": len(data),
                "http_status": sorted({status for _, _, status in runs}),
                "request_ms_median": round(statistics.median(ms for ms, _, _ in runs), 1),
                "request_ms_max": round(max(ms for ms, _, _ in runs), 1),
                "python_peak_mib_max": round(max(mib for _, mib, _ in runs), 1),
                "rss_growth_mib": round((rss_after - rss_before) / 1024, 1),
            }
        )
    return {
        "repeats": repeats,
        "phase": "evaluation; test questions per subtask: "
        + ", ".join(f"{ts.subtask}: {ts.num_questions:,}" for ts in phase.test_sets.order_by("subtask")),
        "server": "Django test client in process (no gunicorn), SQLite; the scoring task is sent, not run",
        "rows": rows,
    }
