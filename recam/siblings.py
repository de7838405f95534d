"""Sibling leaks: a question whose answer is written in another question on the same article.

ReCAM asks one question per summary. When a set holds two questions built on one article (two words of
one summary blanked, or two summaries of one passage), the text of one may give the other's answer
away: "Early @placeholder suggest ..." beside "Early results @placeholder ...". A set with such a pair
is not a test set, so the generator, the quality report, the console's load step and the validation
upload refuse it (:func:`check_no_sibling_leaks`).

Rule: questions are grouped by their article (whitespace-normalised text). For each labelled question
``a`` and each other question ``b`` of its group, ``a`` leaks if one of the *forms* of ``a``'s answer
occurs as a whole word (a whole phrase for a multi-word answer) in ``b``'s question text, case
ignored. The forms of a word are the word itself, its lemmas in lemminflect's dictionary (every part of
speech) and every inflection lemminflect gives for those lemmas: "results" leaks through "result",
"helped" through "helps". Unlabelled questions cannot leak (their answer is unknown) but their text
is searched. Pure: no Django, no model.
"""

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from recam.records import PLACEHOLDER, Question

WORD = re.compile(r"[a-z0-9]+(?:['\u2019][a-z]+)?")


@dataclass(frozen=True)
class SiblingLeak:
    question_id: int  # the question whose answer leaks
    sibling_id: int  # the question whose text holds it
    answer: str
    found: str  # the form found in the sibling's text

    def describe(self) -> str:
        return f"question {self.question_id}'s answer {self.answer!r} is in question {self.sibling_id} ({self.found!r})"


@lru_cache(maxsize=65536)
def word_forms(word: str) -> frozenset[str]:
    """``word``, its dictionary lemmas (any part of speech) and their inflections, lower case."""
    from lemminflect import getAllInflections, getAllLemmas

    word = word.lower()
    forms = {word}
    lemmas = {lemma for found in getAllLemmas(word).values() for lemma in found} | {word}
    for lemma in lemmas:
        forms.add(lemma.lower())
        for inflected in getAllInflections(lemma).values():
            forms.update(f.lower() for f in inflected)
    return frozenset(forms)


def answer_forms(answer: str) -> frozenset[str]:
    """The forms of an answer: one word's :func:`word_forms`; a phrase with its first or its last word
    inflected ("stepped down": "step down", "steps down"; "interest rates": "interest rate")."""
    words = WORD.findall(answer.lower())
    if not words:
        return frozenset()
    first = {" ".join([form, *words[1:]]) for form in word_forms(words[0])}
    last = {" ".join([*words[:-1], form]) for form in word_forms(words[-1])}
    return frozenset(first | last)


def _text_words(question: str) -> str:
    """The question's words, space-joined with spaces at both ends (the blank is not a word)."""
    return " " + " ".join(WORD.findall(question.replace(PLACEHOLDER, " ").lower())) + " "


def sibling_leaks(questions: Iterable[Question]) -> list[SiblingLeak]:
    """Every (question, sibling) pair of the rule above, in file order."""
    groups: dict[str, list[Question]] = defaultdict(list)
    for question in questions:
        groups[" ".join(question.article.split())].append(question)
    leaks = []
    for group in groups.values():
        if len(group) < 2:
            continue
        texts = {id(q): _text_words(q.question) for q in group}
        for question in group:
            if question.answer is None:
                continue
            forms = sorted(answer_forms(question.answer))
            for sibling in group:
                if sibling is question:
                    continue
                found = next((f for f in forms if f" {f} " in texts[id(sibling)]), None)
                if found is not None:
                    leaks.append(
                        SiblingLeak(
                            question_id=question.id,
                            sibling_id=sibling.id,
                            answer=question.answer,
                            found=found,
                        )
                    )
    return leaks


def shared_articles(questions: Sequence[Question]) -> list[list[int]]:
    """The ids of the questions that share an article, one list per article with two or more."""
    groups: dict[str, list[int]] = defaultdict(list)
    for question in questions:
        groups[" ".join(question.article.split())].append(question.id)
    return [ids for ids in groups.values() if len(ids) > 1]


def leak_message(leaks: Sequence[SiblingLeak], *, source: str = "", shown: int = 5) -> str:
    """One line naming the leaking ids (the first ``shown`` pairs) and how many there are."""
    where = f"{source}: " if source else ""
    pairs = "; ".join(leak.describe() for leak in leaks[:shown])
    more = f"; and {len(leaks) - shown} more" if len(leaks) > shown else ""
    return (
        f"{where}{len(leaks)} sibling leak(s): a question's answer is written in another question on the same "
        f"article ({pairs}{more}). Keep one question per article."
    )


def check_no_sibling_leaks(questions: Sequence[Question], *, source: str = "") -> None:
    """Raise ``ValueError`` naming the ids if any question's answer is in a sibling's text."""
    leaks = sibling_leaks(questions)
    if leaks:
        raise ValueError(leak_message(leaks, source=source))
