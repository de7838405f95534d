"""Throughput of the candidate pipeline per stage, and the projected time for all of XSum.

    python -m bench.datagen_throughput --input ../shared/data/xsum/xsum_test_1k.jsonl --subtask 2

Each stage is timed separately on the same pairs after a warm-up pass over other pairs (the Lesk
caches fill as a long run goes on). Wall time depends on what else runs on the machine, so CPU time
of this process is reported too, with the load average. The section for the subtask in the results
file (default bench/results/datagen.md) is replaced; other sections are kept.
"""

import os
import platform
import re
import subprocess
import time
from pathlib import Path

import click

from datagen.nlp import analyse
from datagen.targets import pipeline
from datagen.xsum import read_pairs

XSUM_PAIRS = 226_711


class Clock:
    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    def time(self, stage: str, function, *args, **kwargs):
        wall, cpu = time.perf_counter(), time.process_time()
        result = function(*args, **kwargs)
        self.wall[stage] = self.wall.get(stage, 0.0) + time.perf_counter() - wall
        self.cpu[stage] = self.cpu.get(stage, 0.0) + time.process_time() - cpu
        return result


def run_stages(pairs, settings: pipeline.Settings, res, clock: Clock) -> int:
    """The pipeline's stages on ``pairs``, each timed; returns the number of kept targets."""
    summaries = clock.time(
        "1 spaCy (summary + article)", analyse, nlp=res.nlp, texts=[p.summary for p in pairs]
    )
    passages = clock.time(
        "1 spaCy (summary + article)", analyse, nlp=res.nlp, texts=[p.document for p in pairs]
    )
    kept = 0
    for pair, summary, passage in zip(pairs, summaries, passages, strict=True):
        state = pipeline.PairState(pair=pair, summary=summary, passage=passage, fates={}, scores={})
        indices = [i for i, t in enumerate(summary.tokens) if t.pos in pipeline.SUBTASK_POS[settings.subtask]]
        scorer = "2 scorer (adapted Lesk + depth)" if settings.subtask == 2 else "2 scorer (imperceptibility)"
        clock.time(scorer, pipeline.score_tokens, state, indices, settings, res)
        clock.time("3 lemma, synonym/antonym, GloVe filters", pipeline.static_filters, state, settings, res)
        if res.encoder is not None and state.scores:
            clock.time("4 encoder + contextual filter", pipeline.contextual_filter, state, settings, res)
        kept += len(state.scores)
    return kept


def machine() -> str:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    mem = re.search(r"MemTotal:\s+(\d+) kB", Path("/proc/meminfo").read_text())
    ram = f"{int(mem.group(1)) / 1024**2:.1f} GiB" if mem else "?"
    nproc = subprocess.run(["nproc"], capture_output=True, text=True, check=False).stdout.strip()
    return f"`nproc` = {nproc}, CPU: {cpu}, RAM: {ram}, Python {platform.python_version()}"


def report(clock: Clock, n: int, settings: pipeline.Settings, kept: int, load: tuple, command: str) -> str:
    lines = [
        f"<!-- subtask {settings.subtask} -->",
        f"## Subtask {settings.subtask}: {n} pairs, warm caches ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})",
        "",
        f"Machine: {machine()}. Load average before/after: {load[0]:.1f} / {load[1]:.1f} (shared machine).",
        f"Command: `{command}`. Targets kept: {kept}.",
        "",
        "| stage | wall s | pairs/s (wall) | CPU s | pairs/s (CPU) |",
        "|---|---|---|---|---|",
    ]
    for stage in sorted(clock.wall):
        wall, cpu = clock.wall[stage], clock.cpu[stage]
        lines.append(f"| {stage} | {wall:.1f} | {n / wall:.1f} | {cpu:.1f} | {n / cpu:.1f} |")
    for label, stages in (
        ("end to end without encoder", [s for s in clock.wall if not s.startswith("4")]),
        ("end to end with encoder", list(clock.wall)),
    ):
        if label.endswith("with encoder") and not any(s.startswith("4") for s in clock.wall):
            continue
        wall, cpu = sum(clock.wall[s] for s in stages), sum(clock.cpu[s] for s in stages)
        lines.append(f"| **{label}** | {wall:.1f} | **{n / wall:.1f}** | {cpu:.1f} | **{n / cpu:.1f}** |")
        # one worker process per core; CPU-seconds per pair do not depend on what else the machine runs
        cores = os.cpu_count() or 1
        hours = XSUM_PAIRS * cpu / n / 3600
        lines.append(
            f"| projected, all XSum ({XSUM_PAIRS:,} pairs), {label}, from CPU s/pair | 1 core: {hours:.1f} h | "
            f"this machine ({cores} worker processes): {hours / cores:.1f} h | 8 workers: {hours / 8:.1f} h | "
            f"32 workers: {hours / 32:.2f} h |"
        )
    lines += ["", f"<!-- /subtask {settings.subtask} -->"]
    return "\n".join(lines)


def write_section(path: Path, section: str, subtask: int) -> None:
    text = (
        path.read_text(encoding="utf-8")
        if path.exists()
        else "# datagen throughput (bench/datagen_throughput.py)\n"
    )
    pattern = re.compile(rf"<!-- subtask {subtask} -->.*?<!-- /subtask {subtask} -->", re.S)
    text = (
        pattern.sub(lambda _: section, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + section
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


@click.command()
@click.option(
    "--input", "input_path", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option("--subtask", type=click.Choice(["1", "2"]), default="2", show_default=True)
@click.option("--pairs", "count", type=click.IntRange(min=1), default=200, show_default=True)
@click.option("--warmup", type=click.IntRange(min=0), default=50, show_default=True)
@click.option("--no-encoder", is_flag=True)
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("bench/results/datagen.md"),
    show_default=True,
)
def main(input_path: Path, subtask: str, count: int, warmup: int, no_encoder: bool, output: Path) -> None:
    """Time each stage on --pairs pairs after --warmup pairs; write the table into --output."""
    settings = pipeline.Settings(subtask=int(subtask), use_encoder=not no_encoder)
    res = pipeline.load_resources(settings=settings)
    pairs, _ = read_pairs(path=input_path)
    run_stages(pairs[:warmup], settings, res, Clock())
    load_before = os.getloadavg()[0]
    clock = Clock()
    measured = pairs[warmup : warmup + count]
    kept = run_stages(measured, settings, res, clock)
    command = (
        f"python -m bench.datagen_throughput --input {input_path} --subtask {subtask} --pairs {count} --warmup {warmup}"
        + (" --no-encoder" if no_encoder else "")
    )
    section = report(clock, len(measured), settings, kept, (load_before, os.getloadavg()[0]), command)
    write_section(output, section, settings.subtask)
    click.echo(section)


if __name__ == "__main__":
    main()
