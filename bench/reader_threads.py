"""(k) torch threads beside a competing process: one GA Reader training step per thread setting.

    python -m bench --only k                                  # results/k_reader_threads.json + README.md
    python -m bench.reader_threads --steps 2 --repeats 2

A CPU-bound competitor (a Python busy loop, ``competitors`` of them) runs for the whole benchmark,
standing in for a Celery worker or a second job on the same cores. Each setting then trains the GA
Reader (the paper's settings: hidden 150, 3 hops, 50-d word vectors; batch 32 of 300-token passages,
a candidate set of 1,000 words; synthetic word ids, so no data is read) for one warm-up and ``steps``
timed steps (forward, backward, Adam), in a fresh process each:

- ``torch default``: nothing set, so torch takes one thread per core (what ``datagen options`` did
  when ``--threads`` was not given);
- ``auto``: the shared rule (lexicon.threads: the cores the load leaves free), the default now;
- ``--threads 1``.

The settings are interleaved repeat by repeat so a change of load hits all of them. The machine's
other load (other users) is recorded with the result: it is part of what was measured.
"""

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = ("torch default", "auto", "--threads 1")
SHAPE = {"batch": 32, "passage": 300, "summary": 30, "vocab": 5000, "candidates": 1000, "dim": 50}


def one_setting(*, setting: str, steps: int, hidden: int = 150, hops: int = 3, shape: dict = SHAPE) -> dict:
    """In this process: apply ``setting``, then time ``steps`` GA Reader training steps after a warm-up."""
    import torch

    from baselines.readers import ReaderBatch, build_reader
    from lexicon.threads import machine_load, set_torch_threads

    if setting == "auto":
        set_torch_threads(None)
    elif setting == "--threads 1":
        set_torch_threads(1)
    elif setting != "torch default":
        raise ValueError(f"unknown setting {setting!r}: choose from {', '.join(SETTINGS)}")
    load = machine_load()
    generator = torch.Generator().manual_seed(13)
    b, p, s, n = shape["batch"], shape["passage"], shape["summary"], shape["candidates"]
    words = torch.randn(shape["vocab"], shape["dim"], generator=generator)  # Shape: (vocab, dim)
    cands = torch.randn(n, shape["dim"], generator=generator)  # Shape: (candidates, dim)
    torch.manual_seed(13)
    model = build_reader(reader="ga", word_vectors=words, candidate_vectors=cands, hidden=hidden, hops=hops)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    batch = ReaderBatch(
        passage=torch.randint(3, shape["vocab"], (b, p), generator=generator),  # Shape: (batch, passage)
        passage_mask=torch.ones(b, p, dtype=torch.bool),
        summary=torch.randint(3, shape["vocab"], (b, s), generator=generator),  # Shape: (batch, summary)
        summary_mask=torch.ones(b, s, dtype=torch.bool),
        placeholder=torch.randint(0, s, (b,), generator=generator),  # Shape: (batch,)
        candidates=torch.arange(n),  # Shape: (candidates,)
        gloss=torch.zeros(n, 1, dtype=torch.long),  # Shape: (candidates, 1)
        gloss_mask=torch.ones(n, 1, dtype=torch.bool),
        choices=torch.arange(n).expand(
            b, n
        ),  # Shape: (batch, candidates): the whole set, as option generation
        choice_mask=torch.ones(b, n, dtype=torch.bool),
    )
    target = torch.randint(0, n, (b,), generator=generator)  # Shape: (batch,)
    seconds = []
    for step in range(steps + 1):
        started = time.perf_counter()
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(batch), target)
        loss.backward()
        optimizer.step()
        if step:  # the first step is the warm-up
            seconds.append(round(time.perf_counter() - started, 3))
    return {"setting": setting, "threads": torch.get_num_threads(), "load_1m": load, "step_s": seconds}


def _child(setting: str, steps: int, hidden: int, hops: int, shape: dict) -> dict:
    """One setting in a fresh process, whose environment sets no thread count of its own."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    env.pop("RECAM_TORCH_THREADS", None)
    args = [sys.executable, "-m", "bench.reader_threads", "--one", setting, "--steps", str(steps)]
    args += ["--hidden", str(hidden), "--hops", str(hops), "--shape", json.dumps(shape)]
    out = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, check=True, timeout=3600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_reader_threads(
    *,
    steps: int = 2,
    repeats: int = 2,
    competitors: int = 1,
    hidden: int = 150,
    hops: int = 3,
    shape: dict = SHAPE,
) -> dict:
    """Every setting ``repeats`` times (interleaved) beside ``competitors`` busy loops; seconds per step."""
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(competitors)]
    try:
        runs = [_child(s, steps, hidden, hops, shape) for _ in range(repeats) for s in SETTINGS]
    finally:
        for process in busy:
            process.kill()
            process.wait()
    rows = []
    for setting in SETTINGS:
        mine = [r for r in runs if r["setting"] == setting]
        times = [t for r in mine for t in r["step_s"]]
        rows.append(
            {
                "setting": setting,
                "threads": "/".join(str(t) for t in sorted({r["threads"] for r in mine})),
                "step_s_median": round(statistics.median(times), 3),
                "step_s_min": min(times),
                "step_s_max": max(times),
                "load_1m_at_start": "/".join(f"{r['load_1m']:.1f}" for r in mine if r["load_1m"] is not None),
            }
        )
    one = next(r["step_s_median"] for r in rows if r["setting"] == "--threads 1")
    default = next(r["step_s_median"] for r in rows if r["setting"] == "torch default")
    return {
        "reader": f"GA, hidden {hidden}, {hops} hops",
        "shape": shape,
        "competitors": competitors,
        "steps_per_run": steps,
        "repeats": repeats,
        "torch_default_over_one_thread": round(default / one, 2),
        "rows": rows,
    }


@click.command()
@click.option(
    "--one", "one", type=click.Choice(SETTINGS), help="Run one setting in this process (JSON line)."
)
@click.option("--steps", default=2, show_default=True)
@click.option("--repeats", default=2, show_default=True)
@click.option("--competitors", default=1, show_default=True)
@click.option("--hidden", default=150, show_default=True)
@click.option("--hops", default=3, show_default=True)
@click.option(
    "--shape", default=json.dumps(SHAPE), show_default=True, help="JSON: batch, passage, summary, ..."
)
def main(one, steps, repeats, competitors, hidden, hops, shape) -> None:
    shape = json.loads(shape)
    if one:
        click.echo(json.dumps(one_setting(setting=one, steps=steps, hidden=hidden, hops=hops, shape=shape)))
        return
    result = run_reader_threads(
        steps=steps, repeats=repeats, competitors=competitors, hidden=hidden, hops=hops, shape=shape
    )
    click.echo(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
