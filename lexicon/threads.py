"""How many CPU threads torch gets: all the cores when a process is alone, one when others share them.

torch's default is one thread per core. On a machine where other processes also compute (Celery
workers, a second job), every thread of every process competes for the same cores and each torch
operator waits for its slowest thread, so more threads run slower (benchmark (i),
``bench/reader_threads.py``, times a GA Reader training step each way beside a busy process).

The rule, in this order (docs/operations.md, "Threads"):

1. an explicit count (a command's ``--threads N``) wins;
2. else ``$RECAM_TORCH_THREADS``: a count, or ``auto``; a Celery worker sets it to 1 when it starts,
   unless the operator set it (tasks/app.py), so each worker process computes on one thread;
3. else ``$OMP_NUM_THREADS``, the standard OpenMP setting torch itself reads, when it is a count;
4. else ``auto``: the cores the other processes leave free, ``max(1, cores - round(load))``, with
   ``load`` the 1-minute load average when the process starts and ``cores`` those this process may
   run on. Alone (load about 0) that is every core; with one busy process on 2 cores, one thread.

Pure: :func:`choose_threads` decides, :func:`set_torch_threads` reads the machine and applies it
(torch is imported there, not here).
"""

import os
from collections.abc import Mapping

ENV = "RECAM_TORCH_THREADS"
AUTO = "auto"
OPENMP = "OMP_NUM_THREADS"


def choose_threads(*, requested: int | None, env: Mapping[str, str], cores: int, load: float | None) -> int:
    """The thread count for torch, by the rule above.

    >>> choose_threads(requested=None, env={}, cores=2, load=0.2)  # alone: every core
    2
    >>> choose_threads(requested=None, env={}, cores=2, load=1.1)  # one other busy process
    1
    >>> choose_threads(requested=None, env={}, cores=16, load=9.4)
    7
    >>> choose_threads(requested=None, env={ENV: "1"}, cores=16, load=0.0)  # a Celery worker
    1
    >>> choose_threads(requested=4, env={ENV: "1"}, cores=2, load=9.0)  # --threads wins
    4
    >>> choose_threads(requested=None, env={OPENMP: "1"}, cores=2, load=0.0)
    1
    """
    if requested is not None:
        if requested < 1:
            raise ValueError(f"--threads must be at least 1, got {requested}")
        return requested
    value = env.get(ENV, "").strip().lower()
    if value and value != AUTO:
        try:
            count = int(value)
        except ValueError:
            count = 0
        if count < 1:
            raise ValueError(
                f"${ENV} must be a whole number of threads (1 or more) or {AUTO!r}, got {value!r}"
            )
        return count
    openmp = env.get(OPENMP, "").strip()
    if not value and openmp.isdigit() and int(openmp) >= 1:
        return int(openmp)
    cores = max(1, cores)
    busy = round(load) if load is not None and load > 0 else 0
    return max(1, min(cores, cores - busy))


def machine_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS has one, else all)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def machine_load() -> float | None:
    """The 1-minute load average (None where the OS has none)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def set_torch_threads(requested: int | None = None) -> int:
    """Apply :func:`choose_threads` to torch in this process; returns the count set."""
    import torch

    count = choose_threads(requested=requested, env=os.environ, cores=machine_cores(), load=machine_load())
    torch.set_num_threads(count)
    return count
