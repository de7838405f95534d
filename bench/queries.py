"""(d) Database queries per leaderboard page as the number of teams grows (target: constant)."""

import time
from pathlib import Path

from bench.django_env import BENCH_DIR, setup_django
from bench.populate import PHASE, SLUG, populate

TEAM_COUNTS = (10, 50, 200, 1000)
PER_TEAM = 10


def _count(client_get, url: str) -> tuple[int, float, int]:
    """(queries, milliseconds, status) of one GET."""
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext

    reset_queries()
    with CaptureQueriesContext(connection) as captured:
        start = time.perf_counter()
        response = client_get(url)
        elapsed = (time.perf_counter() - start) * 1000
    return len(captured), round(elapsed, 1), response.status_code


def run_queries(*, data_dir: Path, database: Path | None = None, team_counts=TEAM_COUNTS) -> dict:
    database = database or BENCH_DIR / "queries.sqlite3"
    database.unlink(missing_ok=True)  # counts only grow from an empty board
    setup_django(database=database)
    from django.apps import apps
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from competitions.models import Phase
    from leaderboards.selectors import leaderboard_tables

    client = Client()
    page_url = reverse("leaderboard", kwargs={"slug": SLUG, "phase": PHASE})
    api_url = f"/api/phases/{PHASE}/leaderboard/?competition={SLUG}" if apps.is_installed("api") else None
    rows = []
    for teams in team_counts:
        populate(data_dir=data_dir, teams=teams, per_team=PER_TEAM)
        phase = Phase.objects.get(competition__slug=SLUG, kind=PHASE)
        reset_queries()
        with CaptureQueriesContext(connection) as captured:
            tables = leaderboard_tables(phase=phase)
        client.get(page_url)  # warm the template cache
        page_queries, page_ms, page_status = _count(client.get, page_url)
        row = {
            "teams": teams,
            "submissions": teams * PER_TEAM,
            "rows_per_table": len(tables[0].rows),
            "selector_queries": len(captured),
            "page_queries": page_queries,
            "page_status": page_status,
            "page_ms": page_ms,
        }
        if api_url:
            row["api_queries"], row["api_ms"], row["api_status"] = _count(client.get, api_url)
        rows.append(row)
    # Constant per endpoint: the page (a cache hit after the warm-up request) and the API each.
    page_counts = {r["page_queries"] for r in rows}
    api_counts = {r.get("api_queries", 0) for r in rows}
    return {
        "database": "SQLite (bench file)",
        "page_url": page_url,
        "api_url": api_url or "api app not installed",
        "queries_constant": len(page_counts) == len(api_counts) == 1
        and all(r["page_status"] == 200 for r in rows),
        "rows": rows,
    }
