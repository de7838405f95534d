"""(b) Upload to score visible, through HTTP (gunicorn + the token API) with a real Celery worker.

Each simulated team uploads the same 2,025-line file as the floor (a) (Task 1 test ids, random labels) to
the evaluation phase of a throw-away competition whose gold labels are random too, and polls its
submission until its score is in the answer (the phase's results are published for this, so the
score itself is visible, not only the "scored" status). Latency = from the start of the upload to the
first poll whose answer holds the score; each client polls as a scripted client would: after
POLL_FIRST_MS, then doubling the interval up to POLL_MS.
Run with 1 team (60 uploads), 20 and 100 concurrent teams (3 uploads each, a burst), on PostgreSQL ("b")
and on the SQLite default ("bs"). Each team uploads its own file (its own accuracy), so the tied ranks
and intervals have real work to do. Each row also gives where the time went (the submissions' own
timestamps), the answers by HTTP status, the PostgreSQL deadlocks, whether the board equals an
independent count, and the seconds from the last upload until the stored ranks and intervals equal a
from-scratch recompute (``recam.stats`` on the files the bench generated).

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
SCORE_DEADLINE_S = 300  # an upload whose score is not visible 5 minutes after it was accepted is an error


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


def _cpu_by_process(roots: list[int], database: str) -> dict[int, tuple[str, float]]:
    """pid -> (component, CPU seconds so far) for the process trees under ``roots`` (web, worker), the
    PostgreSQL backends of ``database`` and this process (the clients), read from /proc."""
    stats = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                text = (entry / "stat").read_text()
            except OSError:  # exited meanwhile
                continue
            name, rest = text[text.index("(") + 1 : text.rindex(")")], text[text.rindex(")") + 2 :].split()
            stats[int(entry.name)] = (name, int(rest[1]), (int(rest[11]) + int(rest[12])) / _TICK)
    found = {}
    for pid, (name, _ppid, seconds) in stats.items():
        ancestor = pid
        while ancestor in stats and ancestor not in roots:
            ancestor = stats[ancestor][1]
        if ancestor in roots:
            found[pid] = ("web" if ancestor == roots[0] else "worker", seconds)
        elif name.startswith("postgres") and database in _cmdline(pid):  # this database's backends
            found[pid] = ("postgres", seconds)
    found[os.getpid()] = ("clients", stats.get(os.getpid(), ("", 0, 0.0))[2])
    return found


class _CpuMeter:
    """CPU seconds per component over a row. The processes are sampled every ``interval`` seconds while
    the row runs, so a process that exits during it (a PostgreSQL backend whose connection passed
    ``conn_max_age`` and was replaced) still counts up to its last sample; reading only the start and
    the end lost those and could even give a negative PostgreSQL figure. The sampler's own CPU is
    taken out of the clients' figure."""

    def __init__(self, roots: list[int], database: str, interval: float = 0.5) -> None:
        self.roots, self.database, self.interval = roots, database, interval
        self.start = _cpu_by_process(roots, database)
        self.last = dict(self.start)
        self.sampler_cpu = 0.0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()

    def _sample(self) -> None:
        while not self.done.wait(self.interval):
            self.last.update(_cpu_by_process(self.roots, self.database))
        self.sampler_cpu = time.thread_time()

    def stop(self) -> dict[str, float]:
        self.done.set()
        self.thread.join()
        self.last.update(_cpu_by_process(self.roots, self.database))
        totals = {"web": 0.0, "worker": 0.0, "postgres": 0.0, "clients": -self.sampler_cpu}
        for pid, (component, seconds) in self.last.items():
            totals[component] += seconds - self.start.get(pid, (component, 0.0))[1]
        return totals


def _team_files(*, data_dir: Path, gold: dict[int, int], count: int) -> list[tuple[bytes, dict[int, int]]]:
    """One zipped subtask1.csv per team: team i answers right with its own probability (0.2 .. 0.8)."""
    import random

    from recam.submission import format_predictions, make_zip

    files = []
    for index in range(count):
        rng = random.Random(1000 + index)
        quality = 0.2 + 0.6 * index / max(1, count - 1)
        predictions = {
            qid: label if rng.random() < quality else (label + 1 + rng.randrange(4)) % 5
            for qid, label in gold.items()
        }
        files.append((make_zip({"subtask1.csv": format_predictions(predictions)}), predictions))
    return files


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


class _Tally:
    """What the client threads saw: every answer by HTTP status, the accepted uploads per token, errors."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.status: dict[str, int] = {}
        self.accepted: dict[str, int] = {}
        self.errors: list[str] = []
        self.last_accepted = 0.0

    def answer(self, code: int | str) -> None:
        with self.lock:
            self.status[str(code)] = self.status.get(str(code), 0) + 1


def _one_team(
    base: str,
    token: str,
    data: bytes,
    uploads: int,
    out: list[tuple[float, float, int, int]],
    tally: _Tally,
) -> None:
    session = requests.Session()
    session.headers["Authorization"] = f"Token {token}"
    url = f"{base}/api/phases/{PHASE}/submissions/?competition={SLUG}"
    for _ in range(uploads):
        start = time.perf_counter()
        try:
            response = session.post(url, files={"file": ("predictions.zip", data)}, timeout=120)
        except requests.RequestException as exc:  # no answer within 2 minutes (or none at all)
            tally.answer(type(exc).__name__)
            tally.errors.append(f"upload: {type(exc).__name__}")
            continue
        tally.answer(response.status_code)
        if response.status_code != 201:
            tally.errors.append(f"upload: HTTP {response.status_code} {response.text[:200]}")
            continue
        accepted = time.perf_counter()
        with tally.lock:
            tally.accepted[token] = tally.accepted.get(token, 0) + 1
            tally.last_accepted = max(tally.last_accepted, accepted)
        pk = response.json()["id"]
        body = response.json()
        polls = 0
        wait_ms = POLL_FIRST_MS
        give_up = time.perf_counter() + SCORE_DEADLINE_S
        while not (body["status"] in ("failed", "waiting") or body["scores"]):
            if time.perf_counter() > give_up:  # e.g. its scoring task failed for good: never scored
                break
            time.sleep(wait_ms / 1000)
            wait_ms = min(2 * wait_ms, POLL_MS)
            try:
                answer = session.get(f"{base}/api/submissions/{pk}/", timeout=120)
            except requests.RequestException as exc:
                tally.answer(type(exc).__name__)
                continue
            tally.answer(answer.status_code)
            polls += 1
            if answer.status_code == 200:
                body = answer.json()
        if not body["scores"]:
            tally.errors.append(f"submission {pk}: {body['status']} {body.get('failure_reason')}")
            continue
        out.append(((accepted - start) * 1000, (time.perf_counter() - start) * 1000, pk, polls))


def _measure(
    base: str,
    tokens: list[str],
    files: list[bytes],
    uploads_per_team: int,
    roots: list[int],
    database: str,
    board: "_Board | None" = None,
) -> dict:
    results: list[tuple[float, float, int, int]] = []
    tally = _Tally()
    threads = [
        threading.Thread(target=_one_team, args=(base, token, data, uploads_per_team, results, tally))
        for token, data in zip(tokens, files, strict=True)
    ]
    deadlocks_before, versions_before = _deadlocks(), _statistics_version()
    meter = _CpuMeter(roots, database)
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    cpu = meter.stop()
    consistent = board.seconds_until_consistent(since=tally.last_accepted) if board else None
    if board:
        board.add_accepted(tally.accepted)
    deadlocks, versions = _deadlocks(), _statistics_version()
    accepted = [r[0] for r in results]
    latencies = [r[1] for r in results]
    return {
        "teams": len(tokens),
        "uploads": len(tokens) * uploads_per_team,
        "scored": len(latencies),
        "errors": len(tally.errors),
        "first_error": tally.errors[0] if tally.errors else "",
        "answers_by_status": dict(sorted(tally.status.items())),
        "deadlocks": None if deadlocks is None else deadlocks - deadlocks_before,
        "statistics_recomputes": None if versions is None else versions - versions_before,
        "s_until_statistics_consistent": consistent,
        "board_equals_count": board.equals_count() if board else None,
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
            name: round(seconds * 1000 / max(1, len(latencies)), 1) for name, seconds in cpu.items()
        },
    }


def _deadlocks() -> int | None:
    """PostgreSQL's count of deadlocks detected in this database (None on SQLite)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")
        return int(cursor.fetchone()[0])


def _statistics_version() -> int | None:
    """How many statistics recomputes the phase has had (None where the platform does not count them)."""
    try:
        from leaderboards.models import PhaseStatistics
    except ImportError:
        return None
    from django.db.models import Sum

    return PhaseStatistics.objects.aggregate(total=Sum("recomputes"))["total"] or 0


class _Board:
    """The board the platform stores, against an independent recount from the files the bench generated."""

    def __init__(self, *, gold: dict[int, int], tokens: list[str], predictions: list[dict[int, int]]) -> None:
        import numpy as np

        from recam import stats

        self.tokens = tokens
        self.accepted: dict[str, int] = {}
        self.names = [f"bench team {i:03d}" for i in range(len(tokens))]
        self.vectors = [stats.correctness(predictions=p, gold=gold) for p in predictions]
        self.accuracy = [float(np.mean(v)) for v in self.vectors]
        self._expected: dict[tuple[str, ...], dict] = {}

    def add_accepted(self, accepted: dict[str, int]) -> None:
        for token, count in accepted.items():
            self.accepted[token] = self.accepted.get(token, 0) + count

    def _expected_for(self, names: tuple[str, ...]) -> dict[str, tuple]:
        """team -> (rank, tied names, accuracy lo, hi): recam.stats from scratch over the teams on the board."""
        if names not in self._expected:
            import numpy as np
            from django.conf import settings

            from recam import stats

            index = [self.names.index(n) for n in names]
            ranking = stats.rank_entries(matrix=np.stack([self.vectors[i] for i in index]))
            resamples = getattr(settings, "RECAM_BOOTSTRAP_RESAMPLES", stats.DEFAULT_RESAMPLES)
            seed = getattr(settings, "RECAM_BOOTSTRAP_SEED", stats.DEFAULT_SEED)
            expected = {}
            for k, i in enumerate(index):
                interval = stats.accuracy_interval(correct=self.vectors[i], resamples=resamples, seed=seed)
                tied = tuple(sorted(names[j] for j in ranking.tied_with[k]))
                expected[names[k]] = (ranking.ranks[k], tied, round(interval.lo, 9), round(interval.hi, 9))
            self._expected[names] = expected
        return self._expected[names]

    def _stored(self) -> dict[str, tuple]:
        from competitions.models import Phase
        from leaderboards.selectors import leaderboard_tables

        phase = Phase.objects.get(competition__slug=SLUG, kind=PHASE)
        table = next(t for t in leaderboard_tables(phase=phase, subtasks=[1]) if t.subtask == 1)
        return {
            row.team: (
                row.rank,
                tuple(sorted(row.rank_tied_with)),
                None if row.accuracy_lo is None else round(row.accuracy_lo, 9),
                None if row.accuracy_hi is None else round(row.accuracy_hi, 9),
            )
            for row in table.rows
            if not row.is_baseline
        }

    def consistent(self) -> bool:
        stored = self._stored()
        return bool(stored) and stored == self._expected_for(tuple(sorted(stored)))

    def seconds_until_consistent(self, *, since: float, timeout: float = 180.0) -> float | None:
        """Seconds from ``since`` (the last accepted upload) until the stored statistics equal a recount."""
        from django.db import connection

        while time.perf_counter() - since < timeout:
            if self.consistent():
                return round(max(0.0, time.perf_counter() - since), 2)
            connection.close()  # a fresh snapshot for the next look
            time.sleep(0.05)
        return None

    def equals_count(self) -> bool:
        """Every team's row holds its own accuracy and counts exactly the uploads the server accepted."""
        from leaderboards.models import LeaderboardEntry

        rows = {
            e.team_name: (e.entries, round(e.accuracy, 9))
            for e in LeaderboardEntry.objects.filter(phase__competition__slug=SLUG, test_subtask=1)
        }
        expected = {
            self.names[i]: (self.accepted[token], round(self.accuracy[i], 9))
            for i, token in enumerate(self.tokens)
            if self.accepted.get(token)
        }
        return rows == expected


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


def _prepare_phase(*, data_dir: Path, database_url: str, teams: int) -> tuple[dict, list]:
    """A fresh database with the ReCAM competition, random gold and ``teams`` teams; (gold, tokens)."""
    if database_url.startswith("postgres"):
        _recreate_postgres(database_url)
    else:
        Path(database_url.removeprefix("sqlite:///")).unlink(missing_ok=True)
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
    _, gold, _ = make_floor_input(data_dir=data_dir, seed=13)
    test_set = TestSet.objects.get(phase__competition__slug=SLUG, phase__kind=PHASE, subtask=1)
    gold_store(test_set=test_set, labels=gold, source_name="random labels (benchmark)")
    return gold, _teams(teams)


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


# (teams, uploads per team): one team's 60 uploads in a row, then bursts of 20 and 100 teams.
DEFAULT_ROWS = ((1, 60), (20, 3), (100, 3))


def _rows_from_env() -> tuple[tuple[int, int], ...]:
    """BENCH_TEAMS="1,20" runs fewer rows (team counts from DEFAULT_ROWS, or N:uploads)."""
    wanted = os.environ.get("BENCH_TEAMS", "")
    if not wanted:
        return DEFAULT_ROWS
    known = dict(DEFAULT_ROWS)
    rows = []
    for item in wanted.split(","):
        teams, _, uploads = item.strip().partition(":")
        rows.append((int(teams), int(uploads) if uploads else known.get(int(teams), 3)))
    return tuple(rows)


def run_upload(*, data_dir: Path, database_url: str | None = None, rows=None) -> dict:
    rows = rows or _rows_from_env()
    database_url = database_url or os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE_URL)
    most = max(teams for teams, _ in rows)
    gold, tokens = _prepare_phase(data_dir=data_dir, database_url=database_url, teams=most)
    floor = run_floor(data_dir=data_dir, repeats=20)  # the floor under the same machine load
    team_files = _team_files(data_dir=data_dir, gold=gold, count=most)
    files = [data for data, _ in team_files]
    board = _Board(gold=gold, tokens=tokens, predictions=[p for _, p in team_files])

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
        _measure(base, tokens[:1], files[:1], 3, roots, name, board)  # warm-up: imports, connections
        results = [
            _measure(base, tokens[:teams], files[:teams], uploads, roots, name, board)
            for teams, uploads in rows
        ]
    finally:
        stop_servers(servers)
        log.close()
    by_teams = {r["teams"]: r for r in results}
    p50_1 = by_teams.get(1, {}).get("p50_ms")
    return {
        "server": f"gunicorn {workers} workers x {threads} thread(s) + 1 celery worker "
        f"({pool}, concurrency {concurrency_worker}) on Redis",
        "poll_ms": f"{POLL_FIRST_MS} doubling to {POLL_MS}",
        "database": database_url.split("@")[-1],
        "upload": f"subtask1.csv zipped ({len(files[0]):,} bytes, {floor.lines:,} lines, one file per team) "
        f"to the {PHASE} phase",
        "floor_ms_median_same_run": floor.total_ms_median,
        "p50_ms_at_1_team": by_teams.get(1, {}).get("p50_ms"),
        "p50_over_floor_at_1_team": round(by_teams[1]["p50_ms"] / floor.total_ms_median, 1)
        if by_teams.get(1, {}).get("p50_ms")
        else None,
        "p95_ms_at_20_teams": by_teams.get(20, {}).get("p95_ms"),
        "p95_ms_at_100_teams": by_teams.get(100, {}).get("p95_ms"),
        # The targets are ratios within one run: p95 at 20 teams <= 10x and at 100 teams <= 20x the 1-team p50.
        "p95_at_20_over_p50_at_1": _ratio(by_teams.get(20, {}).get("p95_ms"), p50_1),
        "p95_at_100_over_p50_at_1": _ratio(by_teams.get(100, {}).get("p95_ms"), p50_1),
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "rows": results,
    }


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 1) if a and b else None
