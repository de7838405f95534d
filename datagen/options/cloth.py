"""CLOTH-style passages from XSum articles: several word blanks per passage, 4 options per blank.

The rule (stated in docs/guides/dataset-builders.md before any measurement):

1. **Passage.** The article's first sentences (spaCy, :mod:`datagen.nlp`) up to ``max_words`` words;
   the first sentence is never blanked (it is the passage's opening context).
2. **Target words.** A token is a candidate blank if it is a content word (noun, verb, adjective,
   adverb), lower-case letters only, 3+ letters, not the first word of its sentence, the only token of
   its lemma in the passage (the answer is not copied elsewhere), and abstract on the project's
   imperceptibility scale (``imperceptibility`` <= ``max_imperceptibility``, 0.35 as
   :class:`datagen.targets.config.Settings`; MRC's rating where it has one, else the calibrated
   regressor). Candidates are tried most abstract first (ties: reading order).
3. **Spacing.** At most one blank per sentence and at least ``min_gap`` tokens between two blanks; at
   most ``blanks`` blanks (k) per passage and at most ``tries`` candidates tried; a passage with fewer
   than ``min_blanks`` blanks is dropped (counted in the funnel).
4. **Options of one blank** (the options machinery of ReCAM, called per blank): the pool is the run's
   target vocabulary (every candidate target word of every passage) put in the gold's part of speech
   and inflection (:func:`datagen.options.inflection.agree`), plus the LM's own open-vocabulary words
   (:func:`datagen.options.lm_words.score_blank`); a form must be **attested** by wordfreq
   (:func:`datagen.options.prior.word_logfreq` above its floor), admissible next to the gold
   (:func:`datagen.options.build.exclusion_reason`: no inflection, synonym or derived form of it) and
   under the run's reuse cap. The LM scores the blank's sentence with the passage before it
   ("article") and alone ("options-only"); :func:`datagen.options.gate.gate` picks 3 distractors (the
   article moves the LM towards the gold more than towards each distractor; the gold is never the
   options-only favourite). A blank the gate cannot fill is not made; the next candidate is tried.
5. The gold's position among the 4 options is seeded by the run's seed, the pair id and the blank's
   character offset; every record is validated by :func:`recam.formats.cloth.cloth_from_json`.
"""

import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from datagen.nlp import CONTENT_POS, Analysis, Token
from datagen.options.build import exclusion_reason
from datagen.options.gate import MIN_GOLD_RANK, gate, rank_draw
from datagen.options.inflection import ReuseCounter, agree, gold_tag, inflect_like, reuse_cap
from datagen.options.lm_words import TOP, WINDOW, BlankScores
from datagen.options.prior import MIN_FREQUENCY, word_logfreq
from datagen.options.prior import NAME as PRIOR
from datagen.xsum import Pair
from recam.formats.cloth import BLANK, NUM_OPTIONS, ClothPassage
from recam.records import PLACEHOLDER

VERSION = "cloth-xsum-1"
DISTRACTORS = NUM_OPTIONS - 1


@dataclass(frozen=True)
class ClothSettings:
    blanks: int = 5  # k: at most this many blanks per passage
    min_blanks: int = 3  # fewer: the passage is dropped
    min_gap: int = 8  # tokens between two blanks, at least
    max_words: int = 220  # the passage: first sentences up to this many words
    max_imperceptibility: float = 0.35
    tries: int = 12  # candidate blanks tried per passage, at most
    article_tokens: int = 400
    min_rank: int = MIN_GOLD_RANK
    seed: int = 13

    def to_json(self) -> dict:
        return dict(self.__dict__)


# (article text before the sentence, sentence with @placeholder, words, must, open filter) -> scores
BlankScorer = Callable[..., BlankScores]
WordScale = Callable[[Sequence[str]], list[float | None]]


@dataclass
class Funnel:
    drops: Counter = field(default_factory=Counter)  # passages
    blanks: Counter = field(default_factory=Counter)  # candidate blanks tried and not made


def attested(word: str) -> bool:
    """Whether wordfreq lists the word in English (its log frequency is above the prior's floor)."""
    return word_logfreq(word) > math.log(MIN_FREQUENCY) + 1e-9


def passage_of(analysis: Analysis, *, max_words: int) -> tuple[str, list[Token]]:
    """The passage (the first sentences up to ``max_words`` words) and its tokens."""
    kept: list[Token] = []
    for sentence in analysis.sentences():
        if kept and len(kept) + len(sentence) > max_words:
            break
        kept.extend(sentence)
    if not kept:
        return "", []
    return analysis.text[: kept[-1].end], kept


def candidate_tokens(tokens: Sequence[Token]) -> list[int]:
    """Indexes of the tokens that may be blanked (rule 2, without the imperceptibility threshold)."""
    lemmas = Counter(t.lemma.lower() for t in tokens)
    first_of_sentence = {t.sent: i for i, t in reversed(list(enumerate(tokens)))}
    return [
        i for i, t in enumerate(tokens)
        if t.sent > tokens[0].sent and t.pos in CONTENT_POS and t.text.isascii() and t.text.isalpha()
        and t.text.islower() and len(t.text) >= 3 and first_of_sentence[t.sent] != i
        and lemmas[t.lemma.lower()] == 1
    ]  # fmt: skip


def targets(
    tokens: Sequence[Token], *, scale: WordScale, max_imperceptibility: float
) -> list[tuple[int, float]]:
    """(token index, imperceptibility) of the candidate blanks, most abstract first, then reading order."""
    indexes = candidate_tokens(tokens)
    scores = scale([tokens[i].text for i in indexes]) if indexes else []
    found = [
        (i, s) for i, s in zip(indexes, scores, strict=True) if s is not None and s <= max_imperceptibility
    ]
    return sorted(found, key=lambda pair: (pair[1], pair[0]))


def sentence_with_blank(text: str, tokens: Sequence[Token], index: int) -> tuple[str, str]:
    """(the passage before the token's sentence, the sentence with ``@placeholder`` for the token)."""
    token = tokens[index]
    same = [t for t in tokens if t.sent == token.sent]
    start, end = same[0].start, same[-1].end
    sentence = text[start : token.start] + PLACEHOLDER + text[token.end : end]
    return text[:start].strip(), sentence


@dataclass(frozen=True)
class Blank:
    index: int  # token index in the passage
    gold: str
    distractors: tuple[str, ...]
    why: dict


def make_blank(
    *,
    text: str,
    tokens: Sequence[Token],
    index: int,
    vocabulary: Iterable[str],
    nlp,
    wordnet,
    score: BlankScorer,
    reuse: ReuseCounter,
    settings: ClothSettings,
    question_id: str,
) -> tuple[Blank | None, str]:
    """One blank's gated options, or ``(None, reason)``."""
    gold = tokens[index].text
    before, sentence = sentence_with_blank(text, tokens, index)
    tag = gold_tag(nlp=nlp, question=sentence, answer=gold)
    if tag is None:
        return None, "no-tag"

    def admissible(word: str) -> bool:
        return (
            word != gold and attested(word) and reuse.allows(word)
            and exclusion_reason(word=word, gold=gold, wordnet=wordnet, vectors=None) is None
        )  # fmt: skip

    forms = [f for f in agree(words=vocabulary, tag=tag).values() if admissible(f)]
    if len(forms) < DISTRACTORS:
        return None, "too-few-forms"

    def open_filter(word: str) -> str | None:
        form = inflect_like(word=word, tag=tag)
        return form if form == word and admissible(word) else None

    scores = score(
        article=before, question=sentence, words=[gold, *forms], must=[gold], open_filter=open_filter
    )
    pool = [w for w in scores.article if w != gold and w in scores.options_only and admissible(w)]
    prior = {w: word_logfreq(w) for w in [gold, *pool]}
    picks, reason = gate(
        gold=gold, pool=pool, article=scores.article,
        options_only={"lm": scores.options_only, PRIOR: prior}, count=DISTRACTORS, min_rank=settings.min_rank,
        target_rank=rank_draw(seed=settings.seed, question_id=question_id, count=DISTRACTORS, low=settings.min_rank),
    )  # fmt: skip
    if picks is None:
        return None, reason
    why = {p.word: p.why for p in picks}
    return Blank(
        index=index, gold=gold, distractors=tuple(p.word for p in picks), why={"tag": tag, **why}
    ), "made"


def build_passage(
    *,
    pair: Pair,
    analysis: Analysis,
    passage_id: int,
    vocabulary: Sequence[str],
    nlp,
    wordnet,
    scale: WordScale,
    score: BlankScorer,
    reuse: ReuseCounter,
    settings: ClothSettings,
    funnel: Funnel,
) -> tuple[ClothPassage | None, dict]:
    """One passage with its blanks, or None (the reason counted in ``funnel.drops``)."""
    text, tokens = passage_of(analysis, max_words=settings.max_words)
    if BLANK.search(text):
        funnel.drops["underscore-in-text"] += 1
        return None, {}
    chosen: list[Blank] = []
    tried = 0
    for index, _imperceptibility in targets(
        tokens, scale=scale, max_imperceptibility=settings.max_imperceptibility
    ):
        if len(chosen) == settings.blanks or tried == settings.tries:
            break
        if any(
            tokens[b.index].sent == tokens[index].sent or abs(b.index - index) < settings.min_gap
            for b in chosen
        ):
            continue
        tried += 1
        blank, reason = make_blank(
            text=text, tokens=tokens, index=index, vocabulary=vocabulary, nlp=nlp, wordnet=wordnet,
            score=score, reuse=reuse, settings=settings, question_id=f"{pair.id}:{tokens[index].start}",
        )  # fmt: skip
        funnel.blanks[reason] += 1
        if blank is not None:
            chosen.append(blank)
    if len(chosen) < settings.min_blanks:
        funnel.drops["too-few-blanks"] += 1
        return None, {}
    chosen.sort(key=lambda b: b.index)
    pieces, options, answers, last = [], [], [], 0
    for blank in chosen:
        token = tokens[blank.index]
        pieces.extend([text[last : token.start], "_"])
        last = token.end
        label = random.Random(f"cloth:{settings.seed}:{pair.id}:{token.start}").randrange(NUM_OPTIONS)
        row = list(blank.distractors)
        row.insert(label, blank.gold)
        options.append(tuple(row))
        answers.append(label)
    pieces.append(text[last:])
    for blank in chosen:
        reuse.take(blank.distractors)
    passage = ClothPassage(
        id=passage_id, article="".join(pieces), options=tuple(options), answers=tuple(answers)
    )
    source = {"id": passage_id, "source_id": pair.id, "source_line": pair.line,
              "blanks": [{"gold": b.gold, "why": b.why} for b in chosen]}  # fmt: skip
    return passage, source


def run_vocabulary(analyses: Iterable[Analysis], *, scale: WordScale, settings: ClothSettings) -> list[str]:
    """The run's target vocabulary: every candidate target word of every passage, sorted."""
    words: set[str] = set()
    for analysis in analyses:
        _text, tokens = passage_of(analysis, max_words=settings.max_words)
        words.update(tokens[i].text for i, _s in targets(
            tokens, scale=scale, max_imperceptibility=settings.max_imperceptibility))  # fmt: skip
    return sorted(words)


def lm_blank_scorer(lm, *, settings: ClothSettings) -> BlankScorer:
    """The LM word ranker (:func:`datagen.options.lm_words.score_blank`) as a blank scorer."""
    from datagen.options.lm_words import score_blank

    def score(*, article: str, question: str, words, must, open_filter) -> BlankScores:
        return score_blank(
            lm, article=article, question=question, words=words, must=must, top=TOP,
            article_tokens=settings.article_tokens, open_top=TOP, open_filter=open_filter, window=WINDOW,
        )  # fmt: skip

    return score


def build_cloth(
    *,
    pairs: Sequence[Pair],
    nlp,
    wordnet,
    scale: WordScale,
    score: BlankScorer,
    settings: ClothSettings,
    progress: Callable[[Iterable], Iterable] = lambda items: items,
) -> tuple[list[ClothPassage], list[dict], Funnel]:
    """CLOTH passages from ``pairs`` (their documents), with each passage's sources and the funnel."""
    from datagen.nlp import analyse

    texts = [" ".join(p.document.split()) for p in pairs]
    analyses = analyse(nlp=nlp, texts=texts)
    vocabulary = run_vocabulary(analyses, scale=scale, settings=settings)
    reuse = ReuseCounter(cap=reuse_cap(len(pairs) * settings.blanks))
    funnel = Funnel()
    passages, sources = [], []
    for pair, analysis in progress(list(zip(pairs, analyses, strict=True))):
        passage, source = build_passage(
            pair=pair, analysis=analysis, passage_id=len(passages), vocabulary=vocabulary, nlp=nlp,
            wordnet=wordnet, scale=scale, score=score, reuse=reuse, settings=settings, funnel=funnel,
        )  # fmt: skip
        if passage is not None:
            passages.append(passage)
            sources.append(source)
    return passages, sources, funnel


def scale_of(ratings: Mapping[str, float]) -> WordScale:
    """A word scale from a word -> rating table (None for unrated words): MRC's ratings alone, say."""

    def scale(words: Sequence[str]) -> list[float | None]:
        return [ratings.get(w.lower()) for w in words]

    return scale
