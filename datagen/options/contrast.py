"""Gate version 6 (docs/explanation/validity.md, rules T, D, U): contrast words that fit the sentence.

A target is kept only if its gold has contrast words (WordNet antonyms of its senses, of their lateral
neighbours and of their direct hypernyms) that fit the sentence about as well as the gold without the
article (rule T), at least two of them become distractors (rule D), and the article-aware LM prefers
the gold to every distractor with the article by a margin (rule U). Pure: the WordNet reader and the
LM scores are parameters.
"""

import math
from collections.abc import Mapping, Sequence

import numpy as np

from datagen.options.build import exclusion_reason, gold_in_article
from datagen.options.gate import Pick, _recorded
from datagen.options.inflection import inflect_like
from datagen.options.validity import _gold_synsets, form_problem

GATE_VERSION_CONTRAST = "gate-6"
T_FLOOR = math.log(3)  # rule T2 as first stated; the floor of each LM's threshold
# rule T2: per LM, the gold's options-only lead over a contrast word, at most (nats): the median of the
# gold's lead over ReCAM's own distractors, first 200 questions of the Subtask 2 trial file, the gate's
# window scoring (:func:`trial_leads`; docs/explanation/validity.md, "Measured"), at least T_FLOOR
TRIAL_MEDIAN = {"lm": 9.3285, "lm2": 12.0063}  # 800 pairs each, 2026-11-26
T_OPEN = {name: max(T_FLOOR, value or 0.0) for name, value in TRIAL_MEDIAN.items()}
U_MARGIN = math.log(2)  # rule U: the gold's with-article lead over every distractor, at least (nats, Gemma)
MIN_CONTRAST = 2  # rules T and D: contrast words a target needs, and distractors that must be contrast words
SECOND_POOL = 12  # the second LM's admissible pool words per question (besides the gold and contrasts)


def contrast_lemmas(*, gold: str, tag: str | None, wordnet) -> list[str]:
    """Rule T1's WordNet part: the single-word antonyms of the lemmas of every gold synset (in its part of
    speech), of their ``similar_tos``, ``also_sees`` and ``verb_groups``, and of their direct hypernyms."""
    found: dict[str, None] = {}
    # in synset-name order: the gold's lemmas are a set, and the scoring items' keys must not depend on hashing
    for synset in sorted(_gold_synsets(gold=gold, tag=tag, wordnet=wordnet), key=lambda s: s.name()):
        near = [
            synset,
            *synset.similar_tos(),
            *synset.also_sees(),
            *synset.verb_groups(),
            *synset.hypernyms(),
        ]
        for neighbour in near:
            for lemma in neighbour.lemmas():
                for antonym in lemma.antonyms():
                    name = antonym.name().lower()
                    if "_" not in name and " " not in name:
                        found.setdefault(name, None)
    return list(found)


def contrast_forms(*, gold: str, tag: str | None, article: str, wordnet) -> list[str]:
    """Rule T1: the contrast words in the gold's inflection that pass rule F, are not the gold or a
    synonym or derived form of it, and do not occur in the article (any form sharing a base form)."""
    forms: dict[str, None] = {}
    gold = gold.lower()
    for lemma in contrast_lemmas(gold=gold, tag=tag, wordnet=wordnet):
        form = inflect_like(word=lemma, tag=tag) if tag else lemma
        if not form or form == gold or form in forms:
            continue
        if form_problem(word=form, tag=tag, wordnet=wordnet) is not None:
            continue
        if exclusion_reason(word=form, gold=gold, wordnet=wordnet, vectors=None) is not None:
            continue
        if gold_in_article(gold=form, article=article, wordnet=wordnet):
            continue
        forms[form] = None
    return list(forms)


def open_contrasts(
    *, gold: str, contrast: Sequence[str], options_only: Mapping[str, Mapping[str, float]]
) -> list[str]:
    """Rule T2: the contrast words every LM (``{"lm": scores, "lm2": scores}``, either may be absent) scored
    whose options-only deficit to the gold is at most that LM's T_OPEN."""
    return [
        c
        for c in contrast
        if all(
            c in scores and gold in scores and scores[gold] - scores[c] <= T_OPEN[name]
            for name, scores in options_only.items()
        )
    ]


def trial_leads(*, questions, lm, window: int) -> dict:
    """Rule T2's threshold: the gold's options-only lead over each of ReCAM's own distractors (``questions``,
    labelled), scored as the gate scores words (no article, the blank and ``window`` words after it)."""
    from datagen.options.lm_words import score_blank

    leads = []
    for q in questions:
        words = list(q.options)
        found = score_blank(
            lm, article="", question=q.question, words=words, must=words, top=0, window=window
        )
        off = found.options_only
        leads += [off[q.answer] - off[w] for w in words if w != q.answer and w in off and q.answer in off]
    return {
        "questions": len(questions),
        "pairs": len(leads),
        **{f"p{p}": float(np.percentile(leads, p)) for p in (10, 25, 50, 75, 90)},
    }


def gate_contrast(
    *,
    gold: str,
    contrast: Sequence[str],
    pool: Sequence[str],
    lead: Mapping[str, Mapping[str, float]],
    second: Mapping[str, Mapping[str, float]],
    prior: Mapping[str, float],
    count: int = 4,
) -> tuple[list[Pick] | None, str]:
    """Rules T2, U and D for one candidate: the ``count`` distractors, or ``(None, reason)``.

    ``lead`` and ``second``: each LM's ``{"article": {word: score}, "options_only": {word: score}}``
    (SmolLM2 and the article-aware Gemma); ``prior`` the word-frequency scores (the closeness of pool
    words, as version 5). ``contrast`` the candidate's contrast words (rule T1), ``pool`` its admissible
    pool words (rules F, N and the reuse cap)."""
    off = {"lm": lead["options_only"], "lm2": second["options_only"]}
    with_article = second["article"]
    if gold not in with_article or any(gold not in scores for scores in off.values()):
        return None, "gate-second-unscored"
    fitting = open_contrasts(gold=gold, contrast=contrast, options_only=off)
    if len(fitting) < MIN_CONTRAST:
        return None, "target-contrast-not-open"

    def decided(word: str) -> bool:
        return word in with_article and with_article[gold] - with_article[word] >= U_MARGIN

    def openness(word: str) -> float:
        return min(scores[word] - scores[gold] for scores in off.values())

    contrasts = sorted((c for c in fitting if decided(c)), key=lambda c: (-openness(c), c))
    if len(contrasts) < MIN_CONTRAST:
        return None, "contrast-not-decided"
    chosen = contrasts[:count]
    taken = set(contrast)
    others = [
        w for w in dict.fromkeys(pool) if w != gold and w not in taken and all(w in s for s in off.values())
    ]
    others = [w for w in others if w in prior and decided(w)]
    scorers = {**off, "wordfreq": prior}
    words = [gold, *chosen, *others]
    spreads = {}
    for name, scores in scorers.items():
        spread = float(np.std([scores[w] for w in words if w in scores]))
        spreads[name] = spread if spread > 0 else 1.0

    def closeness(word: str) -> float:
        return max(abs(s[gold] - s[word]) / spreads[n] for n, s in scorers.items() if word in s and gold in s)

    others.sort(key=lambda w: (closeness(w), w))
    chosen = [*chosen, *others[: count - len(chosen)]]
    if len(chosen) < count:
        return None, "too-few-distractors"
    picks = []
    for word in chosen:
        why = {
            "contrast": word in taken,
            "article_margin_lm2": _recorded(with_article[gold] - with_article[word]),
            "gaps": {name: _recorded(s[gold] - s[word]) for name, s in off.items()},
            "closeness": round(closeness(word), 4),
        }
        if word in lead["article"]:
            why["article_margin"] = _recorded(lead["article"][gold] - lead["article"][word])
        picks.append(Pick(word=word, why=why))
    return picks, "gated"


def contrast_score(picks: Sequence[Pick]) -> tuple[int, float]:
    """Rule S under version 6: (contrast distractors, openness: the smallest over the two LMs of the
    largest options-only lead of a chosen contrast word over the gold)."""
    contrasts = [p for p in picks if p.why["contrast"]]
    names = ("lm", "lm2")
    open_ = min(max(-p.why["gaps"][n] for p in contrasts) for n in names) if contrasts else -math.inf
    return len(contrasts), open_


def second_short_list(
    *, gold: str, contrast: Sequence[str], pool: Sequence[str], article: Mapping[str, float],
    options_only: Mapping[str, float], limit: int = SECOND_POOL,
) -> list[str] | None:  # fmt: skip
    """What Gemma scores for one candidate (None: nothing, rule T2 already fails under SmolLM2): the
    gold, every contrast word, and at most ``limit`` pool words, those SmolLM2 scores below the gold
    with the article first, each side closest to the gold without the article."""
    if gold not in options_only or gold not in article:
        return None
    if len(open_contrasts(gold=gold, contrast=contrast, options_only={"lm": options_only})) < MIN_CONTRAST:
        return None
    taken = set(contrast) | {gold}
    others = [w for w in pool if w not in taken and w in options_only and w in article]
    others.sort(key=lambda w: (article[w] >= article[gold], abs(options_only[gold] - options_only[w]), w))
    return [gold, *contrast, *others[:limit]]
