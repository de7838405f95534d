"""Fidelity: does the pipeline pick ReCAM's own gold answers as candidate targets of their subtask?

Each ReCAM dev/trial question is turned back into a pair (article, summary = the question with the
gold answer filled in); the pipeline then scores only the gold answer's token(s) and we record the
stage that drops it, or "kept". A gold answer that spaCy splits into several tokens (or none) is
"not-one-token". This measures the pipeline; thresholds are not tuned to it.

    python -m datagen.fidelity --data-dir ../shared/data/recam --output var/datagen/fidelity.json
"""

import json
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import click

from datagen.pipeline import FATES, Settings, finish_states, load_resources, select_pairs
from datagen.xsum import Pair
from recam.records import PLACEHOLDER, Question, read_questions

SOURCES = {
    1: ("training_data/Task_1_dev.jsonl", "trail_data/Task_1_Imperceptibility.jsonl"),
    2: ("training_data/Task_2_dev.jsonl", "trail_data/Task_2_Nonspecificity.jsonl"),
}
OUTCOMES = ("not-one-token", *FATES)


def rebuilt_pair(*, question: Question, source: str) -> tuple[Pair, tuple[int, int]]:
    """The pair whose summary is the question with its gold answer, and the answer's char span."""
    start = question.question.index(PLACEHOLDER)
    answer = question.answer
    if answer is None:
        raise ValueError(f"{source}: question {question.id} has no label")
    pair = Pair(
        id=f"{source}#{question.id}",
        document=question.article,
        summary=question.filled(),
        line=question.id + 1,
    )
    return pair, (start, start + len(answer))


def _chunks(items: Sequence, size: int) -> Iterator[Sequence]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def gold_outcomes(
    *,
    questions: Sequence[Question],
    source: str,
    settings: Settings,
    res,
    chunk: int = 25,
    progress: bool = True,
    journal: Path | None = None,
) -> Counter:
    """How many gold answers end at each outcome (a fate of ``pipeline.FATES`` or not-one-token).

    ``journal`` (a jsonl file) records each finished chunk, so an interrupted run resumes."""
    from tqdm import tqdm

    done = _read_journal(journal, settings)
    outcomes: Counter = Counter()
    with tqdm(total=len(questions), desc=source, unit="q", disable=not progress) as bar:
        for number, part in enumerate(_chunks(questions, chunk)):
            key = f"{source}#{number}x{chunk}"
            if key not in done:
                done[key] = _chunk_outcomes(part, source, settings, res)
                if journal is not None:
                    entry = {"key": key, "settings": settings.to_json(), "counts": done[key]}
                    with journal.open("a", encoding="utf-8") as handle:
                        handle.write(json.dumps(entry) + "\n")
            outcomes.update(done[key])
            bar.update(len(part))
    return outcomes


def _chunk_outcomes(part: Sequence[Question], source: str, settings: Settings, res) -> dict[str, int]:
    rebuilt = [rebuilt_pair(question=q, source=source) for q in part]
    spans = {pair.id: span for pair, span in rebuilt}
    states = select_pairs(pairs=[p for p, _ in rebuilt], settings=settings, res=res, only=spans)
    finish_states(states=states, settings=settings, res=res)
    counts: Counter = Counter()
    for state in states:
        fates = list(state.fates.values())
        counts[fates[0] if len(fates) == 1 else "not-one-token"] += 1
    return dict(counts)


def _read_journal(journal: Path | None, settings: Settings) -> dict[str, dict]:
    if journal is None or not journal.exists():
        return {}
    done = {}
    for line in journal.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by an interruption: that chunk is recomputed
        if entry.get("settings") == settings.to_json():
            done[entry["key"]] = entry["counts"]
    return done


def fidelity(
    *,
    data_dir: Path,
    settings: Settings,
    limit: int | None = None,
    progress: bool = True,
    journal: Path | None = None,
) -> list[dict]:
    """One row per ReCAM file of the subtask: counts per outcome and the kept fraction."""
    res = load_resources(settings=settings)
    rows = []
    for relative in SOURCES[settings.subtask]:
        questions = read_questions(Path(data_dir) / relative, require_labels=True)[:limit]
        counts = gold_outcomes(
            questions=questions,
            source=relative,
            settings=settings,
            res=res,
            progress=progress,
            journal=journal,
        )
        total = sum(counts.values())
        rows.append(
            {
                "file": relative,
                "questions": total,
                "kept_fraction": round(counts["kept"] / total, 4),
                "outcomes": {o: counts[o] for o in OUTCOMES},
            }
        )
    return rows


def markdown(rows_by_subtask: dict[int, list[dict]]) -> str:
    head = "| subtask | file | questions | " + " | ".join(OUTCOMES) + " | kept % |"
    lines = [head, "|" + "---|" * (len(OUTCOMES) + 4)]
    for subtask, rows in rows_by_subtask.items():
        for row in rows:
            cells = " | ".join(str(row["outcomes"][o]) for o in OUTCOMES)
            lines.append(
                f"| {subtask} | {row['file']} | {row['questions']} | {cells} | {row['kept_fraction']:.1%} |"
            )
    return "\n".join(lines)


@click.command()
@click.option("--data-dir", required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--subtask", "subtasks", type=click.Choice(["1", "2"]), multiple=True, default=["1", "2"])
@click.option("--output", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--no-encoder", is_flag=True)
@click.option("--limit", type=click.IntRange(min=1), default=None, help="First N questions per file.")
def main(
    data_dir: Path, subtasks: tuple[str, ...], output: Path, no_encoder: bool, limit: int | None
) -> None:
    """Measure fidelity on the ReCAM dev and trial files; write JSON and print a markdown table."""
    base = Settings(subtask=1, use_encoder=not no_encoder)
    output.parent.mkdir(parents=True, exist_ok=True)
    journal = output.with_name(output.name + ".journal.jsonl")  # finished chunks: a rerun resumes
    result = {
        int(s): fidelity(
            data_dir=data_dir, settings=replace(base, subtask=int(s)), limit=limit, journal=journal
        )
        for s in subtasks
    }
    output.write_text(
        json.dumps({"settings": base.to_json(), "limit": limit, "rows": result}, indent=1), encoding="utf-8"
    )
    click.echo(markdown(result))


if __name__ == "__main__":
    main()
