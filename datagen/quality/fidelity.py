"""Fidelity: does the pipeline pick ReCAM's own gold answers as candidate targets of their subtask?

Each ReCAM dev/trial question is turned back into a pair (article, summary = the question with the
gold answer filled in); the pipeline then scores only the gold answer's token(s) and we record the
stage that drops it, or "kept". A gold answer that spaCy splits into several tokens (or none) is
"not-one-token". This measures the pipeline; thresholds are not tuned to it.

    python -m datagen.quality.fidelity --data-dir ../shared/data/recam --output var/datagen/fidelity.json \\
        --wsd lesk --wsd pywsd --wsd first-sense --wsd embedding

Several ``--wsd`` choices give one per-loss row each and a side-by-side table of kept %.
"""

import json
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import click

from datagen.quality.fidelity_tables import OUTCOMES, markdown, side_by_side
from datagen.targets import config as choices
from datagen.targets.filters import DEFAULT_CONTEXTUAL_MAX
from datagen.targets.pipeline import (
    Settings,
    analyse_pairs,
    finish_states,
    load_resources,
    select_pairs,
)
from datagen.xsum import Pair
from recam.records import PLACEHOLDER, Question, read_questions

SOURCES = {
    1: ("training_data/Task_1_dev.jsonl", "trail_data/Task_1_Imperceptibility.jsonl"),
    2: ("training_data/Task_2_dev.jsonl", "trail_data/Task_2_Nonspecificity.jsonl"),
}
# Pipeline version 1: our Lesk over a window, all-senses synonym pool, raw regressor, spaCy's POS as is.
BEFORE = {
    "wsd": "lesk",
    "wsd_context": "window",
    "synonym_scope": "all",
    "imperceptibility_scale": "regressor",
    "calibration": "in-sample",
    "pos_rescue": False,
}
# Pipeline version 2 (issue #12, first pass): version 3's defaults but our Lesk over a window.
PREVIOUS = {"wsd": "lesk", "wsd_context": "window", "calibration": "in-sample"}


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
    counts = gold_outcomes_many(
        questions=questions,
        source=source,
        variants=[(settings, res)],
        chunk=chunk,
        progress=progress,
        journal=journal,
    )[0]
    return Counter({outcome: n for outcome, n in counts.items() if outcome in OUTCOMES})


def gold_outcomes_many(
    *,
    questions: Sequence[Question],
    source: str,
    variants: Sequence[tuple[Settings, object]],
    chunk: int = 25,
    progress: bool = True,
    journal: Path | None = None,
) -> list[Counter]:
    """``gold_outcomes`` for several (settings, resources) at once: spaCy analyses each chunk once."""
    from tqdm import tqdm

    done = [_read_journal(journal, settings) for settings, _ in variants]
    outcomes = [Counter() for _ in variants]
    with tqdm(total=len(questions), desc=source, unit="q", disable=not progress) as bar:
        for number, part in enumerate(_chunks(questions, chunk)):
            key = f"{source}#{number}x{chunk}"
            rebuilt, analyses = None, None
            for (settings, res), finished, total in zip(variants, done, outcomes, strict=True):
                if key not in finished:
                    if rebuilt is None:
                        rebuilt = [rebuilt_pair(question=q, source=source) for q in part]
                        analyses = analyse_pairs(pairs=[p for p, _ in rebuilt], nlp=res.nlp)
                    finished[key] = _chunk_outcomes(rebuilt, analyses, settings, res)
                    _journal_entry(journal, key, settings, finished[key])
                total.update(finished[key])
            bar.update(len(part))
    return outcomes


def _journal_entry(journal: Path | None, key: str, settings: Settings, counts: dict) -> None:
    if journal is not None:
        entry = {"key": key, "settings": settings.to_json(), "counts": counts}
        with journal.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")


def _chunk_outcomes(rebuilt: list, analyses: tuple, settings: Settings, res) -> dict[str, int]:
    spans = {pair.id: span for pair, span in rebuilt}
    states = select_pairs(
        pairs=[p for p, _ in rebuilt], settings=settings, res=res, only=spans, analyses=analyses
    )
    finish_states(states=states, settings=settings, res=res)
    counts: Counter = Counter()
    for state in states:
        fates = list(state.fates.values())
        counts[fates[0] if len(fates) == 1 else "not-one-token"] += 1
        counts["pos-rescued"] += bool(state.rescued)
        counts["pos-rescued-kept"] += bool(state.rescued) and fates == ["kept"]
    return dict(counts)


def _comparable(settings: dict) -> dict:
    """Settings as far as they change the outcomes: without the encoder, its threshold does not."""
    if settings.get("use_encoder") is False:
        return {k: v for k, v in settings.items() if k != "contextual_max"}
    return settings


def _read_journal(journal: Path | None, settings: Settings) -> dict[str, dict]:
    if journal is None or not journal.exists():
        return {}
    done = {}
    for line in journal.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by an interruption: that chunk is recomputed
        if _comparable(entry.get("settings") or {}) == _comparable(settings.to_json()):
            done[entry["key"]] = entry["counts"]
    return done


def fidelity(
    *,
    data_dir: Path,
    settings: Settings | None = None,
    variants: dict[str, Settings] | None = None,
    limit: int | None = None,
    progress: bool = True,
    journal: Path | None = None,
) -> list[dict]:
    """One row per ReCAM file of the subtask and variant (label -> settings of one subtask; default
    ``{settings.wsd: settings}``): counts per outcome and the kept fraction."""
    variants = variants or {settings.wsd: settings}
    subtask = next(iter(variants.values())).subtask
    loaded = [(s, load_resources(settings=s)) for s in variants.values()]
    rows = []
    for relative in SOURCES[subtask]:
        questions = read_questions(Path(data_dir) / relative, require_labels=True)[:limit]
        many = gold_outcomes_many(
            questions=questions, source=relative, variants=loaded, progress=progress, journal=journal
        )
        for label, (config, res), counts in zip(variants, loaded, many, strict=True):
            total = sum(counts[o] for o in OUTCOMES)
            row = {
                "file": relative,
                "variant": label,
                "settings": config.to_json(),
                "questions": total,
                "kept_fraction": round(counts["kept"] / total, 4),
                "outcomes": {o: counts[o] for o in OUTCOMES},
                "pos_rescued": counts["pos-rescued"],
                "pos_rescued_kept": counts["pos-rescued-kept"],
            }
            if subtask == 1:
                row["rating_ceiling"] = rating_ceiling(
                    questions=questions, wordnet=res.wordnet, threshold=config.imperceptibility_max
                )
            rows.append(row)
    return rows


def rating_ceiling(*, questions: Sequence[Question], wordnet, threshold: float) -> dict:
    """Of the gold answers MRC rates (the word or its WordNet base form), how many have a true rating
    below ``threshold``: what a perfect imperceptibility scorer could keep at that stage."""
    from datagen.targets.abstractness import mrc_ratings

    ratings = {w.lower(): v for w, v in mrc_ratings().items()}
    rated = below = 0
    for question in questions:
        word = question.answer.lower()
        forms = [word, *(wordnet.morphy(word, p) or word for p in "nvar")]
        value = next((ratings[f] for f in forms if f in ratings), None)
        if value is not None:
            rated += 1
            below += value < threshold
    return {"rated": rated, "rated_below": below, "fraction": round(below / rated, 4) if rated else None}


@click.command()
@click.option("--data-dir", required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--subtask", "subtasks", type=click.Choice(["1", "2"]), multiple=True, default=["1", "2"])
@click.option("--output", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--no-encoder", is_flag=True)
@click.option("--limit", type=click.IntRange(min=1), default=None, help="First N questions per file.")
@click.option(
    "--wsd",
    "wsds",
    type=click.Choice(choices.WSD_CHOICES),
    multiple=True,
    default=[choices.DEFAULT_WSD],
    show_default=True,
    help="Word-sense method(s); several give a side-by-side table.",
)
@click.option("--wsd-context", type=click.Choice(choices.WSD_CONTEXTS), default="text", show_default=True)
@click.option(
    "--synonym-scope", type=click.Choice(choices.SYNONYM_SCOPES), default="sense", show_default=True
)
@click.option(
    "--imperceptibility-scale",
    type=click.Choice(choices.SCALES),
    default=choices.DEFAULT_SCALE,
    show_default=True,
)
@click.option(
    "--calibration",
    type=click.Choice(choices.CALIBRATIONS),
    default=choices.DEFAULT_CALIBRATION,
    show_default=True,
)
@click.option("--no-pos-rescue", is_flag=True, help="Do not let lower-case ADJ/PROPN nouns/verbs through.")
@click.option("--contextual-max", type=float, default=DEFAULT_CONTEXTUAL_MAX, show_default=True)
@click.option("--before", is_flag=True, help="Add the pipeline-version-1 rules as a variant 'before'.")
@click.option("--previous", is_flag=True, help="Add the pipeline-version-2 rules as a variant 'v2'.")
def main(
    data_dir: Path,
    subtasks: tuple[str, ...],
    output: Path,
    no_encoder: bool,
    limit: int | None,
    wsds: tuple[str, ...],
    wsd_context: str,
    synonym_scope: str,
    imperceptibility_scale: str,
    calibration: str,
    no_pos_rescue: bool,
    contextual_max: float,
    before: bool,
    previous: bool,
) -> None:
    """Measure fidelity on the ReCAM dev and trial files; write JSON and print markdown tables."""
    base = Settings(
        subtask=1,
        use_encoder=not no_encoder,
        wsd_context=wsd_context,
        synonym_scope=synonym_scope,
        imperceptibility_scale=imperceptibility_scale,
        calibration=calibration,
        pos_rescue=not no_pos_rescue,
        contextual_max=contextual_max,
    )
    output.parent.mkdir(parents=True, exist_ok=True)
    journal = output.with_name(output.name + ".journal.jsonl")  # finished chunks: a rerun resumes
    result: dict[int, list[dict]] = {}
    for s in subtasks:
        variants = {wsd: replace(base, subtask=int(s), wsd=wsd) for wsd in wsds}
        if previous:
            variants["v2"] = replace(base, subtask=int(s), **PREVIOUS)
        if before:
            variants["before"] = replace(base, subtask=int(s), **BEFORE)
        result[int(s)] = fidelity(data_dir=data_dir, variants=variants, limit=limit, journal=journal)
    output.write_text(
        json.dumps({"settings": base.to_json(), "wsd": list(wsds), "limit": limit, "rows": result}, indent=1),
        encoding="utf-8",
    )
    click.echo(markdown(result))
    click.echo("")
    click.echo(side_by_side(result))


if __name__ == "__main__":
    main()
