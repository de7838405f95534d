"""Reads for a generation job's page: the funnel in words, the options report as HTML, and what a job
that produced no question means and what to try next."""

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
