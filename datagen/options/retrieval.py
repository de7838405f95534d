"""K-fold retrieval with the three readers (task paper §3.5) and its metrics (Tables 3 and 4).

Each reader is trained on all folds but one and ranks the whole candidate set (the vocabulary of target
words) for every question of the held-out fold. One fold's result lives in ``WORK/<subtask>/<reader>-
fold<k>/``: the saved model, ``rankings.jsonl`` (the top 10 and the gold's rank per question) and
``meta.json`` (versions and input hashes). A rerun with the same inputs reads them back instead of
training again; a work dir holding a run with other inputs is refused, never silently mixed. The
metrics (MRR, Recall@k, the tables, the pools) are in ``datagen.options.retrieval_metrics``.
"""

import dataclasses
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from datagen.options.build import Candidate, normal
from datagen.options.retrieval_metrics import (
    RECALL_AT,
    TABLE_NAMES,
    Ranked,
    metrics_table,
    reader_metrics,
    reader_pools,
    retrieval_metrics,
)
from lexicon.files import file_sha256

__all__ = [  # the metrics and the Ranked record live in datagen.options.retrieval_metrics; importable from here
    "RECALL_AT",
    "TABLE_NAMES",
    "Ranked",
    "load_rankings",
    "metrics_table",
    "reader_metrics",
    "reader_pools",
    "retrieval_metrics",
    "run_fold",
    "run_planned_fold",
]

READERS = ("ga", "att", "att-gloss")
TOP_K = 10
FORMAT_VERSION = "recam-options-rankings-1"
_RANK_BATCH = 256


def _sha256_json(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def candidate_set(candidates: Sequence[Candidate]) -> list[str]:
    """The readers' candidate words: the vocabulary of target words, sorted."""
    return sorted({c.answer for c in candidates})


def fold_dir(*, work_dir: Path, subtask: str, reader: str, fold: int) -> Path:
    return Path(work_dir) / f"subtask{subtask}" / f"{reader}-fold{fold}"


def fold_meta(
    *,
    candidates: Sequence[Candidate],
    folds: Mapping[int | str, int],
    fold: int,
    config: object,
    extra: Sequence[Candidate] = (),
) -> dict:
    """What a fold's result depends on; a stored result is reused only if this matches exactly."""
    held_out = sorted(str(c.id) for c in candidates if folds[c.id] == fold)
    data = [(str(c.id), c.article, c.question, c.answer) for c in candidates]
    more = {"extra_sha256": _sha256_json([(str(c.id), c.article, c.question, c.answer) for c in extra])}
    return {
        **(more if extra else {}),  # without extra training data: the meta of earlier runs, unchanged
        "format": FORMAT_VERSION,
        "fold": fold,
        "data_sha256": _sha256_json(data),
        "held_out_sha256": _sha256_json(held_out),
        "candidate_set_sha256": _sha256_json(candidate_set(candidates)),
        "config": dataclasses.asdict(config) if dataclasses.is_dataclass(config) else dict(config),
    }


def run_fold(
    *,
    work_dir: Path,
    subtask: str,
    fold: int,
    candidates: Sequence[Candidate],
    folds: Mapping[int | str, int],
    config,
    vectors,
    vectors_path: str | None = None,
    device: str | None = None,
    progress: bool = True,
    extra: Sequence[Candidate] = (),
) -> list[Ranked]:
    """Train ``config.reader`` on the other folds and rank the held-out fold (or read a stored result).

    ``extra``: more training questions (``--extra-train``), added to every fold's training set; the
    reader learns their answers too, but ranks the held-out questions over the candidate set alone."""
    from baselines.training import TrainedReader, train_reader

    out = fold_dir(work_dir=work_dir, subtask=subtask, reader=config.reader, fold=fold)
    meta = fold_meta(candidates=candidates, folds=folds, fold=fold, config=config, extra=extra)
    stored = read_fold(out, meta=meta)
    if stored is not None:
        return stored
    train = [_example(c) for c in candidates if folds[c.id] != fold] + [_example(c) for c in extra]
    held_out = [c for c in candidates if folds[c.id] == fold]
    words = sorted(set(candidate_set(candidates)) | {c.answer for c in extra})
    model_dir = out / "model"
    if (model_dir / "DONE").is_file():
        _check_meta(model_dir / "DONE", meta=meta)
        reader = TrainedReader.load(model_dir, vectors=vectors, device=device)
    else:
        reader = train_reader(
            config=config,
            train=train,
            vectors=vectors,
            candidates=words,
            device=device,
            checkpoint_dir=out / "checkpoints",
            progress=progress,
            vectors_path=vectors_path,
        )
        reader.save(model_dir)
        (model_dir / "DONE").write_text(json.dumps(meta, sort_keys=True))
    allowed = set(candidate_set(candidates)) if extra else None
    ranked = rank_held_out(reader=reader, held_out=held_out, size=len(words), allowed=allowed)
    write_fold(out, meta=meta, ranked=ranked)
    return ranked


def _example(candidate: Candidate):
    from baselines.data import ClozeExample

    return ClozeExample(
        id=str(candidate.id), article=candidate.article, question=candidate.question, answer=candidate.answer
    )


def rank_held_out(
    *, reader, held_out: Sequence[Candidate], size: int, allowed: set[str] | None = None
) -> list[Ranked]:
    """Rank all ``size`` candidates per question; keep the top 10 and the gold's rank.

    ``allowed``: rank these words only (the candidate set when the reader also knows extra answers)."""
    ranked: list[Ranked] = []
    for start in range(0, len(held_out), _RANK_BATCH):
        batch = held_out[start : start + _RANK_BATCH]
        rankings = reader.rank(examples=[_example(c) for c in batch], top_k=size)
        for candidate, ranking in zip(batch, rankings, strict=True):
            order = [normal(word) for word, _score in ranking]
            if allowed is not None:
                order = [word for word in order if word in allowed]
            gold_rank = order.index(candidate.answer) + 1 if candidate.answer in order else None
            ranked.append(Ranked(id=candidate.id, gold_rank=gold_rank, top=tuple(order[:TOP_K])))
    return ranked


def write_fold(out: Path, *, meta: dict, ranked: Sequence[Ranked]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / "rankings.jsonl.tmp"
    with tmp.open("w", encoding="utf-8") as handle:
        for r in ranked:
            handle.write(json.dumps({"id": r.id, "gold_rank": r.gold_rank, "top": list(r.top)}) + "\n")
    tmp.replace(out / "rankings.jsonl")
    (out / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")


def read_fold(out: Path, *, meta: dict) -> list[Ranked] | None:
    """The stored rankings of a finished fold, None if there are none yet; ValueError if stale."""
    meta_path = out / "meta.json"
    if not meta_path.is_file() or not (out / "rankings.jsonl").is_file():
        return None
    _check_meta(meta_path, meta=meta)
    with (out / "rankings.jsonl").open(encoding="utf-8") as handle:
        return [
            Ranked(id=rec["id"], gold_rank=rec["gold_rank"], top=tuple(rec["top"]))
            for rec in map(json.loads, handle)
        ]


def _check_meta(path: Path, *, meta: dict) -> None:
    stored = json.loads(path.read_text())
    expected = json.loads(json.dumps(meta, sort_keys=True))
    if stored != expected:
        changed = sorted(k for k in set(stored) | set(expected) if stored.get(k) != expected.get(k))
        raise ValueError(
            f"{path.parent} holds a result for other inputs (differs in {', '.join(changed)}): "
            "use another --work-dir"
        )


@dataclass(frozen=True)
class Plan:
    """Everything a worker needs to train one (subtask, reader, fold): written once as ``plan.json``."""

    candidates: str  # path of the candidates jsonl, readable by every worker
    candidates_sha256: str
    folds: int
    seed: int
    readers: tuple[str, ...]
    reader_settings: dict  # ReaderConfig fields besides ``reader`` (epochs, hidden, ...)
    vectors: str | None = None  # None: the packaged GloVe (lexicon.resources.glove_path())
    device: str | None = None
    extra_train: tuple[str, ...] = ()  # labelled ReCAM files added to every fold's training (--extra-train)
    extra_train_sha256: tuple[str, ...] = ()
    from_recam: str | None = None  # the subtask when ``candidates`` is labelled ReCAM jsonl (--from-recam)


def plan_candidates(plan: Plan) -> list[Candidate]:
    """The plan's candidates, read as the run read them (a candidates file, or ReCAM jsonl)."""
    from datagen.options.build import read_candidates, read_recam_candidates

    if plan.from_recam is not None:
        return read_recam_candidates(plan.candidates, subtask=plan.from_recam)
    return read_candidates(plan.candidates)


def write_plan(*, work_dir: Path, plan: Plan) -> Path:
    path = Path(work_dir) / "plan.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(dataclasses.asdict(plan), indent=2, sort_keys=True) + "\n")
    return path


def read_plan(*, work_dir: Path) -> Plan:
    path = Path(work_dir) / "plan.json"
    try:
        data = json.loads(path.read_text())
        tuples = {k: tuple(data.get(k, ())) for k in ("readers", "extra_train", "extra_train_sha256")}
        return Plan(**{**data, **tuples})
    except (OSError, json.JSONDecodeError, TypeError, KeyError) as exc:
        raise ValueError(f"{path}: not a readable option-generation plan ({exc})") from None


def reader_config(*, reader: str, settings: Mapping[str, object]):
    from baselines.training import ReaderConfig

    if reader not in READERS:
        raise ValueError(f"unknown reader {reader!r}: choose from {', '.join(READERS)}")
    return ReaderConfig(reader=reader, **settings)


def by_subtask(candidates: Sequence[Candidate]) -> dict[str, list[Candidate]]:
    """Each subtask is generated on its own (Tables 3 and 4): own folds, candidate set and readers."""
    groups: dict[str, list[Candidate]] = {}
    for candidate in candidates:
        groups.setdefault(candidate.subtask, []).append(candidate)
    return dict(sorted(groups.items()))


def text_vocabulary(candidates: Sequence[Candidate]) -> set[str]:
    """Every token the readers and the similarity filter will look up."""
    from baselines.data import tokenize

    vocabulary: set[str] = set()
    for c in candidates:
        vocabulary.update(tokenize(c.article), tokenize(c.question), c.answer.split(), [c.answer])
    return vocabulary


def run_planned_fold(*, work_dir: Path, subtask: str, reader: str, fold: int, progress: bool = False) -> dict:
    """Run one fold from the work dir's plan (what a Celery worker does); returns a small summary."""
    from datagen.options.build import assign_folds
    from lexicon.vectors import load_vectors

    plan = read_plan(work_dir=work_dir)
    if file_sha256(plan.candidates) != plan.candidates_sha256:
        raise ValueError(f"{plan.candidates} changed since the plan in {work_dir} was written")
    group = by_subtask(plan_candidates(plan)).get(subtask)
    if not group:
        raise ValueError(f"{plan.candidates}: no candidates of subtask {subtask!r}")
    folds = assign_folds(candidates=group, folds=plan.folds, seed=plan.seed)
    extra = extra_training(plan=plan, group=group)
    vectors = load_vectors(
        Path(plan.vectors) if plan.vectors else None, vocabulary=text_vocabulary([*group, *extra])
    )
    ranked = run_fold(
        work_dir=Path(work_dir),
        subtask=subtask,
        fold=fold,
        candidates=group,
        folds=folds,
        config=reader_config(reader=reader, settings=plan.reader_settings),
        vectors=vectors,
        vectors_path=plan.vectors,
        device=plan.device,
        progress=progress,
        extra=extra,
    )
    return {"subtask": subtask, "reader": reader, "fold": fold, "questions": len(ranked)}


def extra_training(*, plan: Plan, group: Sequence[Candidate]) -> list[Candidate]:
    """The plan's extra training questions (labelled ReCAM files) as candidates, for one subtask's group.

    A question is left out when its article shares at least ``datagen.overlap.DEFAULT_MAX_SHARE`` of its
    word 8-grams with an article of the group (a reader must not train on a passage it is tested on,
    as the folds ensure for the group itself). Files must not have changed since the plan was written."""
    from datagen.overlap import OverlapIndex, split_by_overlap
    from recam.records import read_questions

    if not plan.extra_train:
        return []
    index = OverlapIndex()
    index.add([c.article for c in group], source="candidates")
    found: list[Candidate] = []
    for path, digest in zip(plan.extra_train, plan.extra_train_sha256, strict=True):
        if file_sha256(path) != digest:
            raise ValueError(f"{path} changed since the plan was written")
        questions = read_questions(path)
        kept, _dropped = split_by_overlap([q.article for q in questions], index)
        for position in kept:
            q = questions[position]
            found.append(Candidate(
                id=f"extra:{Path(path).name}:{q.id}", article=q.article, question=q.question,
                answer=normal(q.options[q.label]), subtask=group[0].subtask,
            ))  # fmt: skip
    return found


def load_rankings(
    *,
    work_dir: Path,
    plan: Plan,
    subtask: str,
    group: Sequence[Candidate],
    readers: Sequence[str] | None = None,
) -> dict[str, dict[int | str, Ranked]]:
    """reader -> question id -> Ranked, over all held-out folds; ValueError if a fold is missing.

    ``readers`` defaults to the plan's; processes sharing a work dir may each run other readers.
    """
    from datagen.options.build import assign_folds

    folds = assign_folds(candidates=group, folds=plan.folds, seed=plan.seed)
    extra = extra_training(plan=plan, group=group)
    result: dict[str, dict[int | str, Ranked]] = {}
    for reader in readers or plan.readers:
        config = reader_config(reader=reader, settings=plan.reader_settings)
        result[reader] = {}
        for fold in range(plan.folds):
            out = fold_dir(work_dir=work_dir, subtask=subtask, reader=reader, fold=fold)
            meta = fold_meta(candidates=group, folds=folds, fold=fold, config=config, extra=extra)
            ranked = read_fold(out, meta=meta)
            if ranked is None:
                raise ValueError(f"{out}: this fold has not been run yet")
            # ids come back from JSON: map them onto the candidates' own ids
            by_text = {str(r.id): r for r in ranked}
            for c in group:
                if folds[c.id] == fold and str(c.id) in by_text:
                    result[reader][c.id] = by_text[str(c.id)]
    return result
