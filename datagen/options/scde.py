"""SCDE-style passages from XSum articles: k sentences removed, shared candidates with distractors.

The rule (stated in docs/guides/dataset-builders.md before any measurement):

1. **Passage.** The article's first ``max_sentences`` sentences (spaCy, :mod:`datagen.nlp`); it needs at
   least ``2 * blanks + 1`` of them.
2. **Blanks.** A sentence may be removed if it is not the first, has ``min_words``..``max_words`` words
   and ends with ``.``, ``!`` or ``?``. ``blanks`` (k) of them are drawn uniformly (seeded by the run's
   seed and the pair id), no two adjacent; fewer possible: the passage is dropped.
3. **Draws.** ``draws`` sentences (same length and ending rule, never an article's first sentence) are
   drawn uniformly from the *other* articles of the run (seeded), as SCDE's "randomly sampled
   distractors" ablation samples them.
4. **Coherence at no blank.** The LM of the SCDE baseline scores every (blank, candidate) pair
   (:func:`baselines.cloze_lm.scde_scores`, PMI: the joint log-probability of up to 3 sentences before
   the blank, the candidate and up to 3 after it, minus the candidate's own). A draw *fits* blank b if
   it scores within ``margin`` nats of b's answer: ``s(b, answer_b) - s(b, draw) < margin``. A draw is
   kept only if it fits no blank. Of the kept draws, the ``distractors`` closest to fitting (smallest
   ``min_b [s(b, answer_b) - s(b, draw)]``, ties by draw order) become the distractors; fewer kept
   draws: the passage is dropped.
5. The candidates (the answers and the distractors) are shuffled (seeded); every record is validated by
   :func:`recam.formats.scde.scde_from_json`.
"""

import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from datagen.nlp import Analysis
from datagen.xsum import Pair
from recam.formats.scde import ScdePassage

VERSION = "scde-xsum-1"
ENDING = re.compile(r"[.!?][\"')\u2019\u201d]*$")


@dataclass(frozen=True)
class ScdeSettings:
    blanks: int = 3  # k sentences removed per passage
    distractors: int = 2  # distractor sentences per passage
    draws: int = 8  # sentences drawn from other articles per passage
    margin: float = 1.0  # nats: a draw within this of a blank's answer fits that blank
    max_sentences: int = 10
    min_words: int = 6
    max_words: int = 40
    context_sentences: int = 3
    seed: int = 13

    def to_json(self) -> dict:
        return dict(self.__dict__)


# (sentences with "<k>" blanks, candidates) -> the (blanks, candidates) score matrix
PairScorer = Callable[[Sequence[str], Sequence[str]], np.ndarray]


@dataclass
class Funnel:
    drops: Counter = field(default_factory=Counter)
    draws_kept: int = 0
    draws_scored: int = 0


def sentences_of(analysis: Analysis) -> list[str]:
    return [analysis.text[s[0].start : s[-1].end] for s in analysis.sentences() if s]


def removable(sentence: str, *, settings: ScdeSettings) -> bool:
    words = len(sentence.split())
    return settings.min_words <= words <= settings.max_words and bool(ENDING.search(sentence))


def blank_positions(sentences: Sequence[str], *, key: str, settings: ScdeSettings) -> list[int] | None:
    """The removed sentences' positions (rule 2), sorted; None when k non-adjacent ones are not there."""
    allowed = [i for i in range(1, len(sentences)) if removable(sentences[i], settings=settings)]
    random.Random(f"scde-blanks:{settings.seed}:{key}").shuffle(allowed)
    chosen: list[int] = []
    for i in allowed:
        if all(abs(i - j) > 1 for j in chosen):
            chosen.append(i)
        if len(chosen) == settings.blanks:
            return sorted(chosen)
    return None


def choose_distractors(
    matrix: np.ndarray, *, blanks: int, settings: ScdeSettings
) -> tuple[list[int], list[float]]:
    """Rule 4 on a (blanks, answers + draws) score matrix whose first ``blanks`` columns are the answers:
    the chosen draws (indexes among the draws) and every draw's smallest gap to an answer."""
    answers = np.diag(matrix[:, :blanks])  # Shape: (blanks,)
    gaps = answers[:, None] - matrix[:, blanks:]  # Shape: (blanks, draws)
    closest = gaps.min(axis=0)
    kept = [d for d in range(gaps.shape[1]) if closest[d] >= settings.margin]
    kept.sort(key=lambda d: (closest[d], d))
    return kept[: settings.distractors], [float(v) for v in closest]


def build_scde(
    *,
    pairs: Sequence[Pair],
    nlp,
    score: PairScorer,
    settings: ScdeSettings,
    progress: Callable[[Iterable], Iterable] = lambda items: items,
) -> tuple[list[ScdePassage], list[dict], Funnel]:
    """SCDE passages from ``pairs`` (their documents), with each passage's sources and the funnel."""
    from datagen.nlp import analyse

    texts = [" ".join(p.document.split()) for p in pairs]
    documents = [sentences_of(a) for a in analyse(nlp=nlp, texts=texts)]
    pool = [
        (owner, s) for owner, sentences in enumerate(documents)
        for s in sentences[1:] if removable(s, settings=settings)
    ]  # fmt: skip
    funnel = Funnel()
    passages: list[ScdePassage] = []
    sources: list[dict] = []
    for owner, pair in progress(list(enumerate(pairs))):
        sentences = documents[owner][: settings.max_sentences]
        if len(sentences) < 2 * settings.blanks + 1:
            funnel.drops["too-few-sentences"] += 1
            continue
        positions = blank_positions(sentences, key=pair.id, settings=settings)
        if positions is None:
            funnel.drops["too-few-removable-sentences"] += 1
            continue
        own = set(sentences)
        others = [s for o, s in pool if o != owner and s not in own]
        if len(others) < settings.draws:
            funnel.drops["too-few-draws"] += 1
            continue
        draws = random.Random(f"scde-draws:{settings.seed}:{pair.id}").sample(others, settings.draws)
        answers = [sentences[i] for i in positions]
        marked = list(sentences)
        for number, i in enumerate(positions, start=1):
            marked[i] = f"<{number}>"
        matrix = score(marked, [*answers, *draws])
        chosen, closest = choose_distractors(matrix, blanks=len(answers), settings=settings)
        funnel.draws_scored += len(draws)
        funnel.draws_kept += sum(v >= settings.margin for v in closest)
        if len(chosen) < settings.distractors:
            funnel.drops["too-few-distractors"] += 1
            continue
        candidates = [*answers, *(draws[d] for d in chosen)]
        order = list(range(len(candidates)))
        random.Random(f"scde-order:{settings.seed}:{pair.id}").shuffle(order)
        shuffled = [candidates[i] for i in order]
        passage = ScdePassage(
            id=len(passages), sentences=tuple(marked), candidates=tuple(shuffled),
            answers=tuple(order.index(b) for b in range(len(answers))),
        )  # fmt: skip
        passages.append(passage)
        sources.append({
            "id": passage.id, "source_id": pair.id, "source_line": pair.line,
            "distractor_gaps": [round(closest[d], 4) for d in chosen],
            "draw_gaps": [round(v, 4) for v in closest],
        })  # fmt: skip
    return passages, sources, funnel


def lm_pair_scorer(lm, *, settings: ScdeSettings, batch_size: int = 8) -> PairScorer:
    """The SCDE baseline's PMI scores (:func:`baselines.cloze_lm.scde_scores`) as a pair scorer."""
    from baselines.cloze_lm import scde_scores

    def score(sentences: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        passage = ScdePassage(id=0, sentences=tuple(sentences), candidates=tuple(candidates))
        return scde_scores(
            lm, passage, context_sentences=settings.context_sentences, scoring="pmi", batch_size=batch_size
        )

    return score
