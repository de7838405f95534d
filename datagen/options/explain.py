"""Why a run of ``datagen options`` wrote few or no questions, in plain words, from its funnel."""

from collections.abc import Mapping

# drop reason -> (what it means, what to change)
MEANING = {
    "gate-gold-options-favourite": (
        "without the article, the answer was the likeliest word for every admissible distractor: the sentence's "
        "own wording gives it away",
        "nothing in the settings: these sentences cannot make questions that need their article; give more pairs",
    ),
    "gate-too-few-admissible": (
        "fewer than 4 distractors were left after the form, near-synonym and reuse rules",
        "let the LM propose more words (--lm-top 20), or give more pairs",
    ),
    "too-few-distractors": (
        "fewer than 4 distractors were left after the form, near-synonym and reuse rules",
        "let the LM propose more words (--lm-top 20), or give more pairs",
    ),
    "gate-too-few-answerable": (
        "fewer than 4 words passed the gate's article rule (gate version 4)",
        "use the default gate (version 5)",
    ),
    "gate-second-unscored": (
        "the second LM did not score the answer",
        "rerun: the second LM's scores resume",
    ),
    "one-per-summary": (
        "another question on the same summary was written (one question per summary)",
        "nothing: two questions on one summary would give each other away",
    ),
    "gold-in-article": (
        "the answer occurs in the article",
        "nothing: such a question is answered by matching",
    ),
    "target-no-contrast": (
        "the answer has fewer than 2 contrast words (WordNet antonyms that pass the form rules and are not in the "
        "article): nothing in the sentence's alternatives needs the article (gate version 6, rule T)",
        "nothing in the settings: give more pairs",
    ),
    "target-contrast-not-open": (
        "fewer than 2 contrast words fit the sentence about as well as the answer without the article: the "
        "sentence's wording decides it (gate version 6, rule T)",
        "nothing in the settings: give more pairs",
    ),
    "contrast-not-decided": (
        "the article-aware LM did not prefer the answer to 2 contrast words by the margin (gate version 6, rule U)",
        "nothing in the settings: give more pairs",
    ),
    "no-rankings": ("no ranker proposed words", "check the readers' folds, or use --ranker lm"),
}


def explain(*, candidates: int, written: int, drops: Mapping[str, int], shown: int = 3) -> str:
    """A short paragraph: the yield, then the largest drop reasons with their meaning and what to change."""
    share = f" ({written / candidates:.0%})" if candidates else ""
    parts = [f"{written} of {candidates} candidate questions{share} were written."]
    if candidates == 0:
        return parts[0] + " The candidates file is empty: the candidates stage kept no target word."
    largest = sorted(((n, r) for r, n in drops.items() if n), reverse=True)[:shown]
    for count, reason in largest:
        meaning, change = MEANING.get(reason, (f"dropped as {reason}", "see docs/reference/options.md"))
        parts.append(f"{count} dropped because {meaning} ({reason}); what to change: {change}.")
    if written == 0:
        parts.append(
            "No questions: a run needs more pairs than this, or the drops above removed every candidate."
        )
    return " ".join(parts)
