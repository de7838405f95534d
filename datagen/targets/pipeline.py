"""Candidate target words (§3.2-3.4): the stages of one shard, and each summary token's fate.

1. ``select_pairs``: spaCy on summaries and documents; score each summary token of the subtask's
   parts of speech (imperceptibility < 0.35 for Subtask 1, sense depth < 6 for Subtask 2); then the
   lemma, synonym/antonym and GloVe filters. CPU-bound.
2. ``finish_states``: the contextual-similarity filter (encoder, may run on a GPU queue), then one
   record per surviving target. Every summary token ends with one *fate*; the funnel counts them.

Shards, resume and output files are in ``datagen.targets.shards`` (``run_candidates``).
"""

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace

from datagen.nlp import Analysis, Token, analyse
from datagen.targets import filters
from datagen.targets.config import Settings
from datagen.targets.resources import Resources, load_resources
from datagen.xsum import Pair

PIPELINE_VERSION = 4
SUBTASK_POS = {1: frozenset({"NOUN", "VERB", "ADJ", "ADV"}), 2: frozenset({"NOUN", "VERB"})}
RESCUED_POS = frozenset({"ADJ", "PROPN"})
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


@dataclass
class PairState:
    """One pair between the stages: its analyses, each summary token's fate, and target scores."""

    pair: Pair
    summary: Analysis
    passage: Analysis
    fates: dict[int, str]
    scores: dict[int, dict]
    rescued: list[int] = field(default_factory=list)  # tokens let through by the ADJ/PROPN rule

    def to_json(self) -> dict:
        return {
            "pair": asdict(self.pair),
            "summary": self.summary.to_json(),
            "passage": self.passage.to_json(),
            "fates": [[k, v] for k, v in sorted(self.fates.items())],
            "scores": [[k, v] for k, v in sorted(self.scores.items())],
            "rescued": list(self.rescued),
        }

    @classmethod
    def from_json(cls, data: dict) -> "PairState":
        return cls(
            pair=Pair(**data["pair"]),
            summary=Analysis.from_json(data["summary"]),
            passage=Analysis.from_json(data["passage"]),
            fates={int(k): v for k, v in data["fates"]},
            scores={int(k): v for k, v in data["scores"]},
            rescued=list(data.get("rescued", [])),
        )


def rescued_pos(*, token: Token, subtask: int, wordnet) -> str | None:
    """The POS an ADJ/PROPN token is let through as, or None.

    Rule: spaCy's ADJ/PROPN is overridden only for a word written in lower case (a capitalised PROPN
    is a name) whose lower-cased form WordNet knows as a noun or verb (noun first, as in WordNet's
    own ordering of a word's readings); an ADJ is kept as ADJ in Subtask 1, which takes adjectives."""
    if token.pos not in RESCUED_POS or not token.text.islower():
        return None
    if token.pos == "ADJ" and subtask == 1:
        return None
    word = token.lower.replace(" ", "_")
    for pos, wn_pos in (("NOUN", "n"), ("VERB", "v")):
        if wordnet.synsets(word, pos=wn_pos) or (wordnet.morphy(word, wn_pos) is not None):
            return pos
    return None


def _imperceptibility(state: PairState, indices: list[int], settings: Settings, res: Resources) -> None:
    tokens = state.summary.tokens
    values = res.imperceptibility.score([tokens[i].lemma.lower() for i in indices])
    missing = [i for i, v in zip(indices, values, strict=True) if v is None]
    fallback = dict(zip(missing, res.imperceptibility.score([tokens[i].lower for i in missing]), strict=True))
    for index, value in zip(indices, values, strict=True):
        value = value if value is not None else fallback[index]
        if value is None:
            state.fates[index] = "no-score"
        elif value >= settings.imperceptibility_max:
            state.fates[index] = "above-threshold"
        else:
            state.scores[index] = {"imperceptibility": round(float(value), 6)}


def score_tokens(state: PairState, indices: list[int], settings: Settings, res: Resources) -> None:
    if settings.subtask == 1:
        _imperceptibility(state, indices, settings, res)
        return
    senses = res.senses.score(summary=state.summary, passage=state.passage, indices=indices)
    for index in indices:
        sense = senses[index]
        if sense is None:
            state.fates[index] = "no-score"
        elif sense.depth >= settings.depth_max:
            state.fates[index] = "above-threshold"
        else:
            state.scores[index] = {"depth": sense.depth, "synset": sense.synset, "lesk_score": sense.score}


def _chosen_senses(state: PairState, settings: Settings, res: Resources) -> dict[int, str | None]:
    if settings.synonym_scope != "sense":
        return {}
    if settings.subtask == 2:
        return {i: score["synset"] for i, score in state.scores.items()}
    senses = res.senses.score(
        summary=state.summary, passage=state.passage, indices=sorted(state.scores), target_pos=None
    )
    return {i: (s.synset if s is not None else None) for i, s in senses.items()}


def static_filters(state: PairState, settings: Settings, res: Resources) -> None:
    index = filters.passage_index(state.passage)
    chosen = _chosen_senses(state, settings, res)
    glove_passage = None
    for i in sorted(state.scores):
        token = state.summary.tokens[i]
        if filters.lemma_match(token=token, index=index):
            state.fates[i] = "lemma"
        elif filters.synonym_antonym_match(
            wordnet=res.wordnet, token=token, index=index, synset=chosen.get(i)
        ):
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


def _target_indices(state: PairState, wanted: Sequence[int], settings: Settings, res: Resources) -> list[int]:
    """The wanted tokens of the subtask's POS (after the ADJ/PROPN rule); the rest get their fate."""
    indices = []
    tokens = list(state.summary.tokens)
    for i in wanted:
        if tokens[i].pos not in SUBTASK_POS[settings.subtask] and settings.pos_rescue:
            pos = rescued_pos(token=tokens[i], subtask=settings.subtask, wordnet=res.wordnet)
            if pos is not None:
                tokens[i] = replace(tokens[i], pos=pos)
                state.rescued.append(i)
        if tokens[i].pos in SUBTASK_POS[settings.subtask]:
            indices.append(i)
        else:
            state.fates[i] = "not-target-pos"
    if tokens != list(state.summary.tokens):
        state.summary = replace(state.summary, tokens=tuple(tokens))
    return indices


def analyse_pairs(*, pairs: Sequence[Pair], nlp) -> tuple[list[Analysis], list[Analysis]]:
    """spaCy's analyses of the pairs' summaries and documents."""
    return analyse(nlp=nlp, texts=[p.summary for p in pairs]), analyse(
        nlp=nlp, texts=[p.document for p in pairs]
    )


def select_pairs(
    *,
    pairs: Sequence[Pair],
    settings: Settings,
    res: Resources,
    only: dict[str, tuple[int, int]] | None = None,
    analyses: tuple[Sequence[Analysis], Sequence[Analysis]] | None = None,
) -> list[PairState]:
    """Stage 1 for pairs; ``only`` (pair id -> character span) scores only the tokens in that span;
    ``analyses`` (summaries, passages) reuses spaCy's analyses of the pairs."""
    if analyses is None:
        analyses = analyse_pairs(pairs=pairs, nlp=res.nlp)
    summaries, passages = analyses
    states = []
    for pair, summary, passage in zip(pairs, summaries, passages, strict=True):
        state = PairState(pair=pair, summary=summary, passage=passage, fates={}, scores={})
        wanted = range(len(summary.tokens)) if only is None else tokens_in_span(summary, only[pair.id])
        indices = _target_indices(state, wanted, settings, res)
        if indices:
            score_tokens(state, indices, settings, res)
            static_filters(state, settings, res)
        states.append(state)
    return states


def contextual_filter(state: PairState, settings: Settings, res: Resources) -> None:
    import numpy as np

    summary_words = [t.text for t in state.summary.tokens]
    passage_sentences = [[t.text for t in sent] for sent in state.passage.sentences()]
    vectors = res.encoder.embed(sentences=[summary_words, *passage_sentences])
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
        funnel["pos_rescued"] += len(state.rescued)
        records.extend(record_for(state, i, settings) for i in sorted(state.scores))
    return {"records": records, "funnel": dict(funnel)}


def run_shard(*, pairs: Sequence[Pair], settings: Settings, res: Resources) -> dict:
    """Both stages in this process: ``{"records": [...], "funnel": {...}}``."""
    states = select_pairs(pairs=pairs, settings=settings, res=res)
    return finish_states(states=states, settings=settings, res=res)


Runner = Callable[[list[tuple[int, list[Pair]]], Settings], Iterator[tuple[int, dict]]]


def local_runner(shards: list[tuple[int, list[Pair]]], settings: Settings) -> Iterator[tuple[int, dict]]:
    res = load_resources(settings=settings)
    for number, pairs in shards:
        yield number, run_shard(pairs=pairs, settings=settings, res=res)
