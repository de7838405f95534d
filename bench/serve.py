"""(c) Leaderboard requests per second from gunicorn with 200 teams x 10 submissions (target: >= 200/s)."""

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from bench.django_env import BENCH_DIR, ROOT, setup_django
from bench.load import load
from bench.populate import PHASE, SLUG, populate

TEAMS, PER_TEAM = 200, 10


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_ready(url: str, server: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if server.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {server.returncode}; see {BENCH_DIR / 'gunicorn.log'}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn did not answer {url} within {timeout:.0f} s") from None
            time.sleep(0.3)


def run_serve(
    *, data_dir: Path, seconds: float, workers: int | None = None, database: Path | None = None
) -> dict:
    database = database or BENCH_DIR / "serve.sqlite3"
    setup_django(database=database)
    populate(data_dir=data_dir, teams=TEAMS, per_team=PER_TEAM)  # resumes: only missing teams are added
    from django.apps import apps
    from django.urls import reverse

    workers = workers or 2 * (os.cpu_count() or 1) + 1  # gunicorn's documented starting point
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    urls = {"page": base + reverse("leaderboard", kwargs={"slug": SLUG, "phase": PHASE})}
    if apps.is_installed("api"):
        urls["api"] = f"{base}/api/phases/{PHASE}/leaderboard/?competition={SLUG}"
        # The machine's ceiling for a Django request with a few queries: the board of an empty phase.
        urls["api_empty_board"] = f"{base}/api/phases/post-evaluation/leaderboard/?competition={SLUG}"
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{database}",
        "DEBUG": "False",
        "ALLOWED_HOSTS": "127.0.0.1",
    }
    command = [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{port}"]
    command += ["--pythonpath", "platform", "--workers", str(workers), "--log-level", "warning"]
    log = (BENCH_DIR / "gunicorn.log").open("wb")
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_ready(urls["page"], server)
        for url in urls.values():  # warm every worker's imports and template cache
            load(url=url, seconds=1.0, processes=1, threads=workers)
        measured = {name: load(url=url, seconds=seconds) for name, url in urls.items()}
    finally:
        stop_servers([server])
        log.close()
    rows = [{"endpoint": name, **{k: v for k, v in m.items() if k != "url"}} for name, m in measured.items()]
    return {
        "server": f"gunicorn {workers} sync workers, SQLite, DEBUG=False",
        "teams": TEAMS,
        "submissions": TEAMS * PER_TEAM,
        "page_url": urls["page"].removeprefix(base),
        "page_requests_per_s": measured["page"]["requests_per_s"],
        "api_requests_per_s": measured["api"]["requests_per_s"]
        if "api" in measured
        else "api app not installed",
        "target_requests_per_s": 200,
        "rows": rows,
    }


def stop_servers(servers: list[subprocess.Popen]) -> None:
    """SIGTERM every server at once, then wait for each (killed after 30 s)."""
    for server in servers:
        server.send_signal(signal.SIGTERM)
    for server in servers:
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
