"""Zero-shot LM scoring variants on a labelled file, resumable: article window x sum/mean, no article.

Each chunk of questions is scored with every window (one forward pass gives both the summed and the
mean log-prob), and one JSON line per question is appended to the output, so an interrupted run
resumes where it stopped and every variant always covers the same questions. ``summarise`` gives
the accuracy of each variant over the questions done, with a Wilson 95% interval.
"""

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from baselines import lm_scorer
from recam.records import Question

WINDOWS = (400, 200, 0)  # article tokens; 0 = no article (the separator alone)


def _done_ids(path: Path) -> set[int]:
    if not path.is_file():
        return set()
    with path.open(encoding="utf-8") as lines:
        return {json.loads(line)["id"] for line in lines if line.strip()}


def score_variants(
    lm, *, questions: Sequence[Question], output: Path, windows: Sequence[int] = WINDOWS, chunk: int = 8,
    progress: bool = True,
) -> int:  # fmt: skip
    """Append the variants' option scores of every question not yet in ``output``; how many were added."""
    done = _done_ids(output)
    todo = [q for q in questions if q.id not in done]
    chunks = [todo[i : i + chunk] for i in range(0, len(todo), chunk)]
    if progress:
        from tqdm import tqdm

        chunks = tqdm(chunks, desc=f"LM variants ({len(done)} done)", unit="chunk")
    output.parent.mkdir(parents=True, exist_ok=True)
    for part in chunks:
        rows = [{"id": q.id, "label": q.label, "scores": {}} for q in part]
        for window in windows:
            totals, lengths = lm_scorer.option_sums_and_lengths(
                lm, articles=[q.article for q in part], questions=[q.question for q in part],
                options=[q.options for q in part], article_tokens=window, with_article=window > 0,
                batch_size=chunk,
            )  # fmt: skip
            for row, total, length in zip(rows, totals, lengths, strict=True):
                row["scores"][f"window{window}"] = {"sum": total.tolist(), "mean": (total / length).tolist()}
        with output.open("a", encoding="utf-8") as handle:
            handle.writelines(json.dumps(row) + "\n" for row in rows)
    return len(todo)


def wilson(correct: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion.

    >>> [round(x, 3) for x in wilson(50, 100)]
    [0.404, 0.596]
    """
    if total == 0:
        return (0.0, 1.0)
    p = correct / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return (centre - half, centre + half)


def summarise(path: Path) -> list[dict]:
    """Accuracy (%) of each variant over the questions in ``path``."""
    with path.open(encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    if not rows:
        return []
    labels = np.array([row["label"] for row in rows])
    out = []
    for window in rows[0]["scores"]:
        for reduction in ("sum", "mean"):
            scores = np.array([row["scores"][window][reduction] for row in rows])
            correct = int((scores.argmax(-1) == labels).sum())
            low, high = wilson(correct, len(rows))
            out.append(
                {
                    "variant": f"{window} {reduction}",
                    "questions": len(rows),
                    "accuracy": round(100 * correct / len(rows), 1),
                    "wilson95": f"{100 * low:.1f}-{100 * high:.1f}",
                }
            )
    return out
