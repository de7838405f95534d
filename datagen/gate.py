"""The adversarial gate (issue #16, in the spirit of SWAG's adversarial filtering), pure part.

For one question, every admissible pool word (already in the gold's form) has three scores: the
article-aware LM's log-likelihood of the summary filled with it given the article, the options-only
LM's (summary alone) and the word-frequency prior's (:mod:`datagen.prior`). The gold has the same.

Rule (fixed before measuring):
1. **Answerability**: a word is eligible only if the article-aware LM prefers the gold to it,
   ``article(gold) - article(word) > ANSWER_MARGIN`` (0 nats: a tie is not a preference).
2. **Plausibility without the article**: eligible words are ranked by how close both options-only
   scorers put them to the gold, ``max_s |s(gold) - s(word)| / spread_s`` where ``spread_s`` is the
   standard deviation of scorer ``s`` over the question's pool (so nats of the LM and log frequency
   are on one scale); the ``count`` closest are the distractors. Close in both directions: a
   distractor far more likely than the gold leaks too (a model learns to pick the odd one out).
3. Fewer than ``count`` eligible words: the question cannot be gated and is dropped (counted).

No scorer here is fitted on the questions it judges (the LM and the prior are used as shipped; the
readers that fill the pool are k-fold): the issue's "k-fold so no model judges questions it was
fitted on" holds by construction; a fine-tuned judge would have to be fitted k-fold like the readers.
Each chosen option records why it was chosen (its margins and gaps).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

ANSWER_MARGIN = 0.0


@dataclass(frozen=True)
class Pick:
    word: str
    why: dict  # article_margin, options-only gaps per scorer (gold minus word), the closeness key


def gate(
    *,
    gold: str,
    pool: Sequence[str],
    article: Mapping[str, float],
    options_only: Mapping[str, Mapping[str, float]],
    count: int = 4,
) -> tuple[list[Pick] | None, str]:
    """The ``count`` distractors chosen by the rule above, or ``(None, reason)`` if it cannot be gated."""
    words = [w for w in pool if w != gold]
    eligible = [w for w in words if article[gold] - article[w] > ANSWER_MARGIN]
    if len(eligible) < count:
        return None, "gate-too-few-answerable"
    spreads = {}
    for name, scores in options_only.items():
        spread = float(np.std([scores[w] for w in [gold, *words]]))
        spreads[name] = spread if spread > 0 else 1.0
    picks = []
    for word in eligible:
        gaps = {name: scores[gold] - scores[word] for name, scores in options_only.items()}
        key = max(abs(gap) / spreads[name] for name, gap in gaps.items())
        why = {
            "article_margin": round(article[gold] - article[word], 4),
            "gaps": {name: round(gap, 4) for name, gap in gaps.items()},
            "closeness": round(key, 4),
        }
        picks.append(Pick(word=word, why=why))
    picks.sort(key=lambda p: (p.why["closeness"], p.word))
    return picks[:count], "gated"
