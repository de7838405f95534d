"""Dataset statistics in the layout of the task paper's Table 5 (rows by split or stage, a column per subtask).

>>> print(size_table(counts={"Questions": {"1": 3227, "2": 3318}}))
| Dataset | Subtask 1 | Subtask 2 | Total |
|---|---|---|---|
| Questions | 3,227 | 3,318 | 6,545 |
"""

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from statistics import mean

from datagen.options.build import words
from recam.records import Question

REPORT_VERSION = "recam-options-report-1"


def _column(subtask: str) -> str:
    return f"Subtask {subtask}" if subtask.isdigit() else subtask


def size_table(*, counts: Mapping[str, Mapping[str, int]]) -> str:
    """Rows (e.g. "Candidates", "Dropped", "Questions") by subtask, with a Total column."""
    subtasks = sorted({s for row in counts.values() for s in row})
    lines = [
        "| Dataset | " + " | ".join(_column(s) for s in subtasks) + " | Total |",
        "|---" * (len(subtasks) + 2) + "|",
    ]
    for name, row in counts.items():
        cells = [f"{row.get(s, 0):,}" for s in subtasks] + [f"{sum(row.values()):,}"]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def question_stats(questions: Sequence[Question]) -> dict[str, float]:
    """Average lengths (word tokens) and the answer vocabulary of a set of questions."""
    if not questions:
        return {"questions": 0}
    labels = [q.label for q in questions if q.label is not None]
    return {
        "questions": len(questions),
        "article_words": round(mean(len(words(q.article)) for q in questions), 1),
        "question_words": round(mean(len(words(q.question)) for q in questions), 1),
        "distinct_answers": len({q.answer for q in questions if q.answer}),
        "distinct_options": len({o for q in questions for o in q.options}),
        "label_counts": {str(i): labels.count(i) for i in range(5)},
    }


def stats_table(*, stats: Mapping[str, Mapping[str, object]]) -> str:
    """One column per subtask of :func:`question_stats` values (label counts flattened)."""
    subtasks = sorted(stats)
    keys = ["questions", "article_words", "question_words", "distinct_answers", "distinct_options"]
    lines = [
        "| | " + " | ".join(_column(s) for s in subtasks) + " |",
        "|---" * (len(subtasks) + 1) + "|",
    ]
    for key in keys:
        lines.append(f"| {key} | " + " | ".join(str(stats[s].get(key, "")) for s in subtasks) + " |")
    labels = ["/".join(str(v) for v in stats[s].get("label_counts", {}).values()) or "-" for s in subtasks]
    lines.append("| gold at option 0/1/2/3/4 | " + " | ".join(labels) + " |")
    return "\n".join(lines)


def write_report(
    *,
    output: Path,
    retrieval: Mapping[str, Mapping[str, Mapping[str, float]]],
    candidates: Mapping[str, int],
    written: Mapping[str, int],
    stats: Mapping[str, Mapping[str, object]],
    drops: Mapping[str, int],
    excluded: Mapping[str, int],
    provenance: Mapping[str, object],
    gate: Mapping[str, Mapping[str, int]] | None = None,
    explanation: str | None = None,
    cost: Mapping[str, float | None] | None = None,
) -> Path:
    """Write ``OUTPUT.report.json`` and ``OUTPUT.report.md`` beside the output; return the markdown path."""
    from datagen.options.retrieval import metrics_table

    data = {
        "format": REPORT_VERSION,
        "output": str(output),
        "output_sha256": hashlib.sha256(output.read_bytes()).hexdigest(),
        "retrieval": retrieval,
        "sizes": {"Candidates": dict(candidates), "Questions": dict(written)},
        "stats": stats,
        "drops": dict(sorted(drops.items())),
        "excluded_pool_types": dict(sorted(excluded.items())),
        "provenance": provenance,
        **({"gate": gate} if gate is not None else {}),
        **({"explanation": explanation} if explanation is not None else {}),
        **({"cost": dict(cost)} if cost is not None else {}),
    }
    output.with_name(f"{output.stem}.report.json").write_text(
        json.dumps(data, indent=2, sort_keys=True, default=str) + "\n"
    )
    parts = [f"# Option generation report: {output.name}", ""]
    if explanation:
        parts += ["## Yield, in plain words", "", explanation, ""]
    if cost:
        parts += ["## Cost of this run", ""]
        parts += [f"- {k}: {v}" for k, v in cost.items()] + [""]
    for subtask, rows in retrieval.items():
        parts += [f"## Retrieval, subtask {subtask} (layout of Tables 3/4)", "", metrics_table(rows=rows), ""]
    dropped = {s: candidates[s] - written.get(s, 0) for s in candidates}
    sizes = {"Candidates": candidates, "Dropped": dropped, "Questions": written}
    parts += ["## Dataset size (layout of Table 5)", "", size_table(counts=sizes), ""]
    parts += ["## Question statistics", "", stats_table(stats=stats), ""]
    parts += ["## Dropped questions (output checks)", ""]
    parts += [f"- {reason}: {count}" for reason, count in sorted(drops.items())] or ["- none"]
    parts += ["", "## Pool word types excluded", ""]
    parts += [f"- {reason}: {count}" for reason, count in sorted(excluded.items())] or ["- none"]
    if gate is not None:
        parts += ["", "## Gate: the gold's rank among the options without the article (options-only LM)", ""]
        parts += [
            f"- {name}: " + ", ".join(f"{k}: {v}" for k, v in sorted(c.items())) for name, c in gate.items()
        ]
    path = output.with_name(f"{output.stem}.report.md")
    path.write_text("\n".join(parts) + "\n")
    return path
