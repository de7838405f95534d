"""The baselines' dev accuracy table (Subtask 1, 2 and the cross results), with the one scorer."""

from pathlib import Path

from recam.metrics import SCORER_VERSION, score_predictions
from recam.records import read_questions
from recam.submission import parse_submission

NAMES = {
    "ga": "GA Reader",
    "att": "Attentive Reader",
    "att-gloss": "Attentive Reader + gloss",
    "encoder": "MiniLM encoder (multiple choice)",
    "encoder-mlm": "MiniLM encoder (masked word, MLM-adapted)",
    "lm-zs": "SmolLM2-135M-Instruct LM, zero-shot",
    "lm": "SmolLM2-135M-Instruct LM, LoRA fine-tuned",
    "gemma-zs": "Gemma 3 270M LM, zero-shot",
    "gemma": "Gemma 3 270M LM, LoRA fine-tuned",
}


def _accuracy(path: Path, subtask: int, gold: dict[int, int]) -> float:
    parsed = parse_submission(data=path.read_bytes(), filename=path.name, expected_ids={subtask: set(gold)})
    return 100 * score_predictions(predictions=parsed.files[0].predictions, gold=gold).accuracy


def report_text(*, predictions_dirs: tuple[Path, ...], dev1: Path, dev2: Path) -> str:
    """Markdown: one row per baseline with predictions; several dirs (seeds) give mean ± sd [range]."""
    gold = {
        m: {q.id: q.label for q in read_questions(path, require_labels=True)}
        for m, path in ((1, dev1), (2, dev2))
    }

    def cell(run: str, subtask: int) -> str:
        paths = [d / run / f"subtask{subtask}.csv" for d in predictions_dirs]
        return format_cell([_accuracy(path, subtask, gold[subtask]) for path in paths if path.is_file()])

    lines = [
        "| baseline | Subtask 1 dev (trained on ST1) | Subtask 2 dev (trained on ST2) | ST1-trained on ST2 dev | ST2-trained on ST1 dev |",
        "|---|---|---|---|---|",
    ]
    for reader, name in NAMES.items():
        cells = [
            cell(f"{reader}-st1", 1),
            cell(f"{reader}-st2", 2),
            cell(f"{reader}-st1", 2),
            cell(f"{reader}-st2", 1),
        ]
        if set(cells) != {"-"}:
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("| paper's GA Reader (trained on the full train sets) | 25.1 | 24.3 | | |")
    runs = ""
    if len(predictions_dirs) > 1:
        runs = (
            f" Each cell: mean ± sample standard deviation [min-max] over {len(predictions_dirs)} runs "
            "that differ only in the seed."
        )
    return (
        "# Baselines: dev accuracy (%)\n\n"
        + "\n".join(lines)
        + f"\n\nScorer: `{SCORER_VERSION}`; chance is 20.0.{runs}\n"
    )


def format_cell(values: list[float]) -> str:
    """One accuracy, or mean ± sample sd [min-max] of several; "-" for none.

    >>> format_cell([])
    '-'
    >>> format_cell([25.06])
    '25.1'
    >>> format_cell([22.0, 24.0, 26.0])
    '24.0 ± 2.0 [22.0-26.0]'
    """
    if not values:
        return "-"
    if len(values) == 1:
        return f"{values[0]:.1f}"
    mean = sum(values) / len(values)
    sd = (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5
    return f"{mean:.1f} ± {sd:.1f} [{min(values):.1f}-{max(values):.1f}]"
