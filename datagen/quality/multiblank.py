"""The quality check of the multi-blank formats: how much the options alone give away.

- **CLOTH, options-only accuracy.** Each blank's options are scored without the passage, by the LM
  (the log-probability of the option alone after the start token, :func:`baselines.cloze_lm.text_logprobs`)
  and by the word-frequency prior (:func:`datagen.options.prior.word_logfreq`); a scorer's pick is its
  highest-scoring option. Chance is 1/4; a scorer far above it finds the gold without reading.
- **SCDE, candidates-only accuracy** (SCDE's check that distractors cannot be told from answers without
  the passage, the paper's section 5.6): each candidate is scored alone by the LM (mean log-probability
  per token, so length does not decide); the |B| best of a passage are called answers, the rest
  distractors; the accuracy is the fraction of candidates classified right. Chance (a random |B|-subset)
  is ``1 - 2|B||D| / |C|^2`` per passage.
"""

from collections.abc import Callable, Sequence

import numpy as np

from recam.formats.cloth import ClothPassage
from recam.formats.scde import ScdePassage

# texts -> (n,) summed log-probabilities, and texts -> (n,) token counts
TextScorer = Callable[[Sequence[str]], np.ndarray]


def cloth_options_only(passages: Sequence[ClothPassage], *, scorers: dict[str, TextScorer]) -> dict:
    """Per scorer, the options-only accuracy over all blanks, with the chance row and the blank count."""
    blanks = [(opts, p.answers[i]) for p in passages for i, opts in enumerate(p.options) if p.answers]
    result: dict = {"format": "cloth", "blanks": len(blanks), "chance": 0.25, "options_only_accuracy": {}}
    for name, scorer in scorers.items():
        flat = [o for opts, _gold in blanks for o in opts]
        scores = (
            np.asarray(scorer(flat), dtype=float).reshape(len(blanks), -1) if blanks else np.zeros((0, 4))
        )
        right = [int(np.argmax(row)) == gold for row, (_o, gold) in zip(scores, blanks, strict=True)]
        result["options_only_accuracy"][name] = float(np.mean(right)) if right else 0.0
    return result


def scde_candidates_only(passages: Sequence[ScdePassage], *, scorer: TextScorer) -> dict:
    """The candidates-only accuracy (answer vs distractor, without the passage) and its chance."""
    right = total = 0
    chance = []
    for passage in passages:
        if passage.answers is None:
            continue
        scores = np.asarray(scorer(list(passage.candidates)), dtype=float)
        b, c = len(passage.answers), len(passage.candidates)
        called = set(np.argsort(-scores, kind="stable")[:b].tolist())
        answers = set(passage.answers)
        right += sum((i in called) == (i in answers) for i in range(c))
        total += c
        chance.append(1 - 2 * b * (c - b) / c**2)
    return {
        "format": "scde",
        "passages": len(chance),
        "candidates": total,
        "candidates_only_accuracy": right / total if total else 0.0,
        "chance": float(np.mean(chance)) if chance else 0.0,
    }


def lm_text_scorers(lm, *, batch_size: int = 8) -> tuple[TextScorer, TextScorer]:
    """(summed, per-token mean) log-probability of texts alone under the LM of the multi-blank baselines."""
    from baselines.cloze_lm import text_logprobs

    def summed(texts: Sequence[str]) -> np.ndarray:
        return text_logprobs(lm, texts, batch_size=batch_size)

    def mean(texts: Sequence[str]) -> np.ndarray:
        lengths = np.array([max(1, len(lm.tokenizer.encode(t, add_special_tokens=False))) for t in texts])
        return summed(texts) / lengths

    return summed, mean


def prior_scorer(texts: Sequence[str]) -> np.ndarray:
    from datagen.options.prior import word_logfreq

    return np.array([word_logfreq(t) for t in texts], dtype=float)


def multiblank_report(*, fmt: str, path, lm, batch_size: int = 8) -> dict:
    """Read ``path`` with the format's reader (answers required) and run its check."""
    from recam.formats import get_format

    records = get_format(fmt).read(path, require_answers=True)
    summed, mean = lm_text_scorers(lm, batch_size=batch_size)
    if fmt == "cloth":
        return cloth_options_only(records, scorers={"lm": summed, "wordfreq": prior_scorer})
    if fmt == "scde":
        return scde_candidates_only(records, scorer=mean)
    raise ValueError(f"format {fmt!r} has no multi-blank check (cloth or scde)")
