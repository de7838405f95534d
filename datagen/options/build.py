"""Option generation, the pure part (task paper §3.5): folds, the readers' pool, filters, selection, checks.

A candidate question (one per target word, from ``python -m datagen candidates``) becomes a ReCAM
question: the top-10 words of each of the three readers form a pool of 30 tokens; word types too close
to the gold word (GloVe cosine > 0.85), its WordNet synonyms (all senses), its derived forms
(``economy``/``economic``) and the gold itself are dropped; the 4 most frequent remaining types plus
the gold give the 5 options, the gold at a seeded position. Every written question passes
:func:`check_question`.

External resources (the WordNet reader, the word vectors) are parameters, so tests pass small ones.
"""

import json
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from lexicon.wordforms import is_derived_form, lemma_forms, synonyms
from recam.records import NUM_OPTIONS, PLACEHOLDER, Question, iter_jsonl

SIMILARITY_THRESHOLD = 0.85
NUM_DISTRACTORS = NUM_OPTIONS - 1
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


class Similarity(Protocol):
    """What the filter needs from word vectors (lexicon.vectors.WordVectors has it)."""

    def cosine(self, a: str, b: str) -> float | None: ...


@dataclass(frozen=True)
class Candidate:
    """One candidate question from the candidates stage: a summary with one target word removed."""

    id: int | str
    article: str
    question: str
    answer: str
    subtask: str = "1"
    scores: Mapping[str, float] = field(default_factory=dict, compare=False, hash=False)


def read_candidates(path: str | Path) -> list[Candidate]:
    """Read the candidates jsonl; raise ValueError naming ``file:line`` on a bad record."""
    path = Path(path)
    candidates: list[Candidate] = []
    seen: set[int | str] = set()
    with path.open(encoding="utf-8-sig") as handle:
        for where, record in iter_jsonl(handle, source=str(path)):
            candidate = _candidate_from_json(record, where=where, default_id=len(candidates))
            if candidate.id in seen:
                raise ValueError(f"{where}: duplicate id {candidate.id!r}")
            seen.add(candidate.id)
            candidates.append(candidate)
    if not candidates:
        raise ValueError(f"{path}: no candidate questions")
    return candidates


def read_recam_candidates(path: str | Path, *, subtask: str = "1") -> list[Candidate]:
    """Labelled ReCAM jsonl as candidates (``datagen options --from-recam``): each question keeps its id,
    article, question and gold (the answer); its options are dropped, so a generator can be run on the
    same held-out questions as ReCAM's own distractors. Raises ValueError naming ``file:line`` on a
    malformed record or a missing label."""
    from recam.records import read_questions

    questions = read_questions(path, require_labels=True)
    if not questions:
        raise ValueError(f"{path}: no questions")
    return [
        Candidate(id=q.id, article=q.article, question=q.question, answer=normal(q.answer), subtask=subtask)
        for q in questions
    ]


def _candidate_from_json(record: object, *, where: str, default_id: int) -> Candidate:
    if not isinstance(record, dict):
        raise ValueError(f"{where}: expected a JSON object, got {type(record).__name__}")
    for key in ("article", "question", "answer"):
        if not isinstance(record.get(key), str) or not record[key].strip():
            raise ValueError(f"{where}: field {key!r} must be a non-empty string")
    if record["question"].count(PLACEHOLDER) != 1:
        raise ValueError(f"{where}: the question must contain {PLACEHOLDER} exactly once")
    qid = record.get("id", default_id)
    if isinstance(qid, bool) or not isinstance(qid, int | str) or (isinstance(qid, int) and qid < 0):
        raise ValueError(f"{where}: 'id' must be a non-negative integer or a string, got {qid!r}")
    scores = record.get("scores") or {}
    if not isinstance(scores, dict):
        raise ValueError(f"{where}: 'scores' must be an object, got {type(scores).__name__}")
    return Candidate(
        id=qid,
        article=record["article"],
        question=record["question"],
        answer=normal(record["answer"]),
        subtask=str(record.get("subtask", "1")),
        scores=scores,
    )


def assign_folds(*, candidates: Sequence[Candidate], folds: int, seed: int) -> dict[int | str, int]:
    """Map each candidate id to a fold 0..folds-1; questions on the same article share a fold.

    Keeping an article's questions together stops a reader from seeing the passage it is tested on.
    """
    if folds < 2:
        raise ValueError(f"folds must be at least 2, got {folds}")
    articles = sorted({c.article for c in candidates})
    if len(articles) < folds:
        raise ValueError(f"{len(articles)} distinct article(s) cannot fill {folds} folds")
    random.Random(seed).shuffle(articles)
    fold_of_article = {article: i % folds for i, article in enumerate(articles)}
    return {c.id: fold_of_article[c.article] for c in candidates}


def normal(word: str) -> str:
    """The form under which words are compared and written: lower-cased, single spaces."""
    return " ".join(word.lower().split())


def words(text: str) -> list[str]:
    """Lower-cased word tokens (letters, inner apostrophes and hyphens)."""
    return [w.lower() for w in _WORD.findall(text)]


def exclusion_reason(*, word: str, gold: str, wordnet, vectors: Similarity | None) -> str | None:
    """Why ``word`` may not be an option next to ``gold`` ("gold", "synonym", "form", "similar"), or None.

    The first reason that applies, in that order: another inflection of the gold, a WordNet synonym,
    a derived form (:func:`lexicon.wordforms.is_derived_form`), a GloVe neighbour.
    """
    if lemma_forms(word, wordnet=wordnet) & lemma_forms(gold, wordnet=wordnet):
        return "gold"
    if lemma_forms(word, wordnet=wordnet) & synonyms(gold, wordnet=wordnet):
        return "synonym"
    if is_derived_form(word=word, gold=gold, wordnet=wordnet):
        return "form"
    if vectors is not None:
        cosine = vectors.cosine(word, gold)
        if cosine is not None and cosine > SIMILARITY_THRESHOLD:
            return "similar"
    return None


def select_distractors(
    *,
    pool: Iterable[Sequence[str]],
    gold: str,
    wordnet,
    vectors: Similarity | None,
    count: int = NUM_DISTRACTORS,
) -> list[str]:
    """The ``count`` most frequent admissible word types in the readers' pool.

    ``pool`` holds one ranked list per reader (best first; the paper uses each reader's top 10).
    Ties are broken by the best rank a type reached in any reader, then alphabetically, so the
    result does not depend on the order of the readers. Fewer than ``count`` types may come back.
    """
    frequency: Counter[str] = Counter()
    best_rank: dict[str, int] = {}
    for ranking in pool:
        for rank, word in enumerate(ranking, start=1):
            frequency[word] += 1
            best_rank[word] = min(best_rank.get(word, rank), rank)
    admissible = [
        w for w in frequency if exclusion_reason(word=w, gold=gold, wordnet=wordnet, vectors=vectors) is None
    ]
    admissible.sort(key=lambda w: (-frequency[w], best_rank[w], w))
    return admissible[:count]


def gold_position(*, seed: int, question_id: int | str) -> int:
    """The gold option's index, drawn from ``seed`` and the question id alone (order-independent)."""
    return random.Random(f"recam-options:{seed}:{question_id}").randrange(NUM_OPTIONS)


def build_question(
    *, candidate: Candidate, question_id: int, distractors: Sequence[str], seed: int
) -> Question:
    """Place the gold among the distractors at its seeded position."""
    if len(distractors) != NUM_DISTRACTORS:
        raise ValueError(f"question {candidate.id!r}: {len(distractors)} distractors, need {NUM_DISTRACTORS}")
    label = gold_position(seed=seed, question_id=candidate.id)
    options = list(distractors)
    options.insert(label, candidate.answer)
    return Question(
        id=question_id,
        article=candidate.article,
        question=candidate.question,
        options=tuple(options),
        label=label,
    )


def check_question(*, question: Question, gold: str, wordnet) -> list[str]:
    """Problems that forbid writing ``question`` (empty list: it may be written).

    The enforced checks: 5 distinct options; the gold among them exactly once and at ``label``; no
    other option equal to (lemma-insensitive), a WordNet synonym of or a derived form of the gold; the
    gold word absent from the article, lemma-insensitive (§3.4).
    """
    problems: list[str] = []
    options = [o.strip().lower() for o in question.options]
    if len(options) != NUM_OPTIONS or len(set(options)) != len(options):
        problems.append("options-not-distinct")
    gold_key = gold.strip().lower()
    if options.count(gold_key) != 1:
        problems.append("gold-not-once")
    elif question.label is None or options[question.label] != gold_key:
        problems.append("label-not-gold")
    gold_forms = lemma_forms(gold_key, wordnet=wordnet)
    gold_synonyms = synonyms(gold_key, wordnet=wordnet)
    for option in options:
        if option == gold_key:
            continue
        forms = lemma_forms(option, wordnet=wordnet)
        if forms & gold_forms:
            problems.append("option-equals-gold")
        elif forms & gold_synonyms:
            problems.append("option-synonym-of-gold")
        elif is_derived_form(word=option, gold=gold_key, wordnet=wordnet):
            problems.append("option-form-of-gold")
    if gold_in_article(gold=gold_key, article=question.article, wordnet=wordnet):
        problems.append("gold-in-article")
    return problems


def gold_in_article(*, gold: str, article: str, wordnet) -> bool:
    """Whether the gold word, or a word sharing a WordNet base form with it, occurs in the article."""
    gold_forms = lemma_forms(gold, wordnet=wordnet)
    gold_words = words(gold)
    if len(gold_words) > 1:  # a multi-word answer: look for the phrase itself
        return " ".join(gold_words) in " ".join(words(article))
    return any(lemma_forms(w, wordnet=wordnet) & gold_forms for w in set(words(article)))


def write_recam(*, path: str | Path, questions: Sequence[Question], sources: Sequence[Candidate]) -> None:
    """ReCAM jsonl (what recam.records.read_questions reads) plus the candidate's id and subtask.

    The two extra fields are ignored by ReCAM readers; they trace a question back to its XSum pair.
    """
    with Path(path).open("w", encoding="utf-8", newline="\n") as handle:
        for question, source in zip(questions, sources, strict=True):
            record = {**question.to_json(), "source_id": source.id, "subtask": source.subtask}
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def output_ids(candidates: Sequence[Candidate]) -> Callable[[Candidate], int]:
    """ReCAM ids are non-negative integers: keep integer candidate ids, else number in file order."""
    if all(isinstance(c.id, int) for c in candidates):
        return lambda c: int(c.id)
    position = {c.id: i for i, c in enumerate(candidates)}
    return lambda c: position[c.id]


@dataclass(frozen=True)
class BuildResult:
    questions: list[Question]
    sources: list[Candidate]  # the candidate each question came from, in the same order
    drops: Counter  # reason -> number of questions dropped for it
    excluded: Counter  # reason -> number of pool word types excluded for it


def build_dataset(
    *,
    candidates: Sequence[Candidate],
    pools: Mapping[int | str, Sequence[Sequence[str]]],
    wordnet,
    vectors: Similarity | None,
    seed: int,
) -> BuildResult:
    """Turn candidates and their readers' pools (id -> one top-10 list per reader) into checked questions.

    A question that cannot get 4 distractors or fails :func:`check_question` is dropped and counted.
    """
    new_id = output_ids(candidates)
    questions: list[Question] = []
    sources: list[Candidate] = []
    drops: Counter[str] = Counter()
    excluded: Counter[str] = Counter()
    for candidate in candidates:
        pool = pools.get(candidate.id)
        if pool is None:
            drops["no-rankings"] += 1
            continue
        for word in {w for ranking in pool for w in ranking}:
            reason = exclusion_reason(word=word, gold=candidate.answer, wordnet=wordnet, vectors=vectors)
            if reason:
                excluded[reason] += 1
        distractors = select_distractors(pool=pool, gold=candidate.answer, wordnet=wordnet, vectors=vectors)
        if len(distractors) < NUM_DISTRACTORS:
            drops["too-few-distractors"] += 1
            continue
        question = build_question(
            candidate=candidate, question_id=new_id(candidate), distractors=distractors, seed=seed
        )
        problems = check_question(question=question, gold=candidate.answer, wordnet=wordnet)
        if problems:
            drops.update(problems[:1])  # counted once, under its first problem
            continue
        questions.append(question)
        sources.append(candidate)
    return BuildResult(questions=questions, sources=sources, drops=drops, excluded=excluded)
