"""(f) LM option scoring: questions/s of naive per-option scoring against shared-prefix batched scoring.

    python -m bench --only f                  # results/f_lm_scoring.json + README.md
    python -m bench.lm_scoring --questions 12  # prints the same figures
    python -m bench.lm_scoring --dtypes-only --questions 12 --threads 1  # bf16 vs float32 answers only

The same dev questions are scored, in one process, (1) the naive way: each of the five options as
one full sequence (article window + separator + filled question), (2) with the shared prefix: the
context encoded once, its KV cache reused by the five continuations, one question at a time, and
(3) shared prefix with questions batched, logits only at continuation positions. Answers of (2) and
(3) must equal the naive answers (asserted). A bfloat16 row (the LM loaded with ``LM_DTYPE=bfloat16``; CPU
AMX/AVX512-BF16 kernels when the CPU has them) reports its agreement with the float32 answers
instead, since bf16 rounding may flip a near tie. Wall time depends on the machine's load (shared machine): the load average before and
after is reported, and CPU seconds of this process too.
"""

import os
import time
from pathlib import Path

import click
import numpy as np
import torch

from baselines.lm_scorer import choose, load_causal_lm, naive_option_logprobs, option_logprobs
from recam.records import read_questions


def _cpu_flags() -> list[str]:
    cpuinfo = Path("/proc/cpuinfo")
    if not cpuinfo.is_file():
        return []
    wanted = {"avx2", "avx512f", "avx512_bf16", "amx_bf16", "avx512_vnni"}
    for line in cpuinfo.read_text(encoding="utf-8").splitlines():
        if line.startswith("flags"):
            return sorted(wanted & set(line.split()))
    return []


def _timed(function, **kwargs) -> tuple[np.ndarray, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    scores = function(**kwargs)
    return scores, time.perf_counter() - wall, time.process_time() - cpu


def _dev1_inputs(*, data_dir: Path, questions: int) -> tuple[list, dict]:
    """The first ``questions`` Subtask 1 dev questions and the scorer's inputs for them."""
    records = read_questions(Path(data_dir) / "training_data" / "Task_1_dev.jsonl")[:questions]
    return records, {
        "articles": [q.article for q in records],
        "questions": [q.question for q in records],
        "options": [q.options for q in records],
    }


def run_lm_scoring(*, data_dir: Path, questions: int = 12, batch_size: int = 8, threads: int = 2) -> dict:
    """Score ``questions`` Subtask 1 dev questions each way; questions/s and speed-ups."""
    records, data = _dev1_inputs(data_dir=data_dir, questions=questions)
    load_before = round(os.getloadavg()[0], 2)
    lm = load_causal_lm(threads=threads)
    device, model = lm.device, f"{lm.name} (sha256 {lm.sha256[:12]})"  # kept: ``lm`` is freed before bf16
    option_logprobs(lm, **{k: v[:2] for k, v in data.items()}, batch_size=2)  # warm-up
    runs = [
        ("naive: 5 full sequences per question", naive_option_logprobs, {}),
        ("shared prefix, 1 question at a time", option_logprobs, {"batch_size": 1}),
        (f"shared prefix, {batch_size} questions a batch", option_logprobs, {"batch_size": batch_size}),
    ]
    rows, answers = [], {}
    for label, function, extra in runs:
        scores, wall, cpu = _timed(function, lm=lm, **data, **extra)
        answers[label] = choose(scores)
        rows.append(
            {"method": label, "dtype": "float32", "seconds": round(wall, 2), "cpu_seconds": round(cpu, 2)}
        )
    naive_answers = answers[runs[0][0]]
    for label, *_ in runs[1:]:
        assert (answers[label] == naive_answers).all(), f"{label}: answers differ from the naive ones"
    if device == "cpu":
        del lm
        bf16 = load_causal_lm(threads=threads, dtype="bfloat16")  # what LM_DTYPE=bfloat16 loads
        option_logprobs(bf16, **{k: v[:2] for k, v in data.items()}, batch_size=2)  # warm-up
        scores, wall, cpu = _timed(option_logprobs, lm=bf16, **data, batch_size=batch_size)
        agree = float((choose(scores) == naive_answers).mean())
        rows.append(
            {
                "method": f"shared prefix, {batch_size} a batch, bfloat16 (agreement {agree:.2f})",
                "dtype": "bfloat16",
                "seconds": round(wall, 2),
                "cpu_seconds": round(cpu, 2),
            }
        )
    naive_seconds = rows[0]["seconds"]
    for row in rows:
        row["questions_per_s"] = round(len(records) / row["seconds"], 3)
        row["speedup_vs_naive"] = round(naive_seconds / row["seconds"], 2)
    return {
        "device": device,
        "model": model,
        "torch_threads": torch.get_num_threads(),
        "cpu_flags": " ".join(_cpu_flags()),
        "questions": len(records),
        "article_tokens": 400,
        "answers_identical_to_naive": True,
        "accuracy_of_these_questions": round(float((naive_answers == [q.label for q in records]).mean()), 3),
        "load_average_1m_before_after": f"{load_before} / {round(os.getloadavg()[0], 2)}",
        "best_speedup_vs_naive": max(row["speedup_vs_naive"] for row in rows),
        "rows": rows,
    }


def dtype_agreement(*, data_dir: Path, questions: int, threads: int, batch_size: int = 8) -> dict:
    """float32 against bfloat16 on the first ``questions`` Subtask 1 dev questions: same arg-max?"""
    records, data = _dev1_inputs(data_dir=data_dir, questions=questions)
    load_before = round(os.getloadavg()[0], 2)
    scores, seconds = {}, {}
    for dtype in ("float32", "bfloat16"):
        lm = load_causal_lm(threads=threads, dtype=dtype)
        scores[dtype], _, seconds[dtype] = _timed(option_logprobs, lm=lm, **data, batch_size=batch_size)
        del lm
    f32, bf16 = choose(scores["float32"]), choose(scores["bfloat16"])
    gold = np.array([q.label for q in records])
    return {
        "questions": len(records),
        "argmax_agreement": f"{int((f32 == bf16).sum())}/{len(records)}",
        "max_abs_score_difference": round(float(np.abs(scores["float32"] - scores["bfloat16"]).max()), 3),
        "accuracy_float32": round(float((f32 == gold).mean()), 3),
        "accuracy_bfloat16": round(float((bf16 == gold).mean()), 3),
        "cpu_seconds_float32_bfloat16": f"{seconds['float32']:.1f} / {seconds['bfloat16']:.1f}",
        "torch_threads": torch.get_num_threads(),
        "load_average_1m_before_after": f"{load_before} / {round(os.getloadavg()[0], 2)}",
    }


@click.command()
@click.option("--data-dir", type=click.Path(path_type=Path), default=lambda: os.environ.get("RECAM_DATA_DIR"))
@click.option("--questions", default=12, show_default=True)
@click.option("--batch-size", default=8, show_default=True)
@click.option("--threads", default=2, show_default=True)
@click.option("--dtypes-only", is_flag=True, help="only compare float32 and bfloat16 answers (no naive run)")
def main(data_dir: Path, questions: int, batch_size: int, threads: int, dtypes_only: bool) -> None:
    """Print the figures of benchmark (f)."""
    if dtypes_only:
        result = dtype_agreement(
            data_dir=data_dir, questions=questions, threads=threads, batch_size=batch_size
        )
        for key, value in result.items():
            click.echo(f"{key}: {value}")
        return
    result = run_lm_scoring(data_dir=data_dir, questions=questions, batch_size=batch_size, threads=threads)
    rows = result.pop("rows")
    for key, value in result.items():
        click.echo(f"{key}: {value}")
    for row in rows:
        click.echo(" | ".join(f"{k}={v}" for k, v in row.items()))


if __name__ == "__main__":
    main()
