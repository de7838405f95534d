"""Gate versions 5 and 6 (docs/explanation/validity.md): admissible options (rules F, N), contrast first (C),
the gate without a PMI shortcut (G, version 5), targets and distractors with contrast words and a
with-article margin (T, D, U, version 6), one question per summary (S), and the sibling check on what
is written.
"""

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence

from datagen.options.build import (
    NUM_DISTRACTORS,
    Candidate,
    Similarity,
    build_question,
    check_question,
    output_ids,
)
from datagen.options.contrast import (
    MIN_CONTRAST,
    contrast_score,
    gate_contrast,
    open_contrasts,
    second_short_list,
)
from datagen.options.gate import MIN_GOLD_RANK, gate_valid, openness, pmi_draw, rank_draw
from datagen.options.gated import SECOND_WORDS, GatedResult, WordScorer, ordered_pool, shaped_pool
from datagen.options.inflection import ReuseCounter, gold_tag, reuse_cap
from datagen.options.prior import NAME as PRIOR
from datagen.options.prior import word_logfreq
from datagen.options.validity import CONTEXT_MAX, is_antonym, option_problem
from recam.siblings import check_no_sibling_leaks

# (question, gold, words) -> the in-context cosine of each word with the gold (rule N2); None: no encoder
ContextSimilarity = Callable[[str, str, Sequence[str]], Mapping[str, float]]
PER_SUMMARY = ("one", "all")


def admissible(
    *,
    candidate: Candidate,
    words: Sequence[str],
    tag: str | None,
    wordnet,
    context: ContextSimilarity | None,
    excluded: Counter,
) -> tuple[list[str], frozenset[str]]:
    """Rules F, N1 and N2 on the shaped pool words; returns the admissible words and the contrast words."""
    gold = candidate.answer
    contrast = {w for w in words if is_antonym(word=w, gold=gold, tag=tag, wordnet=wordnet)}
    kept = []
    for word in words:
        reason = option_problem(word=word, gold=gold, tag=tag, wordnet=wordnet, synonyms=word not in contrast)
        if reason:
            excluded[reason] += 1
        else:
            kept.append(word)
    if context is not None and CONTEXT_MAX is not None:
        near = [w for w in kept if w not in contrast]
        cosines = context(candidate.question, gold, near) if near else {}
        close = {w for w, c in cosines.items() if c > CONTEXT_MAX}
        excluded["near-synonym-in-context"] += len(close)
        kept = [w for w in kept if w not in close]
    return kept, frozenset(w for w in kept if w in contrast)


def build_valid_dataset(
    *,
    candidates: Sequence[Candidate],
    pools: Mapping[int | str, Sequence[Sequence[str]]],
    nlp,
    wordnet,
    vectors: Similarity | None,
    seed: int,
    scorer: WordScorer | None,
    min_rank: int = MIN_GOLD_RANK,
    context: ContextSimilarity | None = None,
    per_summary: str = "one",
) -> GatedResult:
    """Checked questions by the rules of docs/explanation/validity.md; ``scorer`` None: no gate (the first 4
    admissible words, contrast words first). Raises ValueError if what would be written leaks."""
    if per_summary not in PER_SUMMARY:
        raise ValueError(f"per_summary must be one of {PER_SUMMARY}, got {per_summary!r}")
    new_id = output_ids(candidates)
    reuse = ReuseCounter(cap=reuse_cap(len(candidates)))
    result = GatedResult(questions=[], sources=[], why=[], drops=Counter(), excluded=Counter())

    def build(candidate):
        return _one(candidate=candidate, pools=pools, nlp=nlp, wordnet=wordnet, vectors=vectors, seed=seed,
                    scorer=scorer, min_rank=min_rank, context=context, reuse=reuse, result=result,
                    new_id=new_id)  # fmt: skip

    return _per_summary(candidates, per_summary=per_summary, build=build, reuse=reuse, result=result,
                        ranked=scorer is not None)  # fmt: skip


def _per_summary(candidates, *, per_summary, build, reuse, result, ranked: bool) -> GatedResult:
    """Rule S: of the questions ``build`` makes for one summary (``per_summary`` "one"), only the most open
    sentence is written (``ranked``; ties, and unranked: the first in input order); then the leak check."""
    groups: dict[str, list[Candidate]] = defaultdict(list)
    for candidate in candidates:
        key = " ".join(candidate.article.split()) if per_summary == "one" else f"{candidate.id}"
        groups[key].append(candidate)
    for group in groups.values():
        made = [built for built in map(build, group) if built is not None]
        if not made:
            continue
        best = max(range(len(made)), key=lambda i: (made[i][3], -i)) if ranked else 0
        result.drops["one-per-summary"] += len(made) - 1
        question, candidate, why, _ = made[best]
        reuse.take([o for i, o in enumerate(question.options) if i != question.label])
        result.questions.append(question)
        result.sources.append(candidate)
        result.why.append({"id": question.id, "source_id": candidate.id, "options": why})
    check_no_sibling_leaks(result.questions, source="the generated set")
    return result


def _one(*, candidate, pools, nlp, wordnet, vectors, seed, scorer, min_rank, context, reuse, result, new_id):
    rankings = pools.get(candidate.id)
    if not rankings:
        result.drops["no-rankings"] += 1
        return None
    forms = shaped_pool(candidate=candidate, words=ordered_pool(rankings), nlp=nlp, wordnet=wordnet,
                        vectors=vectors, excluded=result.excluded)  # fmt: skip
    capped = [w for w in forms if reuse.allows(w)]
    result.excluded["reuse-cap"] += len(forms) - len(capped)
    tag = gold_tag(nlp=nlp, question=candidate.question, answer=candidate.answer)
    words, contrast = admissible(candidate=candidate, words=capped, tag=tag, wordnet=wordnet, context=context,
                                 excluded=result.excluded)  # fmt: skip
    if len(words) < NUM_DISTRACTORS:
        result.drops["too-few-distractors"] += 1
        return None
    if scorer is None:
        ordered = [w for w in words if w in contrast] + [w for w in words if w not in contrast]
        chosen = ordered[:NUM_DISTRACTORS]
        why = {w: {"rule": "pool order, contrast first", "pool_rank": words.index(w) + 1,
                   "contrast": w in contrast} for w in chosen}  # fmt: skip
        score = 0.0
    else:
        gold = candidate.answer
        article, options_only, second = scorer(candidate, [gold, *words])
        scored = [w for w in words if w in article and w in options_only]
        prior = {w: word_logfreq(w) for w in [gold, *scored]}
        picks, reason = gate_valid(
            gold=gold, pool=scored, article=article, options_only={"lm": options_only, PRIOR: prior},
            target_rank=rank_draw(seed=seed, question_id=candidate.id, low=min_rank),
            pmi_rank=pmi_draw(seed=seed, question_id=candidate.id), min_rank=min_rank, second=second,
            contrast=contrast,
        )  # fmt: skip
        if picks is None:
            result.drops[reason] += 1
            return None
        chosen = [p.word for p in picks]
        why = {p.word: {"rule": "gate-5", "pool_rank": words.index(p.word) + 1, **p.why} for p in picks}
        score = openness(picks)
    question = build_question(
        candidate=candidate, question_id=new_id(candidate), distractors=chosen, seed=seed
    )
    problems = check_question(question=question, gold=candidate.answer, wordnet=wordnet)
    if problems:
        result.drops.update(problems[:1])
        return None
    return question, candidate, why, score


def second_items_valid(
    *,
    items: Sequence[Mapping],
    scores: Sequence[Mapping],
    wordnet,
    limit: int = SECOND_WORDS,
    min_rank: int = MIN_GOLD_RANK,
) -> list[dict]:
    """What the second LM scores under gate version 5: per question the gold and at most ``limit``
    admissible words (rules F and N1; an antonym is exempt from N1), those the first LM scores above the
    gold without the article first, then the closest below. Questions version 5 cannot gate on the first
    LM alone (fewer than 4 admissible words, or none above the gold) are left out: the second LM only
    removes words, so its scores cannot save them."""
    by_id = {str(s["id"]): s for s in scores}
    found = []
    for item in items:
        first = by_id.get(str(item["id"]))
        gold, tag = item["answer"], item.get("tag")
        if first is None or gold not in first["article"] or gold not in first["options_only"]:
            continue
        on, off = first["article"], first["options_only"]
        words = []
        for w in on:
            if w == gold or w not in off:
                continue
            contrast = is_antonym(word=w, gold=gold, tag=tag, wordnet=wordnet)
            if option_problem(word=w, gold=gold, tag=tag, wordnet=wordnet, synonyms=not contrast) is None:
                words.append(w)
        if len(words) < NUM_DISTRACTORS or not any(off[w] > off[gold] for w in words):
            continue
        words.sort(key=lambda w: (off[w] <= off[gold], abs(off[gold] - off[w]), w))
        chosen = [gold, *words[:limit]]
        found.append({
            "id": item["id"], "article": item["article"], "question": item["question"], "answer": gold,
            "words": chosen, "must": chosen, "top": 0, "open": 0,
            **({"window": item["window"]} if item.get("window") is not None else {}),
        })  # fmt: skip
    return found


def build_contrast_dataset(
    *,
    candidates: Sequence[Candidate],
    pools: Mapping[int | str, Sequence[Sequence[str]]],
    contrasts: Mapping[int | str, Sequence[str]],
    nlp,
    wordnet,
    vectors: Similarity | None,
    seed: int,
    scorer: WordScorer,
    context: ContextSimilarity | None = None,
    per_summary: str = "one",
) -> GatedResult:
    """Gate version 6 (rules T, D, U, with F, N, S of version 5): ``contrasts`` maps a candidate id to its
    contrast words (:func:`datagen.options.contrast.contrast_forms`); ``scorer`` gives both LMs' scores
    (the second, Gemma, is required). Raises ValueError if what would be written leaks."""
    if per_summary not in PER_SUMMARY:
        raise ValueError(f"per_summary must be one of {PER_SUMMARY}, got {per_summary!r}")
    new_id = output_ids(candidates)
    reuse = ReuseCounter(cap=reuse_cap(len(candidates)))
    result = GatedResult(questions=[], sources=[], why=[], drops=Counter(), excluded=Counter())

    def build(candidate):
        return _one_contrast(candidate=candidate, pools=pools, contrast=contrasts.get(candidate.id, ()), nlp=nlp,
                             wordnet=wordnet, vectors=vectors, seed=seed, scorer=scorer, context=context,
                             reuse=reuse, result=result, new_id=new_id)  # fmt: skip

    return _per_summary(
        candidates, per_summary=per_summary, build=build, reuse=reuse, result=result, ranked=True
    )


def _one_contrast(*, candidate, pools, contrast, nlp, wordnet, vectors, seed, scorer, context, reuse, result,
                  new_id):  # fmt: skip
    if len(contrast) < MIN_CONTRAST:
        result.drops["target-no-contrast"] += 1
        return None
    rankings = pools.get(candidate.id)
    if not rankings:
        result.drops["no-rankings"] += 1
        return None
    forms = shaped_pool(candidate=candidate, words=ordered_pool(rankings), nlp=nlp, wordnet=wordnet,
                        vectors=vectors, excluded=result.excluded)  # fmt: skip
    forms = [w for w in forms if w not in set(contrast)]
    capped = [w for w in forms if reuse.allows(w)]
    result.excluded["reuse-cap"] += len(forms) - len(capped)
    contrast = [w for w in contrast if reuse.allows(w)]
    tag = gold_tag(nlp=nlp, question=candidate.question, answer=candidate.answer)
    words, _ = admissible(candidate=candidate, words=capped, tag=tag, wordnet=wordnet, context=context,
                          excluded=result.excluded)  # fmt: skip
    gold = candidate.answer
    article, options_only, second = scorer(candidate, [gold, *contrast, *words])
    if not second or gold not in second.get("article", {}):
        fits = open_contrasts(gold=gold, contrast=contrast, options_only={"lm": options_only})
        result.drops["target-contrast-not-open" if len(fits) < MIN_CONTRAST else "gate-second-unscored"] += 1
        return None
    prior = {w: word_logfreq(w) for w in [gold, *contrast, *words]}
    picks, reason = gate_contrast(
        gold=gold, contrast=contrast, pool=words, lead={"article": article, "options_only": options_only},
        second=second, prior=prior,
    )  # fmt: skip
    if picks is None:
        result.drops[reason] += 1
        return None
    chosen = [p.word for p in picks]
    pool_rank = {w: i + 1 for i, w in enumerate(words)}
    why = {p.word: {"rule": "gate-6", "pool_rank": pool_rank.get(p.word), **p.why} for p in picks}
    question = build_question(
        candidate=candidate, question_id=new_id(candidate), distractors=chosen, seed=seed
    )
    problems = check_question(question=question, gold=gold, wordnet=wordnet)
    if problems:
        result.drops.update(problems[:1])
        return None
    return question, candidate, why, contrast_score(picks)


def second_items_contrast(
    *, items: Sequence[Mapping], scores: Sequence[Mapping], contrasts: Mapping[str, Sequence[str]], wordnet
) -> list[dict]:
    """What Gemma scores under gate version 6 (:func:`datagen.options.contrast.second_short_list`): per
    question the gold, its contrast words and at most 12 admissible pool words (rules F and N1); questions
    whose contrast words already fail rule T2 under SmolLM2 are left out (Gemma cannot save them)."""
    by_id = {str(s["id"]): s for s in scores}
    found = []
    for item in items:
        first = by_id.get(str(item["id"]))
        if first is None:
            continue
        gold, tag = item["answer"], item.get("tag")
        contrast = list(contrasts.get(str(item["id"]), ()))
        on, off = first["article"], first["options_only"]
        pool = [w for w in on if w != gold and w not in contrast and w in off
                and option_problem(word=w, gold=gold, tag=tag, wordnet=wordnet) is None]  # fmt: skip
        chosen = second_short_list(gold=gold, contrast=contrast, pool=pool, article=on, options_only=off)
        if chosen is None:
            continue
        found.append({
            "id": item["id"], "article": item["article"], "question": item["question"], "answer": gold,
            "words": chosen, "must": chosen, "top": 0, "open": 0,
            **({"window": item["window"]} if item.get("window") is not None else {}),
        })  # fmt: skip
    return found
