"""(g) The gate's exact word scores: one row per word on a repeated KV cache against packed rows.

    python -m bench --only g                          # results/g_gate_words.json + README.md
    python -m bench.gate_words --questions 6 --threads 1

``datagen.options.lm_words.score_blank`` scores, for each of the first ``questions`` Subtask 2 dev questions,
the gold plus a slice of 300 answer-vocabulary words (31 of them always scored exactly, the readers'
pool size; the short lists add up to 20), with and without the article, as the gate does. It runs the
same questions once with each exact path (``_exact_repeated``: one row per word on the context's
cache repeated 48 times a pass; ``_exact_packed``: 24 words side by side in one row under a 4D mask),
twice in alternation, and reports CPU seconds per question, the speed-up and the largest score
difference (the rankings must be identical: asserted).
"""

import os
import time
from pathlib import Path

import click
import torch

from recam.records import read_questions

PATHS = ("_exact_repeated", "_exact_packed")


def _words(records, index: int, vocabulary: list[str]) -> list[str]:
    start = index * 37 % max(1, len(vocabulary) - 300)
    gold = records[index].answer
    return [gold, *[w for w in vocabulary[start : start + 300] if w != gold]]


def run_gate_words(*, data_dir: Path, questions: int = 6, threads: int = 1) -> dict:
    import datagen.options.lm_words as lm_words
    from baselines.lm_scorer import load_causal_lm

    records = read_questions(Path(data_dir) / "training_data" / "Task_2_dev.jsonl")
    vocabulary = sorted({o for q in records for o in q.options})
    chosen = records[:questions]
    lists = [_words(chosen, i, vocabulary) for i in range(len(chosen))]
    load_before = round(os.getloadavg()[0], 2)
    lm = load_causal_lm(threads=threads)
    assert lm_words._packable(lm.model), "the default LM must take the packed path"
    original = lm_words._exact
    cpu = {name: 0.0 for name in PATHS}
    wall = {name: 0.0 for name in PATHS}
    found = {}
    try:
        for _ in range(2):  # alternate, so a change of load hits both paths
            for name in PATHS:
                lm_words._exact = getattr(lm_words, name)
                start_cpu, start_wall = time.process_time(), time.perf_counter()
                found[name] = [
                    lm_words.score_blank(lm, article=q.article, question=q.question, words=ws, must=ws[:31])
                    for q, ws in zip(chosen, lists, strict=True)
                ]
                cpu[name] += time.process_time() - start_cpu
                wall[name] += time.perf_counter() - start_wall
    finally:
        lm_words._exact = original
    rows, packed = found["_exact_repeated"], found["_exact_packed"]
    assert all(a.ranking == b.ranking for a, b in zip(rows, packed, strict=True)), "rankings differ"
    difference = max(
        abs(a.article[w] - b.article[w]) + abs(a.options_only[w] - b.options_only[w])
        for a, b in zip(rows, packed, strict=True)
        for w in a.article
    )
    words = sum(len(a.article) for a in rows)
    per_q = {name: cpu[name] / 2 / len(chosen) for name in PATHS}
    return {
        "device": lm.device,
        "model": f"{lm.name} (sha256 {lm.sha256[:12]})",
        "torch_threads": torch.get_num_threads(),
        "questions": len(chosen),
        "exactly_scored_words_per_question": round(words / len(chosen), 1),
        "cpu_s_per_question_one_row_per_word": round(per_q["_exact_repeated"], 2),
        "cpu_s_per_question_packed": round(per_q["_exact_packed"], 2),
        "cpu_speedup": round(per_q["_exact_repeated"] / per_q["_exact_packed"], 2),
        "wall_s_one_row_per_word_packed": f"{wall['_exact_repeated'] / 2:.1f} / {wall['_exact_packed'] / 2:.1f}",
        "max_score_difference": f"{difference:.1e}",
        "rankings_identical": True,
        "load_average_1m_before_after": f"{load_before} / {round(os.getloadavg()[0], 2)}",
    }


@click.command()
@click.option("--data-dir", type=click.Path(path_type=Path), default=lambda: os.environ.get("RECAM_DATA_DIR"))
@click.option("--questions", default=6, show_default=True)
@click.option("--threads", default=1, show_default=True)
def main(data_dir: Path, questions: int, threads: int) -> None:
    """Print the figures of benchmark (g)."""
    for key, value in run_gate_words(data_dir=data_dir, questions=questions, threads=threads).items():
        click.echo(f"{key}: {value}")


if __name__ == "__main__":
    main()
