"""Describe the machine a benchmark ran on: the figures mean nothing without it."""

import os
import platform
import sys
from importlib import metadata
from pathlib import Path

PACKAGES = ("django", "djangorestframework", "celery", "redis", "gunicorn", "psycopg", "requests")


def _cpu_model() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _ram_gib() -> float | None:
    meminfo = Path("/proc/meminfo")
    if not meminfo.is_file():
        return None
    for line in meminfo.read_text(encoding="utf-8").splitlines():
        if line.startswith("MemTotal:"):
            return round(int(line.split()[1]) / (1024 * 1024), 1)
    return None


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def machine_info() -> dict:
    """nproc, CPU model, RAM, OS, python and the versions of the packages the benchmarks exercise."""
    return {
        "nproc": os.cpu_count(),
        "cpu_model": _cpu_model(),
        "ram_gib": _ram_gib(),
        "os": f"{platform.system()} {platform.release()}",
        "python": sys.version.split()[0],
        "packages": {name: _version(name) for name in PACKAGES},
        "load_average_1m": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        # 1, 5 and 15 minutes: the machine is shared, and the load sets what the wall-clock figures mean.
        "load_average": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
    }
