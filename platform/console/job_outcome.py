"""Reads for a generation job's page: the funnel in words, the options report as HTML, what a job
that produced no question means and what to try next, and the quality report's options per question
with their DISTO scores when a DISTO model is configured."""

from dataclasses import dataclass

from markdown_it import MarkdownIt

from console.models import GenerationJob

# The candidates funnel (datagen/shards.py), in the organizer's words.
FUNNEL_LABELS = {
    "pairs_in": "XSum pairs read",
    "bad_lines": "bad lines skipped",
    "pairs_processed": "pairs processed",
    "summary_tokens": "summary words",
    "tokens_considered": "words considered as targets",
    "no_score": "no abstractness score (word not in the lexicon)",
    "above_threshold": "too concrete or too specific (above the limits)",
    "removed_by_lemma": "removed: its lemma is in the article",
    "removed_by_synonym_antonym": "removed: a synonym or antonym is in the article",
    "removed_by_glove": "removed: too close to an article word (GloVe)",
    "removed_by_contextual": "removed: too predictable from the context",
    "kept": "target words kept",
    "pos_rescued": "kept after the part-of-speech check",
    "pairs_with_target": "pairs with at least one target word (candidate questions)",
}

# html=False: raw HTML in the report is shown as text, never interpreted (the report is a file on disk).
_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")


def funnel_rows(*, funnel: dict) -> list[tuple[str, str, object]]:
    """(label, key, value) per funnel entry; an unknown key keeps its name, spaced."""
    return [(FUNNEL_LABELS.get(key, key.replace("_", " ")), key, value) for key, value in funnel.items()]


def report_html(*, markdown: str) -> str:
    return _MARKDOWN.render(markdown)


@dataclass(frozen=True)
class JobOutcome:
    because: str
    tries: str


def job_outcome(*, job: GenerationJob, outputs: dict) -> JobOutcome | None:
    """Why a finished job wrote no question, and what to try; None when it wrote some (or is not done)."""
    if job.status != GenerationJob.Status.DONE or outputs.get("questions"):
        return None
    funnel = (outputs.get("funnel") or {}).get("funnel", {})
    report = outputs.get("report") or {}
    candidates = sum((report.get("sizes", {}).get("Candidates") or {}).values())
    if funnel and not funnel.get("pairs_with_target", funnel.get("kept", 0)):
        pairs = funnel.get("pairs_processed", funnel.get("pairs_in", 0))
        return JobOutcome(
            because=f"no summary word of the {pairs} pairs passed the target-word filters",
            tries="more pairs (a few hundred give dozens of questions), or higher imperceptibility and "
            "nonspecificity limits",
        )
    drops = ", ".join(f"{reason}: {n}" for reason, n in sorted((report.get("drops") or {}).items()) if n)
    gate = " or the gate" if job.settings.get("gate") else ""
    return JobOutcome(
        because=f"all {candidates} candidate question{'s' if candidates != 1 else ''} were dropped by the "
        f"output checks{gate}" + (f" ({drops})" if drops else ""),
        tries="more pairs (each of the k folds trains its readers on the others, so a few pairs leave "
        "them almost nothing to learn from), or the gate off to see ungated questions",
    )


QUALITY_QUESTIONS_SHOWN = 50


@dataclass(frozen=True)
class QualityOptions:
    rows: list[dict]  # {"id", "question", "options": [{"text", "gold", "disto": "0.851" or None}]}
    disto: bool  # the DISTO column is shown
    note: str
    total: int  # questions in the report


def _question_row(entry: object) -> dict | None:
    """One report question as a row, None when its shape is not the report's (a hand-edited file)."""
    if not isinstance(entry, dict):
        return None
    options, label, scores = entry.get("options"), entry.get("label"), entry.get("disto")
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        return None
    if not isinstance(scores, list) or len(scores) != len(options):
        scores = [None] * len(options)
    scores = [f"{s:.3f}" if isinstance(s, int | float) and not isinstance(s, bool) else None for s in scores]
    return {
        "id": entry.get("id"),
        "question": str(entry.get("question", "")),
        "options": [
            {"text": o, "gold": i == label, "disto": s}
            for i, (o, s) in enumerate(zip(options, scores, strict=True))
        ],
    }


def quality_options(*, quality: dict | None, disto_model: str) -> QualityOptions | None:
    """The quality report's options per question (the first ``QUALITY_QUESTIONS_SHOWN``), with each
    distractor's DISTO score (the report's per-question ``disto``, ``datagen quality --disto-model``)
    when ``disto_model`` (the DISTO_MODEL setting) is set and the report has the scores; otherwise no
    DISTO column and a note saying why. None without a report."""
    if not isinstance(quality, dict):
        return None
    entries = quality.get("questions") if isinstance(quality.get("questions"), list) else []
    rows = [row for row in map(_question_row, entries[:QUALITY_QUESTIONS_SHOWN]) if row is not None]
    summary = quality.get("disto") if isinstance(quality.get("disto"), dict) else None
    has_scores = summary is not None and any(o["disto"] is not None for r in rows for o in r["options"])
    if not disto_model:
        note = ("No DISTO score: no DISTO model is configured (set DISTO_MODEL to a directory written by "
                "python -m datagen disto train).")  # fmt: skip
        return QualityOptions(rows=rows, disto=False, note=note, total=len(entries))
    if not has_scores:
        note = ("No DISTO score: this report was written without a DISTO model; write it again with "
                f"python -m datagen quality --disto-model {disto_model}.")  # fmt: skip
        return QualityOptions(rows=rows, disto=False, note=note, total=len(entries))
    model = summary.get("model") if isinstance(summary.get("model"), dict) else {}
    mean = summary.get("mean_distractor_score")
    note = "DISTO score of each distractor (0 to 1, higher: more like a distractor a person wrote)"
    if isinstance(mean, int | float):
        note += f"; mean over all {summary.get('distractors', '?')} distractors of the report {mean:.3f}"
    note += f"; model {model.get('dir', '?')}."
    if model.get("dir") and str(model["dir"]) != str(disto_model):
        note += f" The configured model is {disto_model}: these scores are not that model's."
    return QualityOptions(rows=rows, disto=True, note=note, total=len(entries))
