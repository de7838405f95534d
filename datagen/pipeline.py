"""Candidate target words (§3.2-3.4): stages, shards, the funnel, resume, deterministic output.

Stages for one shard of pairs:
1. ``select_shard``: spaCy on summaries and documents; score each summary token of the subtask's
   parts of speech (imperceptibility < 0.35 for Subtask 1, Lesk sense depth < 6 for Subtask 2);
   then the lemma, synonym/antonym and GloVe filters. CPU-bound.
2. ``finish_shard``: the contextual-similarity filter (encoder, may run on a GPU queue), then one
   record per surviving target. Every summary token ends with one *fate*; the funnel counts them.

``run_candidates`` splits the input into shards, runs them through a runner (local here; Celery in
``tasks.datagen``), keeps each finished shard in ``<output>.work/`` and concatenates them in order,
so an interrupted run resumes from its last finished shard and every runner writes the same bytes.
"""

import hashlib
import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from datagen import filters
from datagen.nlp import Analysis, analyse
from datagen.xsum import BadLine, Pair, read_pairs

PIPELINE_VERSION = 1
SUBTASK_POS = {1: frozenset({"NOUN", "VERB", "ADJ", "ADV"}), 2: frozenset({"NOUN", "VERB"})}
# Fates of a summary token, in stage order; the funnel counts them.
FATES = (
    "not-target-pos",
    "no-score",
    "above-threshold",
    "lemma",
    "synonym-antonym",
    "glove",
    "contextual",
    "kept",
)


@dataclass(frozen=True)
class Settings:
    subtask: int
    imperceptibility_max: float = 0.35
    depth_max: int = 6
    glove_max: float = filters.DEFAULT_GLOVE_MAX
    contextual_max: float = filters.DEFAULT_CONTEXTUAL_MAX
    lesk_window: int = 8
    use_encoder: bool = True

    def __post_init__(self) -> None:
        if self.subtask not in SUBTASK_POS:
            raise ValueError(f"subtask must be 1 or 2, got {self.subtask!r}")

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class Resources:
    """Everything a stage needs; loaded once per process by ``load_resources``."""

    nlp: object
    wordnet: object
    vectors: object
    imperceptibility: object | None = None
    nonspecificity: object | None = None
    encoder: object | None = None
    names: dict = field(default_factory=dict)


_RESOURCES: dict[tuple, Resources] = {}


def load_resources(*, settings: Settings, encoder: bool | None = None) -> Resources:
    """The resources for ``settings``, cached per process (a Celery worker loads them once)."""
    from datagen.nlp import load_nlp
    from lexicon import resources
    from lexicon.vectors import load_vectors

    want_encoder = settings.use_encoder if encoder is None else encoder
    key = (settings.subtask, settings.lesk_window, want_encoder)
    if key not in _RESOURCES:
        res = Resources(nlp=load_nlp(), wordnet=resources.wordnet(), vectors=load_vectors())
        res.names = {"spacy": resources.spacy_model_name(), "vectors": res.vectors.name}
        if settings.subtask == 1:
            from datagen.abstractness import ImperceptibilityScorer

            res.imperceptibility = ImperceptibilityScorer.load()
            res.names["imperceptibility"] = f"{res.imperceptibility.name} {res.imperceptibility.sha256[:12]}"
        else:
            from datagen.lesk import AdaptedLesk
            from datagen.nonspecificity import NonspecificityScorer

            lesk = AdaptedLesk(wordnet=res.wordnet)
            res.nonspecificity = NonspecificityScorer(lesk=lesk, window=settings.lesk_window)
        if want_encoder:
            from datagen.encoder import load_encoder

            res.encoder = load_encoder()
            res.names["encoder"] = res.encoder.name
        _RESOURCES[key] = res
    return _RESOURCES[key]


@dataclass
class PairState:
    """One pair between the stages: its analyses, each summary token's fate, and target scores."""

    pair: Pair
    summary: Analysis
    passage: Analysis
    fates: dict[int, str]
    scores: dict[int, dict]

    def to_json(self) -> dict:
        return {
            "pair": asdict(self.pair),
            "summary": self.summary.to_json(),
            "passage": self.passage.to_json(),
            "fates": [[k, v] for k, v in sorted(self.fates.items())],
            "scores": [[k, v] for k, v in sorted(self.scores.items())],
        }

    @classmethod
    def from_json(cls, data: dict) -> "PairState":
        return cls(
            pair=Pair(**data["pair"]),
            summary=Analysis.from_json(data["summary"]),
            passage=Analysis.from_json(data["passage"]),
            fates={int(k): v for k, v in data["fates"]},
            scores={int(k): v for k, v in data["scores"]},
        )


def score_tokens(state: PairState, indices: list[int], settings: Settings, res: Resources) -> None:
    tokens = state.summary.tokens
    if settings.subtask == 1:
        values = res.imperceptibility.score([tokens[i].lemma.lower() for i in indices])
        missing = [i for i, v in zip(indices, values, strict=True) if v is None]
        fallback = dict(
            zip(missing, res.imperceptibility.score([tokens[i].lower for i in missing]), strict=True)
        )
        for index, value in zip(indices, values, strict=True):
            value = value if value is not None else fallback[index]
            if value is None:
                state.fates[index] = "no-score"
            elif value >= settings.imperceptibility_max:
                state.fates[index] = "above-threshold"
            else:
                state.scores[index] = {"imperceptibility": round(float(value), 6)}
        return
    senses = res.nonspecificity.score(summary=state.summary, passage=state.passage, indices=indices)
    for index in indices:
        sense = senses[index]
        if sense is None:
            state.fates[index] = "no-score"
        elif sense.depth >= settings.depth_max:
            state.fates[index] = "above-threshold"
        else:
            state.scores[index] = {"depth": sense.depth, "synset": sense.synset, "lesk_score": sense.score}


def static_filters(state: PairState, settings: Settings, res: Resources) -> None:
    index = filters.passage_index(state.passage)
    glove_passage = None
    for i in sorted(state.scores):
        token = state.summary.tokens[i]
        if filters.lemma_match(token=token, index=index):
            state.fates[i] = "lemma"
        elif filters.synonym_antonym_match(wordnet=res.wordnet, token=token, index=index):
            state.fates[i] = "synonym-antonym"
        else:
            if glove_passage is None:
                glove_passage = filters.glove_passage_matrix(vectors=res.vectors, index=index)
            hit = filters.glove_match(
                vectors=res.vectors, word=token.lower, passage=glove_passage, threshold=settings.glove_max
            )
            if hit:
                state.fates[i] = "glove"
        if i in state.fates:
            del state.scores[i]


def tokens_in_span(summary: Analysis, span: tuple[int, int]) -> list[int]:
    """Indices of the summary tokens overlapping the character span [start, end)."""
    start, end = span
    return [i for i, t in enumerate(summary.tokens) if t.start < end and t.end > start]


def select_pairs(
    *,
    pairs: Sequence[Pair],
    settings: Settings,
    res: Resources,
    only: dict[str, tuple[int, int]] | None = None,
) -> list[PairState]:
    """Stage 1 for pairs; ``only`` (pair id -> character span) scores only the tokens in that span."""
    summaries = analyse(nlp=res.nlp, texts=[p.summary for p in pairs])
    passages = analyse(nlp=res.nlp, texts=[p.document for p in pairs])
    states = []
    for pair, summary, passage in zip(pairs, summaries, passages, strict=True):
        state = PairState(pair=pair, summary=summary, passage=passage, fates={}, scores={})
        wanted = range(len(summary.tokens)) if only is None else tokens_in_span(summary, only[pair.id])
        indices = []
        for i in wanted:
            if summary.tokens[i].pos in SUBTASK_POS[settings.subtask]:
                indices.append(i)
            else:
                state.fates[i] = "not-target-pos"
        if indices:
            score_tokens(state, indices, settings, res)
            static_filters(state, settings, res)
        states.append(state)
    return states


def contextual_filter(state: PairState, settings: Settings, res: Resources) -> None:
    summary_words = [t.text for t in state.summary.tokens]
    passage_sentences = [[t.text for t in sent] for sent in state.passage.sentences()]
    vectors = res.encoder.embed(sentences=[summary_words, *passage_sentences])
    import numpy as np

    passage_vectors = np.concatenate(vectors[1:], axis=0) if passage_sentences else np.zeros((0, 1))
    for i in sorted(state.scores):
        hit = filters.contextual_match(
            token_vector=vectors[0][i], passage_vectors=passage_vectors, threshold=settings.contextual_max
        )
        if hit:
            state.fates[i] = "contextual"
            del state.scores[i]


def record_for(state: PairState, index: int, settings: Settings) -> dict:
    token = state.summary.tokens[index]
    text = state.summary.text
    return {
        "id": f"{state.pair.id}-{settings.subtask}-{index}",
        "pair_id": state.pair.id,
        "subtask": settings.subtask,
        "article": state.pair.document,
        "question": text[: token.start] + "@placeholder" + text[token.end :],
        "answer": token.text,
        "lemma": token.lemma,
        "pos": token.pos,
        "scores": state.scores[index],
    }


def finish_states(*, states: Sequence[PairState], settings: Settings, res: Resources | None) -> dict:
    """Stage 2 (contextual filter, if on) and the shard's records and funnel counts."""
    funnel: Counter = Counter(pairs_in=len(states))
    records = []
    for state in states:
        if settings.use_encoder and state.scores:
            contextual_filter(state, settings, res)
        for i in state.scores:
            state.fates[i] = "kept"
        funnel["summary_tokens"] += len(state.summary.tokens)
        funnel.update(state.fates.values())
        funnel["pairs_with_target"] += bool(state.scores)
        records.extend(record_for(state, i, settings) for i in sorted(state.scores))
    return {"records": records, "funnel": dict(funnel)}


def run_shard(*, pairs: Sequence[Pair], settings: Settings, res: Resources) -> dict:
    """Both stages in this process: ``{"records": [...], "funnel": {...}}``."""
    states = select_pairs(pairs=pairs, settings=settings, res=res)
    return finish_states(states=states, settings=settings, res=res)


# --- shards, resume, output -------------------------------------------------------------------------

Runner = Callable[[list[tuple[int, list[Pair]]], Settings], Iterator[tuple[int, dict]]]


def local_runner(shards: list[tuple[int, list[Pair]]], settings: Settings) -> Iterator[tuple[int, dict]]:
    res = load_resources(settings=settings)
    for number, pairs in shards:
        yield number, run_shard(pairs=pairs, settings=settings, res=res)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def _dumps(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False)


def _prepare_work_dir(work: Path, manifest: dict) -> None:
    work.mkdir(parents=True, exist_ok=True)
    path = work / "manifest.json"
    if path.exists():
        old = json.loads(path.read_text(encoding="utf-8"))
        if old != manifest:
            raise ValueError(
                f"{work}: holds shards of a different run (input, settings or shard size changed); delete it to start over"
            )
    else:
        _write_atomic(path, json.dumps(manifest, indent=1, sort_keys=True))


def _total_funnel(funnels: Iterable[dict], bad: list[BadLine]) -> dict:
    total: Counter = Counter()
    for funnel in funnels:
        total.update(funnel)
    considered = sum(total[f] for f in FATES[1:])
    return {
        "pairs_in": total["pairs_in"] + len(bad),
        "bad_lines": len(bad),
        "pairs_processed": total["pairs_in"],
        "summary_tokens": total["summary_tokens"],
        "tokens_considered": considered,
        "no_score": total["no-score"],
        "above_threshold": total["above-threshold"],
        "removed_by_lemma": total["lemma"],
        "removed_by_synonym_antonym": total["synonym-antonym"],
        "removed_by_glove": total["glove"],
        "removed_by_contextual": total["contextual"],
        "kept": total["kept"],
        "pairs_with_target": total["pairs_with_target"],
    }


def run_candidates(
    *,
    input_path: Path,
    output_path: Path,
    settings: Settings,
    shard_size: int = 50,
    runner: Runner = local_runner,
    progress: bool = True,
) -> dict:
    """Run the pipeline over a pairs file; write records to ``output_path`` and return the report
    (also written to ``<output>.funnel.json``). Finished shards in ``<output>.work/`` are reused."""
    from tqdm import tqdm

    if shard_size < 1:
        raise ValueError(f"shard size must be at least 1, got {shard_size}")
    input_path, output_path = Path(input_path), Path(output_path)
    pairs, bad = read_pairs(path=input_path)
    work = output_path.with_name(output_path.name + ".work")
    manifest = {
        "pipeline_version": PIPELINE_VERSION,
        "input_sha256": _sha256(input_path),
        "settings": settings.to_json(),
        "shard_size": shard_size,
    }
    _prepare_work_dir(work, manifest)
    shards = [(n, pairs[s : s + shard_size]) for n, s in enumerate(range(0, len(pairs), shard_size))]
    done = {n for n, _ in shards if (work / f"shard-{n:05d}.funnel.json").exists()}
    todo = [shard for shard in shards if shard[0] not in done]
    with tqdm(
        total=len(pairs),
        initial=sum(len(p) for n, p in shards if n in done),
        unit="pair",
        disable=not progress,
    ) as bar:
        for number, result in runner(todo, settings):
            lines = "".join(_dumps(r) + "\n" for r in result["records"])
            _write_atomic(work / f"shard-{number:05d}.jsonl", lines)
            _write_atomic(
                work / f"shard-{number:05d}.funnel.json", json.dumps(result["funnel"], sort_keys=True)
            )
            bar.update(len(shards[number][1]))
    funnels = []
    tmp = output_path.with_name(output_path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        for number, _ in shards:
            out.write((work / f"shard-{number:05d}.jsonl").read_text(encoding="utf-8"))
            funnels.append(json.loads((work / f"shard-{number:05d}.funnel.json").read_text(encoding="utf-8")))
    tmp.replace(output_path)
    report = {
        "input": str(input_path),
        "input_sha256": manifest["input_sha256"],
        "output_sha256": _sha256(output_path),
        "pipeline_version": PIPELINE_VERSION,
        "settings": settings.to_json(),
        "funnel": _total_funnel(funnels, bad),
        "bad_lines": [{"line": b.line, "message": b.message} for b in bad],
    }
    _write_atomic(output_path.with_name(output_path.name + ".funnel.json"), json.dumps(report, indent=1))
    return report
