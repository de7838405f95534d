"""(h) The gate's scoring window: CPU seconds per question with the exact scores cut after K words.

    python -m bench --only h                          # results/h_lm_window.json + README.md
    python -m bench.lm_window --questions 8 --threads 1

Cost only, no quality: for each of the first ``questions`` Subtask 2 dev questions, the two gate LMs
score words as ``datagen options`` has them score (:func:`datagen.options.lm_words.score_blank`):

- the first LM (default ``LM_MODEL`` or SmolLM2): the gold plus 300 answer-vocabulary words, 31 of them
  always scored exactly (the readers' pool), short lists of 10 with and without the article and 10
  open-vocabulary words, as :func:`datagen.options.gated.gate_items` asks;
- the second LM (Gemma 3 270M, when the set-up assembled it): the gold and 16 words, exact scores only,
  as :func:`datagen.options.gated.second_items` asks.

Each question is scored once per window (``None``: to the end of the summary, the rule before the
window), the windows interleaved question by question so a change of load hits all of them. The
result is CPU seconds per question for each window and its ratio to the whole summary: the figures the
window's stated rule (docs/results/2026-11-25-options-xsum1k-window6.md) projects the gate's cost from.
"""

import os
import time
from pathlib import Path

import click
import torch

from recam.records import read_questions

WINDOWS = (None, 8, 6, 4, 3, 2)
FIRST_MUST = 31  # the readers' pool and the gold
SECOND_WORDS = 16  # datagen.options.gated.SECOND_WORDS


def _words(records, index: int, vocabulary: list[str]) -> list[str]:
    start = index * 37 % max(1, len(vocabulary) - 300)
    gold = records[index].answer
    return [gold, *[w for w in vocabulary[start : start + 300] if w != gold]]


def _measure(lm, chosen, lists, *, must: int, top: int, open_top: int) -> dict:
    import datagen.options.lm_words as lm_words

    cpu = dict.fromkeys(WINDOWS, 0.0)
    tail_words = []
    for q, words in zip(chosen, lists, strict=True):
        tail_words.append(len(q.question.split("@placeholder", 1)[1].split()))
        for window in WINDOWS:
            start = time.process_time()
            lm_words.score_blank(
                lm, article=q.article, question=q.question, words=words, must=words[:must], top=top,
                open_top=open_top, open_filter=(lambda w: w) if open_top else None, window=window,
            )  # fmt: skip
            cpu[window] += time.process_time() - start
    whole = cpu[None]
    return {
        "model": f"{lm.name} (sha256 {lm.sha256[:12]})",
        "words_after_blank_mean": round(sum(tail_words) / len(tail_words), 1),
        "cpu_s_per_question": {str(w or "all"): round(cpu[w] / len(chosen), 2) for w in WINDOWS},
        "ratio_to_all": {str(w or "all"): round(cpu[w] / whole, 3) for w in WINDOWS},
    }


def run_lm_window(*, data_dir: Path, questions: int = 8, threads: int = 1) -> dict:
    from baselines.lm_loading import gemma_model_path
    from baselines.lm_scorer import load_causal_lm

    records = read_questions(Path(data_dir) / "training_data" / "Task_2_dev.jsonl")
    vocabulary = sorted({o for q in records for o in q.options})
    chosen = records[:questions]
    lists = [_words(chosen, i, vocabulary) for i in range(len(chosen))]
    load_before = round(os.getloadavg()[0], 2)
    first = load_causal_lm(threads=threads)
    result = {
        "device": first.device,
        "torch_threads": torch.get_num_threads(),
        "questions": len(chosen),
        "first_lm": _measure(first, chosen, lists, must=FIRST_MUST, top=10, open_top=10),
    }
    del first
    gemma = gemma_model_path()
    if gemma.exists():
        second = load_causal_lm(model_path=str(gemma), threads=threads)
        short = [ws[: SECOND_WORDS + 1] for ws in lists]
        result["second_lm"] = _measure(second, chosen, short, must=SECOND_WORDS + 1, top=0, open_top=0)
    else:
        result["second_lm"] = f"skipped: {gemma} not assembled (make setup)"
    result["load_average_1m_before_after"] = f"{load_before} / {round(os.getloadavg()[0], 2)}"
    return result


@click.command()
@click.option("--data-dir", type=click.Path(path_type=Path), default=lambda: os.environ.get("RECAM_DATA_DIR"))
@click.option("--questions", default=8, show_default=True)
@click.option("--threads", default=1, show_default=True)
def main(data_dir: Path, questions: int, threads: int) -> None:
    """Print the figures of benchmark (h)."""
    for key, value in run_lm_window(data_dir=data_dir, questions=questions, threads=threads).items():
        click.echo(f"{key}: {value}")


if __name__ == "__main__":
    main()
