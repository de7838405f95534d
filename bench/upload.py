"""(b) Upload to score visible, through HTTP (gunicorn + the token API) with a real Celery worker.

Each simulated team uploads the same 2,025-line file as the floor (a) (Task 1 test ids, random labels) to
the evaluation phase of a throw-away competition whose gold labels are random too, and polls its
submission until its score is in the answer (the phase's results are published for this, so the
score itself is visible, not only the "scored" status). Latency = from the start of the upload to the
first poll whose answer holds the score; each client polls as a scripted client would: after
POLL_FIRST_MS, then doubling the interval up to POLL_MS.
Run with 1 team and with 20 concurrent teams. Targets: p95 < 1 s at 20 teams; within 20x of the floor
(a) at 1 team. Each row also gives where the time went, from the submissions' own timestamps.

Sized for 2 cores: gunicorn with cpu_count sync workers (not 2 x cores + 1: the scoring worker and
PostgreSQL need the same cores) and one Celery worker (prefork, concurrency 2). BENCH_WEB_WORKERS,
BENCH_WEB_THREADS, BENCH_WORKER_POOL, BENCH_WORKER_CONCURRENCY, BENCH_POLL_FIRST_MS and BENCH_POLL_MS override them for experiments.
"""

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests

from bench.django_env import BENCH_DIR, ROOT, setup_django
from bench.floor import make_floor_input, percentile, run_floor
from bench.serve import _free_port, _wait_ready, stop_servers

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/recam_bench"
SLUG = "recam-bench-upload"
PHASE = "evaluation"
POLL_MS = int(os.environ.get("BENCH_POLL_MS", "25"))  # a scripted client's longest status poll interval
# A first poll sooner than POLL_MS (doubling up to it) measured slower here: an early poll that misses
# takes a web process and CPU while the worker scores (1.9 polls per upload, p50 90 ms vs 67 ms).
POLL_FIRST_MS = int(os.environ.get("BENCH_POLL_FIRST_MS", str(POLL_MS)))


def _recreate_postgres(url: str) -> None:
    """Drop and create the benchmark database (it holds nothing else)."""
    import psycopg

    base, name = url.rsplit("/", 1)
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def _persistent(url: str, seconds: int = 60) -> str:
    """The database URL with persistent connections (CONN_MAX_AGE), as docs/operations.md advises for
    production: without them every request and every task opens a new PostgreSQL connection (a forked
    backend), which on a 2-core machine costs more than the scoring itself."""
    if not url.startswith("postgres") or "conn_max_age" in url:
        return url
    return f"{url}{'&' if '?' in url else '?'}conn_max_age={seconds}"


_TICK = os.sysconf("SC_CLK_TCK")


def _cmdline(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def _cpu_seconds(roots: list[int], database: str) -> dict[str, float]:
    """CPU seconds (user + system) used so far by the process trees under ``roots`` (web, worker), by
    the PostgreSQL backends of ``database`` and by this process (the clients), read from /proc."""
    stats = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                text = (entry / "stat").read_text()
            except OSError:  # exited meanwhile
                continue
            name, rest = text[text.index("(") + 1 : text.rindex(")")], text[text.rindex(")") + 2 :].split()
            stats[int(entry.name)] = (name, int(rest[1]), (int(rest[11]) + int(rest[12])) / _TICK)
    totals = {"web": 0.0, "worker": 0.0, "postgres": 0.0, "clients": 0.0}
    for pid, (name, _ppid, seconds) in stats.items():
        ancestor = pid
        while ancestor in stats and ancestor not in roots:
            ancestor = stats[ancestor][1]
        if ancestor in roots:
            totals["web" if ancestor == roots[0] else "worker"] += seconds
        elif name.startswith("postgres") and database in _cmdline(pid):  # this database's backends
            totals["postgres"] += seconds
    totals["clients"] = stats.get(os.getpid(), ("", 0, 0.0))[2]
    return totals


def _teams(count: int) -> list[str]:
    """Create ``count`` users, each in its own team; return their API tokens."""
    from django.contrib.auth import get_user_model

    from api.services import token_get_or_create
    from competitions.models import Competition
    from teams.services import team_create

    competition = Competition.objects.get(slug=SLUG)
    tokens = []
    for index in range(count):
        user, _ = get_user_model().objects.get_or_create(username=f"bench-{index:03d}")
        if not user.memberships.exists():
            team_create(competition=competition, user=user, name=f"bench team {index:03d}")
        tokens.append(token_get_or_create(user=user).key)
    return tokens


def _one_team(
    base: str,
    token: str,
    data: bytes,
    uploads: int,
    out: list[tuple[float, float, int, int]],
    errors: list[str],
) -> None:
    session = requests.Session()
    session.headers["Authorization"] = f"Token {token}"
    url = f"{base}/api/phases/{PHASE}/submissions/?competition={SLUG}"
    for _ in range(uploads):
        start = time.perf_counter()
        response = session.post(url, files={"file": ("predictions.zip", data)}, timeout=60)
        if response.status_code != 201:
            errors.append(f"upload: HTTP {response.status_code} {response.text[:200]}")
            continue
        accepted = time.perf_counter()
        pk = response.json()["id"]
        body = response.json()
        polls = 0
        wait_ms = POLL_FIRST_MS
        while not (body["status"] in ("failed", "waiting") or body["scores"]):
            time.sleep(wait_ms / 1000)
            wait_ms = min(2 * wait_ms, POLL_MS)
            body = session.get(f"{base}/api/submissions/{pk}/", timeout=60).json()
            polls += 1
        if not body["scores"]:
            errors.append(f"submission {pk}: {body['status']} {body.get('failure_reason')}")
            continue
        out.append(((accepted - start) * 1000, (time.perf_counter() - start) * 1000, pk, polls))


def _measure(
    base: str, tokens: list[str], data: bytes, uploads_per_team: int, roots: list[int], database: str
) -> dict:
    results: list[tuple[float, float, int, int]] = []
    errors: list[str] = []
    threads = [
        threading.Thread(target=_one_team, args=(base, token, data, uploads_per_team, results, errors))
        for token in tokens
    ]
    cpu_before = _cpu_seconds(roots, database)
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    cpu_after = _cpu_seconds(roots, database)
    accepted = [r[0] for r in results]
    latencies = [r[1] for r in results]
    return {
        "teams": len(tokens),
        "uploads": len(tokens) * uploads_per_team,
        "scored": len(latencies),
        "errors": len(errors),
        "first_error": errors[0] if errors else "",
        "upload_p50_ms": round(percentile(accepted, 50), 1) if accepted else None,
        "p50_ms": round(percentile(latencies, 50), 1) if latencies else None,
        "p95_ms": round(percentile(latencies, 95), 1) if latencies else None,
        "max_ms": round(max(latencies), 1) if latencies else None,
        "uploads_per_s": round(len(latencies) / elapsed, 1),
        "polls_per_upload": round(sum(r[3] for r in results) / max(1, len(results)), 1),
        "stages_p50_ms": _stages(ids=[r[2] for r in results]),
        # CPU per scored upload, by component: where a 2-core machine's time goes (the machine is shared,
        # so wall-clock latency also depends on the other jobs; these do not).
        "cpu_ms_per_upload": {
            name: round((cpu_after[name] - cpu_before[name]) * 1000 / max(1, len(latencies)), 1)
            for name in cpu_after
        },
    }


def _stages(*, ids: list[int]) -> dict[str, float | None]:
    """Median milliseconds of each stage, from the submissions' timestamps (server clock)."""
    from submissions.models import Submission

    rows = Submission.objects.filter(pk__in=ids).values_list(
        "received_at", "queued_at", "scoring_started_at", "finished_at"
    )
    stages: dict[str, list[float]] = {"received_to_queued": [], "queued_to_scoring": [], "scoring": []}
    for received, queued, started, finished in rows:
        for name, (a, b) in zip(
            stages, ((received, queued), (queued, started), (started, finished)), strict=True
        ):
            if a and b:
                stages[name].append((b - a).total_seconds() * 1000)
    return {name: round(percentile(v, 50), 1) if v else None for name, v in stages.items()}


def _prepare_phase(*, data_dir: Path, database_url: str, teams: int) -> tuple[bytes, list]:
    """A fresh database with the ReCAM competition, random gold and ``teams`` teams; (upload, tokens)."""
    if database_url.startswith("postgres"):
        _recreate_postgres(database_url)
    setup_django(database_url=database_url)
    from django.apps import apps

    if not apps.is_installed("api"):
        raise NotImplementedError("(b) needs the token API: add 'api' to INSTALLED_APPS")
    from competitions.models import Phase, TestSet
    from competitions.services import competition_load_recam, gold_store

    competition_load_recam(data_dir=data_dir, slug=SLUG)
    # Results published, so the score itself (not only "scored") reaches the client; the evaluation
    # phase's upload limits (3 a day, 30 in all) lifted: 60 uploads from one team measure throughput.
    Phase.objects.filter(competition__slug=SLUG, kind=PHASE).update(
        results_hidden=False, max_submissions_per_day=None, max_submissions_total=None
    )
    data, gold, _ = make_floor_input(data_dir=data_dir, seed=13)
    test_set = TestSet.objects.get(phase__competition__slug=SLUG, phase__kind=PHASE, subtask=1)
    gold_store(test_set=test_set, labels=gold, source_name="random labels (benchmark)")
    return data, _teams(teams)


def _server_commands(
    *, port: int, queue: str, workers: int, threads: int, pool: str, concurrency: str
) -> tuple[list[str], list[str]]:
    """The gunicorn web server and the Celery worker that consumes only ``queue``."""
    web = [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{port}"]
    web += ["--pythonpath", "platform", "--workers", str(workers), "--threads", str(threads)]
    web += ["--log-level", "warning"]
    worker = [sys.executable, "-m", "celery", "-A", "tasks.app", "worker", "-Q", queue]
    worker += ["--pool", pool, "--concurrency", concurrency]
    worker += ["--loglevel", "WARNING", "--without-gossip", "--without-mingle", "-n", f"{queue}@%h"]
    return web, worker


def run_upload(
    *, data_dir: Path, database_url: str | None = None, concurrency=(1, 20), uploads: int = 60
) -> dict:
    database_url = database_url or os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE_URL)
    data, tokens = _prepare_phase(data_dir=data_dir, database_url=database_url, teams=max(concurrency))
    floor = run_floor(data_dir=data_dir, repeats=20)  # the floor under the same machine load

    workers = int(os.environ.get("BENCH_WEB_WORKERS", os.cpu_count() or 1))
    threads = int(os.environ.get("BENCH_WEB_THREADS", "1"))
    concurrency_worker = os.environ.get("BENCH_WORKER_CONCURRENCY", "2")
    pool = os.environ.get("BENCH_WORKER_POOL", "prefork")
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    queue = f"bench-scoring-{os.getpid()}"  # no other worker on this Redis takes these tasks
    env = {
        **os.environ,
        "DATABASE_URL": _persistent(database_url),
        "DEBUG": "False",
        "ALLOWED_HOSTS": "127.0.0.1",
        "CELERY_SCORING_QUEUE": queue,
        "RATELIMIT_ENABLED": "false",  # 60 uploads a minute from one team is the point here, not abuse
    }
    log = (BENCH_DIR / "upload-servers.log").open("wb")
    commands = _server_commands(
        port=port, queue=queue, workers=workers, threads=threads, pool=pool, concurrency=concurrency_worker
    )
    servers = [
        subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT) for cmd in commands
    ]
    try:
        _wait_ready(f"{base}/api/phases/{PHASE}/leaderboard/?competition={SLUG}", servers[0])
        roots = [server.pid for server in servers]
        name = database_url.rsplit("/", 1)[-1].split("?")[0]
        _measure(base, tokens[:1], data, 3, roots, name)  # warm-up: imports, connections, the first task
        rows = [_measure(base, tokens[:c], data, max(1, uploads // c), roots, name) for c in concurrency]
    finally:
        stop_servers(servers)
        log.close()
    by_teams = {r["teams"]: r for r in rows}
    return {
        "server": f"gunicorn {workers} workers x {threads} thread(s) + 1 celery worker "
        f"({pool}, concurrency {concurrency_worker}) on Redis",
        "poll_ms": f"{POLL_FIRST_MS} doubling to {POLL_MS}",
        "database": database_url.split("@")[-1],
        "upload": f"subtask1.csv zipped ({len(data):,} bytes, {floor.lines:,} lines) to the {PHASE} phase",
        "floor_ms_median_same_run": floor.total_ms_median,
        "p50_ms_at_1_team": by_teams.get(1, {}).get("p50_ms"),
        "p50_over_floor_at_1_team": round(by_teams[1]["p50_ms"] / floor.total_ms_median, 1)
        if by_teams.get(1, {}).get("p50_ms")
        else None,
        "p95_ms_at_20_teams": by_teams.get(20, {}).get("p95_ms"),
        "rows": rows,
    }
