"""The last step of ``datagen options``: rankings -> pools -> (gated) questions -> files and report.

``ranker`` "readers" uses the k-fold readers' top 10s; "lm" the LM ranker's top ``lm_top`` words over
the same candidate vocabulary (:func:`datagen.lm_words.lm_ranking`, cached per question in the work
dir so a rerun resumes); "both" pools them (the LM's list joins the readers' 30). With
``--ranker readers --no-gate`` this is the paper's path (:func:`datagen.options.build_dataset`)
unchanged; otherwise :func:`datagen.options_gate.build_gated_dataset` (inflection, reuse cap, gate).
"""

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path

from tqdm import tqdm

from datagen.options import Candidate, build_dataset, write_recam
from datagen.options_gate import build_gated_dataset, cached_scorer, gate_items
from datagen.retrieval import (
    Ranked,
    candidate_set,
    load_rankings,
    read_plan,
    reader_metrics,
    reader_pools,
    text_vocabulary,
)
from datagen.stats import question_stats, write_report

RANKERS = ("readers", "lm", "both")
GATE_CHUNK = 8  # local gate scoring: questions scored and cached at a time


def lm_rankings(
    *, lm, work: Path, subtask: str, group: Sequence[Candidate], top: int, progress: bool = True
) -> dict[int | str, Ranked]:
    """The LM ranker over one subtask's candidates, appended to ``work/subtask<s>/lm-rankings.jsonl``."""
    from datagen.lm_words import lm_ranking

    path = work / f"subtask{subtask}" / "lm-rankings.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    done: dict[str, Ranked] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                r = json.loads(line)
                done[str(r["id"])] = Ranked(id=r["id"], gold_rank=r["gold_rank"], top=tuple(r["top"]))
            except (json.JSONDecodeError, KeyError):
                continue  # a torn last line
    vocabulary = candidate_set(group)
    with path.open("a", encoding="utf-8") as handle:
        for candidate in tqdm(group, desc=f"LM ranker, subtask {subtask}", disable=not progress):
            if str(candidate.id) in done:
                continue
            ranked = lm_ranking(lm, candidate=candidate, vocabulary=vocabulary, top=top)
            done[str(candidate.id)] = ranked
            handle.write(
                json.dumps({"id": ranked.id, "gold_rank": ranked.gold_rank, "top": ranked.top}) + "\n"
            )
            handle.flush()
    return {c.id: done[str(c.id)] for c in group}


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
    score_many: Callable[[list[dict]], list[dict]] | None = None,
) -> tuple[int, int, Path]:
    """Write the questions and the report; return (written, dropped, report path).

    ``score_many`` computes the gate's LM scores for a list of items (:func:`datagen.lm_words.gate_scores`
    in this process by default; the CLI's Celery backend sends them to workers in shards).
    """
    from datagen.nlp import load_nlp
    from lexicon.resources import wordnet
    from lexicon.vectors import load_vectors

    plan = read_plan(work_dir=work)
    use_readers = ranker in ("readers", "both")
    rankings = {
        s: load_rankings(work_dir=work, plan=plan, subtask=s, group=g, readers=readers) if use_readers else {}
        for s, g in groups.items()
    }
    pools = reader_pools(rankings=rankings, readers=readers) if use_readers else {}
    lm = None
    if ranker != "readers":
        from datagen.lm_words import loaded_lm

        lm = loaded_lm(lm_model)
    if ranker != "readers":
        for s, g in groups.items():
            ranked = lm_rankings(lm=lm, work=work, subtask=s, group=g, top=lm_top)
            rankings[s]["lm"] = ranked
            for qid, r in ranked.items():
                pools.setdefault(qid, []).append(r.top)
    vectors = load_vectors(
        Path(plan.vectors) if plan.vectors else None, vocabulary=text_vocabulary(candidates)
    )
    why = None
    if ranker == "readers" and not gated:
        built = build_dataset(
            candidates=candidates, pools=pools, wordnet=wordnet(), vectors=vectors, seed=plan.seed
        )
    else:
        from datagen.lm_words import gate_scores

        scorer = None
        if gated:
            items = gate_items(
                candidates=candidates, pools=pools, nlp=load_nlp(), wordnet=wordnet(), vectors=vectors
            )
            chunk = None if score_many else GATE_CHUNK
            score_many = score_many or (
                lambda batch: gate_scores(items=batch, lm_model=lm_model, progress=True)
            )
            scorer = cached_scorer(
                _cached_gate_scores(work=work, items=items, score_many=score_many, chunk=chunk)
            )
        built = build_gated_dataset(
            candidates=candidates,
            pools=pools,
            nlp=load_nlp(),
            wordnet=wordnet(),
            vectors=vectors,
            seed=plan.seed,
            scorer=scorer,
        )
        why = built.why
    return _write(
        output=output, built=built, groups=groups, rankings=rankings, plan=plan, work=work,
        readers=readers, vectors=vectors, why=why, settings={"ranker": ranker, "gate": gated, "lm_top": lm_top,
        "lm_model": lm_model or "default (LM_MODEL or SmolLM2-135M-Instruct)"},
    )  # fmt: skip


def _cached_gate_scores(*, work: Path, items: list[dict], score_many, chunk: int | None) -> list[dict]:
    """Gate scores from ``work/gate-scores.jsonl``, computing and appending the missing ones (resume).

    ``chunk`` questions are scored and appended at a time (None: all at once, as the Celery backend
    sends every shard before waiting)."""

    def key(item) -> str:
        return hashlib.sha256(json.dumps([str(item["id"]), item["words"]]).encode()).hexdigest()

    path = work / "gate-scores.jsonl"
    cached: dict[str, dict] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
                cached[record["key"]] = record
            except (json.JSONDecodeError, KeyError):
                continue
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


def _write(*, output, built, groups, rankings, plan, work, readers, vectors, why, settings):
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
    )
    return len(built.questions), sum(built.drops.values()), report
