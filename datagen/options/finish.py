"""The last step of ``datagen options``: rankings -> pools -> (gated) questions -> files and report.

``ranker`` "readers" uses the k-fold readers' top 10s; "lm" the LM's short lists over the subtask's
answer vocabulary put in the gold's form (:func:`datagen.options.lm_words.score_blank`: its top ``lm_top``
words with the article and its top ``lm_top`` without; the MRR/Recall rows rank the vocabulary with
the article); "both" pools them with the readers' 30. The LM's scores are cached per question in the
work dir (``gate-scores.jsonl``) so a rerun resumes. With ``--ranker readers --no-gate`` this is the
paper's path (:func:`datagen.options.build.build_dataset`) unchanged; otherwise
:func:`datagen.options.gated.build_gated_dataset` (inflection, reuse cap, gate).
"""

import json
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

from datagen.options.build import Candidate, build_dataset, write_recam
from datagen.options.contrast import GATE_VERSION_CONTRAST, MIN_CONTRAST, T_OPEN, U_MARGIN, contrast_forms
from datagen.options.explain import explain
from datagen.options.gate import GATE_VERSION, GATE_VERSION_SECOND, GATE_VERSION_VALID, MIN_GOLD_RANK
from datagen.options.gated import (
    build_gated_dataset,
    cached_scorer,
    gate_items,
    lower_initial_gold,
    second_items,
)
from datagen.options.lm_words import VERSION as LM_SCORING
from datagen.options.lm_words import WINDOW
from datagen.options.lm_words import item_key as key
from datagen.options.retrieval import (
    candidate_set,
    load_rankings,
    read_plan,
    reader_metrics,
    reader_pools,
    text_vocabulary,
)
from datagen.options.stats import question_stats, write_report
from datagen.options.valid import (
    build_contrast_dataset,
    build_valid_dataset,
    second_items_contrast,
    second_items_valid,
)
from recam.siblings import check_no_sibling_leaks

RANKERS = ("readers", "lm", "both")
GATE_CHUNK = 8  # local gate scoring: questions scored and cached at a time


def finish(
    *,
    work: Path,
    groups: dict[str, list[Candidate]],
    candidates: list[Candidate],
    readers: tuple[str, ...],
    output: Path,
    ranker: str = "readers",
    gated: bool = False,
    lm_model: str | None = None,
    lm_top: int = 10,
    score_many: Callable[[list[dict]], Iterable[dict]] | None = None,
    limit: int | None = None,
    gate_min_rank: int = MIN_GOLD_RANK,
    second_lm: str | None = None,
    second_many: Callable[[list[dict]], Iterable[dict]] | None = None,
    lm_window: int | None = WINDOW,
    gate_version: int = 6,
    per_summary: str = "one",
    started: tuple[float, float] | None = None,
    score_shard: tuple[int, int] | None = None,
) -> tuple[int, int, Path] | None:
    """Write the questions and the report; return (written, dropped, report path).

    ``limit``: questions for the first ``limit`` candidates only (a preview, or a measured sample): the
    readers are still trained on the whole file's folds and the LM's vocabulary is the whole file's.

    ``gate_min_rank``: the gate's lowest options-only rank of the gold (:mod:`datagen.options.gate`, rule 2).

    ``score_many`` computes the gate's LM scores for a list of items (:func:`datagen.options.lm_words.gate_scores`
    in this process by default; the CLI's Celery backend sends them to workers in shards).

    ``second_lm``: the gate's second LM (version 4, :mod:`datagen.options.gate`; None: version 3), its scores
    computed by ``second_many`` (default: :func:`~datagen.options.lm_words.gate_scores` here) and cached in
    ``gate-scores2-<model key>.jsonl``.

    ``lm_window``: the words after the blank both LMs' exact scores read (:data:`datagen.options.lm_words.WINDOW`;
    None: to the end of the summary, the scoring rule of gate versions 3-4 before the window).

    ``gate_version`` 6 (default) applies the rules T, D, U of docs/explanation/validity.md (targets with contrast
    words that fit the sentence, at least two of them as distractors, a with-article margin under the second
    LM, which it requires) with version 5's form, near-synonym and one-per-summary rules; without the gate it
    writes as version 5. 5 applies version 5's rules (contrast first, no PMI shortcut) on the gated and
    ungated paths; 4 is the previous gate.
    ``score_shard`` ``(i, n)``: gate version 6 only, score (and cache, in shard files of the work dir) every
    n-th scoring item from the i-th, then return None without writing: n such runs in parallel, then one
    without it reads every shard's cache and writes.
    ``per_summary`` "one" writes one question per summary (rule S; on the paper's path the first in
    input order), "all" every candidate. Whatever is written must pass the sibling-leak check
    (:mod:`recam.siblings`): a set that fails it is not written (``ValueError`` naming the ids).
    ``started``: ``(time.monotonic(), time.process_time())`` at the start of the run, for the report's cost.
    """
    from lexicon.resources import wordnet
    from lexicon.vectors import load_vectors

    plan = read_plan(work_dir=work)
    use_readers = ranker in ("readers", "both")
    rankings = {
        s: load_rankings(work_dir=work, plan=plan, subtask=s, group=g, readers=readers) if use_readers else {}
        for s, g in groups.items()
    }
    vocabulary_groups = groups
    if limit is not None:
        keep = {c.id for c in candidates[:limit]}
        candidates = [c for c in candidates if c.id in keep]
        groups = {s: [c for c in g if c.id in keep] for s, g in groups.items()}
        groups = {s: g for s, g in groups.items() if g}
        rankings = {s: {r: {q: v for q, v in by_q.items() if q in keep} for r, by_q in rankings[s].items()}
                    for s in groups}  # fmt: skip
    pools = reader_pools(rankings=rankings, readers=readers) if use_readers else {}
    # the whole file's words, as in a run without --limit: a pool word from another candidate keeps its
    # vector, so the similarity filter (and the LM's word lists) do not depend on the limit
    everyone = [c for group in vocabulary_groups.values() for c in group]
    vectors = load_vectors(Path(plan.vectors) if plan.vectors else None, vocabulary=text_vocabulary(everyone))
    why = None
    if ranker == "readers" and not gated:
        built = build_dataset(
            candidates=candidates, pools=pools, wordnet=wordnet(), vectors=vectors, seed=plan.seed
        )
        if per_summary == "one":
            built = first_per_summary(built)
    else:
        built = _lm_path(
            work=work, groups=groups, candidates=candidates, pools=pools, rankings=rankings, ranker=ranker,
            gated=gated, lm_model=lm_model, lm_top=lm_top, vectors=vectors, seed=plan.seed, score_many=score_many,
            vocabulary_groups=vocabulary_groups, min_rank=gate_min_rank,
            second_lm=second_lm if gated else None, second_many=second_many, window=lm_window,
            gate_version=gate_version, per_summary=per_summary, score_shard=score_shard,
        )  # fmt: skip
        if built is None:
            return None
        why = built.why
    return _write(
        output=output, built=built, groups=groups, rankings=rankings, plan=plan, work=work,
        readers=readers, vectors=vectors, why=why, settings={"ranker": ranker, "gate": gated, "lm_top": lm_top,
        **({"lm_window": lm_window, "lm_scoring": LM_SCORING} if ranker != "readers" or gated else {}),
        "lm_model": lm_model or "default (LM_MODEL or SmolLM2-135M-Instruct)", "limit": limit,
        "per_summary": per_summary,
        **({"gate_t_open": T_OPEN, "gate_u_margin": U_MARGIN} if gated and gate_version == 6 else {}),
        **({"gate_version": _version_name(gate_version, second_lm), "gate_min_rank": gate_min_rank,
            "gate_second_lm": second_lm, "gate_second_lm_key": second_key(second_lm) if second_lm else None}
           if gated else {})}, started=started,
    )  # fmt: skip


def _lm_path(
    *,
    work,
    groups,
    candidates,
    pools,
    rankings,
    ranker,
    gated,
    lm_model,
    lm_top,
    vectors,
    seed,
    score_many,
    vocabulary_groups,
    min_rank=MIN_GOLD_RANK,
    second_lm=None,
    second_many=None,
    window=WINDOW,
    gate_version=6,
    per_summary="one",
    score_shard=None,
):
    """Score the pools (and, with the LM ranker, the subtask's vocabulary) with the LM, then build."""
    from datagen.nlp import load_nlp
    from datagen.options.lm_words import gate_scores, ranked_from_scores
    from lexicon.resources import wordnet

    candidates = [lower_initial_gold(c) for c in candidates]
    groups = {s: [lower_initial_gold(c) for c in g] for s, g in groups.items()}
    vocabulary = None
    if ranker != "readers":
        vocabulary = {
            s: candidate_set([lower_initial_gold(c) for c in g]) for s, g in vocabulary_groups.items()
        }
    if gated and gate_version == 6:
        return _contrast_path(
            work=work, groups=groups, candidates=candidates, pools=pools, rankings=rankings, ranker=ranker,
            lm_model=lm_model, lm_top=lm_top, vectors=vectors, seed=seed, score_many=score_many,
            vocabulary=vocabulary, second_lm=second_lm, second_many=second_many, window=window,
            per_summary=per_summary, score_shard=score_shard,
        )  # fmt: skip
    if gate_version == 6:
        gate_version = 5  # without the gate, version 6 writes as version 5 (docs/explanation/validity.md)
    items = gate_items(
        candidates=candidates, pools=pools, nlp=load_nlp(), wordnet=wordnet(), vectors=vectors,
        vocabulary=vocabulary, top=lm_top, window=window,
    )  # fmt: skip
    chunk = None if score_many else GATE_CHUNK
    score_many = score_many or (lambda batch: gate_scores(items=batch, lm_model=lm_model, progress=True))
    scores = _cached_gate_scores(work=work, items=items, score_many=score_many, chunk=chunk)
    if ranker != "readers":
        by_id = {str(found["id"]): found for found in scores}
        for s, group in groups.items():
            rankings[s]["lm"] = {
                c.id: ranked_from_scores(by_id[str(c.id)]) for c in group if str(c.id) in by_id
            }
        for found in scores:
            qid = next(c.id for c in candidates if str(c.id) == str(found["id"]))
            pools.setdefault(qid, []).append(found["proposed"])
    second = None
    if gated and second_lm:
        if gate_version == 5:
            found2 = second_items_valid(items=items, scores=scores, wordnet=wordnet(), min_rank=min_rank)
        else:
            found2 = second_items(items=items, scores=scores, min_rank=min_rank)
        chunk2 = None if second_many else GATE_CHUNK
        second_many = second_many or (
            lambda batch: gate_scores(items=batch, lm_model=second_lm, progress=True)
        )
        name = f"gate-scores2-{second_key(second_lm)}.jsonl"
        second = _cached_gate_scores(work=work, items=found2, score_many=second_many, chunk=chunk2, name=name)
    if gate_version == 5:
        return build_valid_dataset(
            candidates=candidates, pools=pools, nlp=load_nlp(), wordnet=wordnet(), vectors=vectors, seed=seed,
            scorer=cached_scorer(scores, second) if gated else None, min_rank=min_rank,
            context=context_similarity(), per_summary=per_summary,
        )  # fmt: skip
    built = build_gated_dataset(
        candidates=candidates, pools=pools, nlp=load_nlp(), wordnet=wordnet(), vectors=vectors, seed=seed,
        scorer=cached_scorer(scores, second) if gated else None, min_rank=min_rank,
    )  # fmt: skip
    return first_per_summary(built) if per_summary == "one" else built


def _contrast_path(
    *, work, groups, candidates, pools, rankings, ranker, lm_model, lm_top, vectors, seed, score_many,
    vocabulary, second_lm, second_many, window, per_summary, score_shard,
):  # fmt: skip
    """Gate version 6: contrast words first (rule T1, before any LM), then SmolLM2 and Gemma chunk by
    chunk (so a run stopped at any point has its first candidates scored by both), then the build."""
    from datagen.nlp import load_nlp
    from datagen.options.inflection import gold_tag
    from datagen.options.lm_words import gate_scores, ranked_from_scores
    from lexicon.resources import wordnet

    if not second_lm:
        raise ValueError("gate version 6 needs the second LM (rule U): pass --gate-lm2, or --gate-version 5")
    nlp, wn = load_nlp(), wordnet()
    contrasts = {}
    for c in candidates:
        tag = gold_tag(nlp=nlp, question=c.question, answer=c.answer)
        contrasts[c.id] = contrast_forms(gold=c.answer, tag=tag, article=c.article, wordnet=wn)
    targets = [c for c in candidates if len(contrasts[c.id]) >= MIN_CONTRAST]
    items = gate_items(
        candidates=targets, pools=pools, nlp=nlp, wordnet=wn, vectors=vectors, vocabulary=vocabulary,
        top=lm_top, window=window,
    )  # fmt: skip
    by_key = {str(c.id): contrasts[c.id] for c in targets}
    for item in items:
        extra = by_key[str(item["id"])]
        gold = item["answer"]
        item["words"] = [gold, *extra, *[w for w in item["words"][1:] if w not in extra]]
        item["must"] = [gold, *extra, *[w for w in item["must"][1:] if w not in extra]]
    if score_shard is not None:
        index, count = score_shard
        items = items[index::count]
    first_many = score_many or (lambda batch: gate_scores(items=batch, lm_model=lm_model, progress=True))
    second_many = second_many or (lambda batch: gate_scores(items=batch, lm_model=second_lm, progress=True))
    shard = f".shard-{score_shard[0]}-of-{score_shard[1]}" if score_shard is not None else ""
    name2 = f"gate-scores2-{second_key(second_lm)}.jsonl"
    scores, second = [], []
    step = GATE_CHUNK if score_many is None else max(1, len(items))
    for start in range(0, len(items), step):
        part = items[start : start + step]
        found = _cached_gate_scores(work=work, items=part, score_many=first_many, chunk=None, shard=shard)
        scores.extend(found)
        found2 = second_items_contrast(items=part, scores=found, contrasts=by_key, wordnet=wn)
        second.extend(
            _cached_gate_scores(work=work, items=found2, score_many=second_many, chunk=None, name=name2, shard=shard)
        )  # fmt: skip
    if score_shard is not None:
        return None
    if ranker != "readers":
        by_id = {str(found["id"]): found for found in scores}
        for s, group in groups.items():
            rankings[s]["lm"] = {
                c.id: ranked_from_scores(by_id[str(c.id)]) for c in group if str(c.id) in by_id
            }
        ids = {str(c.id): c.id for c in candidates}
        for found in scores:
            pools.setdefault(ids[str(found["id"])], []).append(found["proposed"])
    return build_contrast_dataset(
        candidates=candidates, pools=pools, contrasts=contrasts, nlp=nlp, wordnet=wn, vectors=vectors, seed=seed,
        scorer=cached_scorer(scores, second), context=context_similarity(), per_summary=per_summary,
    )  # fmt: skip


def _version_name(gate_version: int, second_lm: str | None) -> str:
    if gate_version == 6:
        return GATE_VERSION_CONTRAST
    if gate_version == 5:
        return GATE_VERSION_VALID
    return GATE_VERSION_SECOND if second_lm else GATE_VERSION


def context_similarity():
    """Rule N2's measure with the candidates stage's encoder (MiniLM-L6 by default)."""
    from datagen.options.validity import context_cosines
    from datagen.targets.encoder import load_encoder

    encoder = load_encoder()
    return lambda question, gold, words: context_cosines(
        encoder=encoder, question=question, gold=gold, words=words
    )


def first_per_summary(built):
    """Rule S without a gate score: the first question written for each article, in input order."""
    seen: set[str] = set()
    keep = []
    for i, source in enumerate(built.sources):
        key = " ".join(source.article.split())
        if key not in seen:
            seen.add(key)
            keep.append(i)
    drops = Counter(built.drops)
    drops["one-per-summary"] += len(built.sources) - len(keep)
    fields = {
        "questions": [built.questions[i] for i in keep],
        "sources": [built.sources[i] for i in keep],
        "drops": drops,
        "excluded": built.excluded,
    }
    if hasattr(built, "why"):
        fields["why"] = [built.why[i] for i in keep]
    return type(built)(**fields)


def second_key(model: str) -> str:
    """A short key of the second LM: the SHA-256 of its file (a GGUF) or of its directory's files."""
    from baselines.lm_loading import model_sha256

    return model_sha256(Path(model))[:12]


def _cached_gate_scores(
    *,
    work: Path,
    items: list[dict],
    score_many,
    chunk: int | None,
    name: str = "gate-scores.jsonl",
    shard: str = "",
) -> list[dict]:
    """Gate scores from ``work/gate-scores.jsonl``, computing and appending the missing ones (resume).

    ``chunk`` questions are scored and appended at a time (None: all at once, as the Celery backend
    sends every shard before waiting). ``score_many`` returns its results in item order, as a list or
    as they come (the Celery backend yields shard by shard): each is appended and flushed as it
    arrives, so a run that stops half-way keeps every result it received."""

    path = work / name
    cached: dict[str, dict] = {}
    shards = sorted(work.glob(f"{path.stem}.shard-*{path.suffix}"))  # parallel scoring runs (score_shard)
    for found in [path, *shards]:
        if not found.exists():
            continue
        for line in found.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
                cached[record["key"]] = record
            except (json.JSONDecodeError, KeyError):
                continue
    if shard:
        path = path.with_name(f"{path.stem}{shard}{path.suffix}")
    missing = [item for item in items if key(item) not in cached]
    step = chunk or max(1, len(missing))
    with path.open("a", encoding="utf-8") as handle:
        for start in range(0, len(missing), step):
            part = missing[start : start + step]
            for item, found in zip(part, score_many(part), strict=True):
                cached[key(item)] = {**found, "key": key(item)}
                handle.write(json.dumps(cached[key(item)]) + "\n")
                handle.flush()
    return [cached[key(item)] for item in items]


def _write(*, output, built, groups, rankings, plan, work, readers, vectors, why, settings, started=None):
    check_no_sibling_leaks(built.questions, source=str(output))  # nothing is written for a leaking set
    output.parent.mkdir(parents=True, exist_ok=True)
    write_recam(path=output, questions=built.questions, sources=built.sources)
    per_subtask: dict[str, list] = {s: [] for s in groups}
    for question, source in zip(built.questions, built.sources, strict=True):
        per_subtask[source.subtask].append((question, source))
    if len(groups) > 1:
        for s, pairs in per_subtask.items():
            split = output.with_name(f"{output.stem}.subtask{s}{output.suffix}")
            write_recam(path=split, questions=[q for q, _ in pairs], sources=[c for _, c in pairs])
    if why is not None:
        with output.with_suffix(".why.jsonl").open("w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(w) + "\n" for w in why)
    report = write_report(
        output=output,
        retrieval={s: reader_metrics(r) for s, r in rankings.items()},
        candidates={s: len(g) for s, g in groups.items()},
        written={s: len(q) for s, q in per_subtask.items()},
        stats={s: question_stats([q for q, _ in pairs]) for s, pairs in per_subtask.items()},
        drops=dict(built.drops),
        excluded=dict(built.excluded),
        provenance={
            "plan": {**plan.__dict__, "readers": list(readers)},
            "work_dir": str(work),
            "vectors": vectors.name,
            "options": settings,
        },
        gate=_gate_ranks(why) if why and settings.get("gate") else None,
        explanation=explain(
            candidates=sum(len(g) for g in groups.values()), written=len(built.questions), drops=built.drops
        ),
        cost=_cost(started, len(built.questions)),
    )
    return len(built.questions), sum(built.drops.values()), report


def _cost(started: tuple[float, float] | None, written: int) -> dict | None:
    """The run's wall and CPU seconds (this process: Celery workers' time and scores read back from a
    cache are not in it) and the same per written question."""
    if started is None:
        return None
    import time

    cost = {
        "wall_seconds": time.monotonic() - started[0],
        "cpu_seconds_this_process": time.process_time() - started[1],
    }
    per = {f"{k}_per_question": round(v / written, 2) if written else None for k, v in cost.items()}
    return {**{k: round(v, 1) for k, v in cost.items()}, **per}


def _gate_ranks(why: list[dict]) -> dict[str, dict[str, int]]:
    """How often each options-only rank of the gold was drawn and reached (the gate's rule 2)."""
    drawn, reached = Counter(), Counter()
    if why and "gold_rank_target" not in next(iter(why[0]["options"].values())):
        # gate version 6 draws no rank: how many of each question's distractors are contrast words
        counts = Counter(str(sum(r["contrast"] for r in entry["options"].values())) for entry in why)
        return {"contrast_distractors": dict(counts)}
    for entry in why:
        first = next(iter(entry["options"].values()))
        drawn[str(first["gold_rank_target"])] += 1
        reached[str(first["gold_rank"])] += 1
    return {"drawn": dict(drawn), "reached": dict(reached)}
