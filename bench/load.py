"""A bounded HTTP load loop on 127.0.0.1: P processes x T threads issue GETs for a fixed time."""

import http.client
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from urllib.parse import urlsplit

from bench.floor import percentile


def _worker_process(url: str, threads: int, seconds: float) -> tuple[int, int, list[float]]:
    """(ok, errors, latencies in ms) of one process's threads."""
    parts = urlsplit(url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    deadline = time.monotonic() + seconds
    lock = threading.Lock()
    totals = {"ok": 0, "errors": 0}
    latencies: list[float] = []

    def loop() -> None:
        ok = errors = 0
        mine: list[float] = []
        while time.monotonic() < deadline:
            start = time.perf_counter()
            try:
                conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
                conn.request("GET", path)
                response = conn.getresponse()
                response.read()
                conn.close()
                ok, errors = (ok + 1, errors) if response.status == 200 else (ok, errors + 1)
            except OSError:
                errors += 1
            mine.append((time.perf_counter() - start) * 1000)
        with lock:
            totals["ok"] += ok
            totals["errors"] += errors
            latencies.extend(mine)

    workers = [threading.Thread(target=loop) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return totals["ok"], totals["errors"], latencies


def load(*, url: str, seconds: float, processes: int = 2, threads: int = 8) -> dict:
    """Requests per second (status 200) and latency percentiles for ``seconds`` of load."""
    start = time.monotonic()
    with ProcessPoolExecutor(max_workers=processes) as pool:
        results = list(
            pool.map(_worker_process, [url] * processes, [threads] * processes, [seconds] * processes)
        )
    elapsed = time.monotonic() - start
    ok = sum(r[0] for r in results)
    errors = sum(r[1] for r in results)
    latencies = [ms for r in results for ms in r[2]]
    return {
        "url": url,
        "seconds": round(elapsed, 2),
        "concurrency": processes * threads,
        "ok": ok,
        "errors": errors,
        "requests_per_s": round(ok / elapsed, 1),
        "latency_ms_p50": round(percentile(latencies, 50), 1) if latencies else None,
        "latency_ms_p95": round(percentile(latencies, 95), 1) if latencies else None,
    }
