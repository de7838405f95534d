"""Ranked and gated option generation (issue #16): pool -> agreeing forms -> reuse cap -> gate -> checks.

The paper's path (:func:`datagen.options.build.build_dataset`, ``--ranker readers --no-gate``) stays as it
was. Here the pool of a question is the readers' top words (when ranked by readers) plus the LM
ranker's top words (when ranked by the LM), ordered by how many rankers proposed a word, then by its
best rank. Every pool word is put in the gold's part of speech and inflection
(:mod:`datagen.options.inflection`), re-filtered (gold, synonym, derived form, GloVe neighbour), held to the
run's reuse cap, and then either gated (:mod:`datagen.options.gate`) or, without the gate, the first 4 kept.
"""

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from datagen.options.build import (
    NUM_DISTRACTORS,
    Candidate,
    Similarity,
    build_question,
    check_question,
    exclusion_reason,
    output_ids,
)
from datagen.options.gate import ANSWER_MARGIN, LEAD, MIN_GOLD_RANK, gate, rank_draw
from datagen.options.inflection import ReuseCounter, agree, gold_tag, reuse_cap
from datagen.options.lm_words import WINDOW
from datagen.options.prior import NAME as PRIOR
from datagen.options.prior import word_logfreq
from recam.records import PLACEHOLDER, Question

# (candidate, words) -> (article-aware LM scores, options-only LM scores, the second LM's
# {"article", "options_only"} or None), word -> log-likelihood
WordScorer = Callable[
    [Candidate, Sequence[str]], tuple[Mapping[str, float], Mapping[str, float], Mapping | None]
]
SECOND_WORDS = 16  # the second LM's short list per question (gate version 4), the cost bound


@dataclass(frozen=True)
class GatedResult:
    questions: list[Question]
    sources: list[Candidate]
    why: list[dict]  # per question: the reason each distractor was chosen
    drops: Counter
    excluded: Counter


def lower_initial_gold(candidate: Candidate) -> Candidate:
    """The gold in lower case when it only has a capital for opening the sentence (``Proposals for ...``).

    ReCAM's answers are all lower case (0 of 1,688 dev answers have a capital), and a capitalised
    gold beside lower-case distractors would give the answer away without the article.
    """
    answer = candidate.answer
    starts = candidate.question.lstrip().startswith(PLACEHOLDER)
    if starts and answer[:1].isupper() and answer[1:] == answer[1:].lower():
        return replace(candidate, answer=answer.lower())
    return candidate


def ordered_pool(rankings: Sequence[Sequence[str]]) -> list[str]:
    """Pool words by the number of rankings proposing them, then best rank, then alphabetically."""
    frequency: Counter[str] = Counter()
    best: dict[str, int] = {}
    for ranking in rankings:
        for rank, word in enumerate(ranking, start=1):
            frequency[word] += 1
            best[word] = min(best.get(word, rank), rank)
    return sorted(frequency, key=lambda w: (-frequency[w], best[w], w))


def shaped_pool(
    *, candidate: Candidate, words: Sequence[str], nlp, wordnet, vectors: Similarity | None, excluded: Counter
) -> list[str]:
    """Admissible pool forms in the gold's part of speech and inflection, pool order kept."""
    tag = gold_tag(nlp=nlp, question=candidate.question, answer=candidate.answer)
    forms = []
    for form in agree(words=words, tag=tag).values():
        reason = exclusion_reason(word=form, gold=candidate.answer, wordnet=wordnet, vectors=vectors)
        if reason:
            excluded[reason] += 1
        else:
            forms.append(form)
    excluded["pos-or-inflection"] += len(set(words)) - len(agree(words=words, tag=tag))
    return forms


def build_gated_dataset(
    *,
    candidates: Sequence[Candidate],
    pools: Mapping[int | str, Sequence[Sequence[str]]],
    nlp,
    wordnet,
    vectors: Similarity | None,
    seed: int,
    scorer: WordScorer | None,
    min_rank: int = MIN_GOLD_RANK,
) -> GatedResult:
    """Checked questions; ``scorer`` None means no gate (the first 4 admissible forms of the pool).

    ``min_rank``: the gate's lowest options-only rank of the gold (:mod:`datagen.options.gate`, rule 2)."""
    new_id = output_ids(candidates)
    reuse = ReuseCounter(cap=reuse_cap(len(candidates)))
    result = GatedResult(questions=[], sources=[], why=[], drops=Counter(), excluded=Counter())
    for candidate in candidates:
        rankings = pools.get(candidate.id)
        if not rankings:
            result.drops["no-rankings"] += 1
            continue
        forms = shaped_pool(
            candidate=candidate,
            words=ordered_pool(rankings),
            nlp=nlp,
            wordnet=wordnet,
            vectors=vectors,
            excluded=result.excluded,
        )
        capped = [w for w in forms if reuse.allows(w)]
        result.excluded["reuse-cap"] += len(forms) - len(capped)
        if len(capped) < NUM_DISTRACTORS:
            result.drops["too-few-distractors"] += 1
            continue
        chosen, why = _choose(candidate=candidate, words=capped, scorer=scorer, seed=seed, min_rank=min_rank)
        if chosen is None:
            result.drops[why] += 1
            continue
        question = build_question(
            candidate=candidate, question_id=new_id(candidate), distractors=chosen, seed=seed
        )
        problems = check_question(question=question, gold=candidate.answer, wordnet=wordnet)
        if problems:
            result.drops.update(problems[:1])
            continue
        reuse.take(chosen)
        result.questions.append(question)
        result.sources.append(candidate)
        result.why.append({"id": question.id, "source_id": candidate.id, "options": why})
    return result


def _choose(*, candidate: Candidate, words: list[str], scorer: WordScorer | None, seed: int, min_rank: int):
    if scorer is None:
        chosen = words[:NUM_DISTRACTORS]
        return chosen, {w: {"rule": "pool order", "pool_rank": words.index(w) + 1} for w in chosen}
    gold = candidate.answer
    article, options_only, second = scorer(candidate, [gold, *words])
    scored = [w for w in words if w in article and w in options_only]
    prior = {w: word_logfreq(w) for w in [gold, *scored]}
    picks, reason = gate(
        gold=gold, pool=scored, article=article, options_only={"lm": options_only, PRIOR: prior},
        target_rank=rank_draw(seed=seed, question_id=candidate.id, low=min_rank), min_rank=min_rank,
        second=second,
    )  # fmt: skip
    if picks is None:
        return None, reason
    return [p.word for p in picks], {
        p.word: {"rule": "gate", "pool_rank": words.index(p.word) + 1, **p.why} for p in picks
    }


def gate_items(
    *,
    candidates: Sequence[Candidate],
    pools: Mapping,
    nlp,
    wordnet,
    vectors: Similarity | None,
    vocabulary: Mapping[str, Sequence[str]] | None = None,
    top: int = 10,
    window: int | None = WINDOW,
) -> list[dict]:
    """What the LM must score, for every candidate (before the reuse cap, which depends on the order of
    questions, so the scoring can run in parallel shards): ``words`` the gold and every admissible form
    of the readers' pool and of the subtask's ``vocabulary`` (None: no LM ranker), ``must`` the gold and
    the readers' forms (always scored exactly), ``top`` the LM's short list per context, ``window`` the
    words after the blank the exact scores read (:func:`datagen.options.lm_words.split_at_blank`; None: all)."""
    items = []
    for candidate in candidates:
        rankings = pools.get(candidate.id) or []
        shape = {"candidate": candidate, "nlp": nlp, "wordnet": wordnet, "vectors": vectors}
        readers = shaped_pool(words=ordered_pool(rankings), excluded=Counter(), **shape)
        extra = list(vocabulary.get(candidate.subtask, ())) if vocabulary is not None else []
        forms = shaped_pool(words=[*ordered_pool(rankings), *extra], excluded=Counter(), **shape)
        if len(forms) < NUM_DISTRACTORS:
            continue
        gold = candidate.answer
        lm_ranks = vocabulary is not None
        items.append({
            "id": candidate.id, "article": candidate.article, "question": candidate.question, "answer": gold,
            "words": [gold, *forms], "must": [gold, *readers], "top": top if lm_ranks else 0,
            "tag": gold_tag(nlp=nlp, question=candidate.question, answer=gold), "open": top if lm_ranks else 0,
            **({"window": window} if window is not None else {}),
        })  # fmt: skip
    return items


def second_items(
    *,
    items: Sequence[Mapping],
    scores: Sequence[Mapping],
    limit: int = SECOND_WORDS,
    min_rank: int = MIN_GOLD_RANK,
) -> list[dict]:
    """What the second LM scores (gate version 4): per question the gold and at most ``limit`` words
    the first LM finds eligible (rule 1 of :mod:`datagen.options.gate`), every word the first LM scores above
    the gold without the article first (the words that can make the gold lose its lead), then the
    closest below it, each side by the first LM's options-only gap to the gold. Exact scores only
    (``top`` 0, no open words), on the first LM's window. Cost: at most ``limit + 1`` continuations per context and question.

    Questions the first LM alone cannot gate (version 3 with ``min_rank``, on every word it scored
    exactly: a superset of any pool the gate will see) are left out: version 4 drops them whatever the
    second LM says, so leaving them out changes no question and only saves the second LM's time."""
    by_id = {str(s["id"]): s for s in scores}
    found = []
    for item in items:
        first = by_id.get(str(item["id"]))
        gold = item["answer"]
        if first is None or gold not in first["article"] or gold not in first["options_only"]:
            continue
        on, off = first["article"], first["options_only"]
        words = [w for w in on if w != gold and w in off]
        alone, _ = gate(gold=gold, pool=words, article=on, options_only={LEAD: off}, min_rank=min_rank)
        if alone is None:
            continue
        eligible = [w for w in words if (on[gold] - on[w]) - (off[gold] - off[w]) > ANSWER_MARGIN]
        eligible.sort(key=lambda w: (off[w] <= off[gold], abs(off[gold] - off[w]), w))
        chosen = [gold, *eligible[:limit]]
        found.append({
            "id": item["id"], "article": item["article"], "question": item["question"], "answer": gold,
            "words": chosen, "must": chosen, "top": 0, "open": 0,
            **({"window": item["window"]} if item.get("window") is not None else {}),
        })  # fmt: skip
    return found


def cached_scorer(scores: Sequence[Mapping], second: Sequence[Mapping] | None = None) -> WordScorer:
    """A gate scorer reading precomputed :func:`datagen.options.lm_words.gate_scores` results (words the LM did
    not score exactly are left out by the gate); ``second`` the second LM's (gate version 4)."""
    by_id = {str(s["id"]): s for s in scores}
    second_by_id = {str(s["id"]): s for s in second} if second is not None else None

    def score(candidate: Candidate, words: Sequence[str]):
        found = by_id.get(str(candidate.id))
        if found is None:
            return {}, {}, None
        if second_by_id is None:
            return found["article"], found["options_only"], None
        other = second_by_id.get(str(candidate.id)) or {"article": {}, "options_only": {}}
        return found["article"], found["options_only"], {k: other[k] for k in ("article", "options_only")}

    return score
