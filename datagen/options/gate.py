"""The adversarial gate (in the spirit of SWAG's adversarial filtering), pure part.

For one question, every admissible pool word (already in the gold's form) has three scores: the
article-aware LM's log-likelihood of the summary filled with it given the article (``article``), the
options-only LM's (no article, ``options_only["lm"]``) and the word-frequency prior's
(:mod:`datagen.options.prior`). The gold has the same.

Rule (stated before any measurement of this version; the first version's A/B is in docs/explanation/gate.md):

1. **The article decides.** A word is eligible only if reading the article moves the LM towards the
   gold and away from it: ``[article(gold) - article(word)] - [lm(gold) - lm(word)] > ANSWER_MARGIN``
   (0 nats), i.e. the gold's pointwise mutual information with the article, ``article - lm``, exceeds
   the word's. For a word the options-only LM scores at or below the gold this implies the
   article-aware LM prefers the gold; for a word it scores above the gold, the article must win
   back more than that lead. (The first version required ``article(gold) > article(word)`` alone; with
   a 135M LM that barely uses the article, that nearly implies ``lm(gold) > lm(word)``, so the gold
   was the options-only favourite in 31 of 34 gated questions measured on XSum: docs/explanation/gate.md.)
2. **No rank to exploit without the article; never the options-only favourite.** The gold's rank
   among the five options under the options-only LM is drawn uniformly from ``min_rank``..5 for each
   question (seeded by the run's seed and the question's id): rank ``r`` takes ``r - 1`` eligible
   words the options-only LM scores *above* the gold (the article reverses them: the ideal
   distractor) and ``5 - r`` scored at or below it. ``min_rank`` is 2 by default (version 3 of this
   rule, :data:`MIN_GOLD_RANK`): a question whose gold the options-only LM prefers to every
   admissible distractor is answerable without the article, and, as in SWAG's adversarial
   filtering, it is dropped (``gate-gold-options-favourite``), not shipped. Measured before this
   rule was stated: with the draw over 1..5 and the nearest reachable rank as fallback, the gold was
   the options-only favourite in 218 of 372 XSum questions (58.6%), and dropping only the questions
   whose drawn rank could not be reached still left it at 37% (docs/explanation/gate.md). ``min_rank=1`` is
   the previous rule. When the eligible words cannot make the drawn rank, the nearest rank in
   ``min_rank``..5 they can make is used (recorded; the report gives the ranks reached).
3. **Plausibility without the article.** On each side the words closest to the gold come first,
   closeness ``max_s |s(gold) - s(word)| / spread_s`` over the options-only scorers (the LM and the
   word-frequency prior), ``spread_s`` the standard deviation of scorer ``s`` over the question's pool,
   so nats and log frequency share one scale.
4. Fewer than ``count`` eligible words: the question cannot be gated and is dropped (counted).

**Version 4: a second, stronger LM** (``second``; stated 2026-11-25 before any measurement of it). Two
samples showed that version 3 fools the LM it is built on (SmolLM2 options-only 0.0%) but not a
stronger one: Gemma 3 270M, zero-shot or LoRA-fine-tuned, still picks the gold without the article in
two thirds of the questions (docs/explanation/gate.md). As in SWAG's adversarial filtering, which filters
against an ensemble, version 4 asks the same of a second LM, scored on a short list only
(:func:`datagen.options.gated.second_items`, the cost bound): a word is eligible only if rule 1 also
holds under the second LM (its own PMI margin > ``ANSWER_MARGIN``), a word is on the "above" side only
if *both* LMs score it above the gold without the article (so the gold is the options-only favourite
of neither), and the second LM's options-only gap joins the closeness of rule 3. Words the second LM
did not score are not eligible. A question version 3 already drops keeps version 3's reason in the
funnel, and the second LM need not score it (:func:`datagen.options.gated.second_items` leaves it out:
eligible and "above" words only shrink under the second LM, so its scores cannot save it). The recorded ``gold_rank`` then counts the words above the gold for
both LMs: either LM alone may rank the gold lower still (a "below" word may be above it for one LM).

No scorer here is fitted on the questions it judges (the LM and the prior are used as shipped; the
readers that fill the pool are k-fold): "no model judges questions it was fitted on" holds by
construction. Each chosen option records why it was chosen.
"""

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

ANSWER_MARGIN = 0.0
MIN_GOLD_RANK = 2  # the gold is never the options-only LM's favourite (rule 2; 1 = gate version 2)
GATE_VERSION = "gate-3"  # recorded in the dataset report: rule 2 with MIN_GOLD_RANK
GATE_VERSION_SECOND = "gate-4"  # version 3 with a second LM (``second``)
LEAD = "lm"  # the options-only scorer whose rank of the gold is drawn
SECOND = "lm2"  # the second LM's options-only scores, beside ``LEAD`` in the closeness and the why


def _recorded(value: float) -> float:
    """A margin as the why-record keeps it: 6 significant digits, so a small margin keeps its sign
    (rounding to a fixed number of decimals wrote 0.0 for margins the gate had found positive)."""
    return float(f"{value:.6g}")


@dataclass(frozen=True)
class Pick:
    word: str
    why: dict  # article_margin, options-only gaps per scorer (gold minus word), closeness, side, ranks


def rank_draw(*, seed: int, question_id: object, count: int = 4, low: int = 1) -> int:
    """The gold's target rank ``low``..count+1 among the options-only scores, uniform and reproducible.

    The hash does not depend on ``low``: with ``low=1`` the draw is the gate version 2's."""
    if not 1 <= low <= count + 1:
        raise ValueError(f"the lowest rank must be within 1..{count + 1}, got {low}")
    digest = hashlib.sha256(f"{seed}:{question_id}".encode()).hexdigest()
    return low + int(digest, 16) % (count + 2 - low)


def gate(
    *,
    gold: str,
    pool: Sequence[str],
    article: Mapping[str, float],
    options_only: Mapping[str, Mapping[str, float]],
    target_rank: int = 1,
    count: int = 4,
    min_rank: int = MIN_GOLD_RANK,
    second: Mapping[str, Mapping[str, float]] | None = None,
) -> tuple[list[Pick] | None, str]:
    """The ``count`` distractors chosen by the rule above, or ``(None, reason)`` if it cannot be gated.

    ``second``: the second LM's ``{"article": {word: score}, "options_only": {word: score}}`` (version 4),
    the gold among its words; None is version 3."""
    if LEAD not in options_only:
        raise ValueError(f"the gate needs the options-only scorer {LEAD!r}, got {sorted(options_only)}")
    words = [w for w in dict.fromkeys(pool) if w != gold and w in article]
    lead = options_only[LEAD]
    pmi_margin = {w: (article[gold] - article[w]) - (lead[gold] - lead[w]) for w in words}
    eligible = [w for w in words if pmi_margin[w] > ANSWER_MARGIN]
    second_margin: dict[str, float] = {}
    if second is not None:
        # every way version 4 can fail, version 3 fails first on a superset of its words (eligible and
        # "above" only shrink with the second LM): its verdict and reason stand, whatever the second LM
        alone = gate(
            gold=gold, pool=pool, article=article, options_only=options_only, target_rank=target_rank,
            count=count, min_rank=min_rank,
        )  # fmt: skip
        if alone[0] is None:
            return alone
        on, off = second["article"], second["options_only"]
        if gold not in on or gold not in off:
            return None, "gate-second-unscored"
        words = [w for w in words if w in on and w in off]
        second_margin = {w: (on[gold] - on[w]) - (off[gold] - off[w]) for w in words}
        eligible = [w for w in eligible if w in second_margin and second_margin[w] > ANSWER_MARGIN]
        options_only = {**options_only, SECOND: off}
    if len(eligible) < count:
        return None, "gate-too-few-answerable"
    spreads = {}
    for name, scores in options_only.items():
        spread = float(np.std([scores[w] for w in [gold, *words]]))
        spreads[name] = spread if spread > 0 else 1.0
    sides: dict[str, list[Pick]] = {"above": [], "below": []}
    for word in eligible:
        gaps = {name: scores[gold] - scores[word] for name, scores in options_only.items()}
        above = lead[word] > lead[gold] and (SECOND not in options_only or gaps[SECOND] < 0)
        side = "above" if above else "below"
        why = {
            "article_margin": _recorded(article[gold] - article[word]),
            "pmi_margin": _recorded(pmi_margin[word]),
            **({"second_pmi_margin": _recorded(second_margin[word])} if second_margin else {}),
            "gaps": {name: _recorded(gap) for name, gap in gaps.items()},
            "closeness": round(max(abs(gap) / spreads[name] for name, gap in gaps.items()), 4),
            "side": side,
        }
        sides[side].append(Pick(word=word, why=why))
    for picks in sides.values():
        picks.sort(key=lambda p: (p.why["closeness"], p.word))
    lowest = max(min_rank, count + 1 - len(sides["below"]))
    highest = min(count + 1, len(sides["above"]) + 1)
    if highest < min_rank:
        return None, "gate-gold-options-favourite"
    rank = min(max(target_rank, lowest), highest)
    chosen = sides["above"][: rank - 1] + sides["below"][: count - (rank - 1)]
    ranks = {"gold_rank_target": target_rank, "gold_rank": rank}
    return [Pick(word=p.word, why={**p.why, **ranks}) for p in chosen], "gated"


GATE_VERSION_VALID = (
    "gate-5"  # docs/explanation/validity.md, rule G: the PMI rank drawn, not won; contrast first
)


def pmi_draw(*, seed: int, question_id: object, count: int = 4) -> int:
    """The gold's target PMI rank 1..count+1 (gate version 5), a draw of its own (not the options-only one)."""
    return rank_draw(seed=seed, question_id=f"pmi:{question_id}", count=count, low=1)


def gate_valid(
    *,
    gold: str,
    pool: Sequence[str],
    article: Mapping[str, float],
    options_only: Mapping[str, Mapping[str, float]],
    target_rank: int,
    pmi_rank: int,
    count: int = 4,
    min_rank: int = MIN_GOLD_RANK,
    second: Mapping[str, Mapping[str, float]] | None = None,
    contrast: frozenset[str] = frozenset(),
) -> tuple[list[Pick] | None, str]:
    """Gate version 5 (docs/explanation/validity.md, rule G): no PMI eligibility. The gold's options-only rank is
    ``target_rank`` (2..5: never the favourite of either LM, as version 4) and its PMI rank under the
    lead LM ``pmi_rank`` (1..5), reached by picking from the four groups above/below the gold
    options-only x above/below it by PMI; the nearest reachable pair otherwise. ``contrast`` words
    (rule C) come first within each group, then the closest without the article (rule 3)."""
    if LEAD not in options_only:
        raise ValueError(f"the gate needs the options-only scorer {LEAD!r}, got {sorted(options_only)}")
    lead = options_only[LEAD]
    words = [w for w in dict.fromkeys(pool) if w != gold and w in article and w in lead]
    if second is not None:
        # the second LM only removes words: where the lead LM alone cannot gate, its reason stands
        # (the second LM did not score such questions: datagen.options.valid.second_items_valid)
        alone = gate_valid(
            gold=gold, pool=pool, article=article, options_only=options_only, target_rank=target_rank,
            pmi_rank=pmi_rank, count=count, min_rank=min_rank, contrast=contrast,
        )  # fmt: skip
        if alone[0] is None:
            return alone
        off2 = second["options_only"]
        if gold not in off2:
            return None, "gate-second-unscored"
        words = [w for w in words if w in off2]
        options_only = {**options_only, SECOND: off2}
    if len(words) < count:
        return None, "gate-too-few-admissible"
    spreads = {}
    for name, scores in options_only.items():
        spread = float(np.std([scores[w] for w in [gold, *words]]))
        spreads[name] = spread if spread > 0 else 1.0
    pmi = {w: article[w] - lead[w] for w in [gold, *words]}
    groups: dict[tuple[bool, bool], list[Pick]] = {(a, b): [] for a in (True, False) for b in (True, False)}
    for word in words:
        gaps = {name: scores[gold] - scores[word] for name, scores in options_only.items()}
        above = lead[word] > lead[gold] and (SECOND not in options_only or gaps[SECOND] < 0)
        pmi_above = pmi[word] > pmi[gold]
        why = {
            "article_margin": _recorded(article[gold] - article[word]),
            "pmi_margin": _recorded(pmi[gold] - pmi[word]),
            "gaps": {name: _recorded(gap) for name, gap in gaps.items()},
            "closeness": round(max(abs(gap) / spreads[name] for name, gap in gaps.items()), 4),
            "side": "above" if above else "below",
            "pmi_side": "above" if pmi_above else "below",
            "contrast": word in contrast,
        }
        groups[(above, pmi_above)].append(Pick(word=word, why=why))
    for picks in groups.values():
        picks.sort(key=lambda p: (not p.why["contrast"], p.why["closeness"], p.word))
    if not groups[(True, True)] and not groups[(True, False)]:
        return None, "gate-gold-options-favourite"
    best = None
    for rank in range(min_rank, count + 2):
        for prank in range(1, count + 2):
            for k in range(0, count + 1):
                need = {(True, True): k, (True, False): rank - 1 - k, (False, True): prank - 1 - k,
                        (False, False): count - (rank - 1) - (prank - 1) + k}  # fmt: skip
                if any(n < 0 or n > len(groups[g]) for g, n in need.items()):
                    continue
                chosen = [p for g, n in need.items() for p in groups[g][:n]]
                key = (
                    abs(rank - target_rank) + abs(prank - pmi_rank), abs(rank - target_rank),
                    -sum(p.why["contrast"] for p in chosen), sum(p.why["closeness"] for p in chosen), k,
                )  # fmt: skip
                if best is None or key < best[0]:
                    best = (key, rank, prank, chosen)
    if best is None:
        return None, "gate-too-few-admissible"
    _, rank, prank, chosen = best
    ranks = {
        "gold_rank_target": target_rank,
        "gold_rank": rank,
        "pmi_rank_target": pmi_rank,
        "pmi_rank": prank,
    }
    return [Pick(word=p.word, why={**p.why, **ranks}) for p in chosen], "gated"


def openness(picks: Sequence[Pick]) -> float:
    """Rule S: how open the sentence leaves the answer, the smallest over the gate's LMs of the largest
    options-only lead of a chosen distractor over the gold (nats; gaps are gold minus word)."""
    names = picks[0].why["gaps"].keys() - {"wordfreq"}
    return min(max(-p.why["gaps"][name] for p in picks) for name in names)
