"""spaCy processing: tokens, coarse POS, lemmas and sentences (the paper used Stanza; see resources.md).

The pipeline is loaded once per process (``load_nlp`` caches by name); the parser and NER are
excluded and the rule-free sentence recogniser (``senter``) is enabled instead: it is several times
faster and all we need from parsing is sentence boundaries.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from lexicon import resources

CONTENT_POS = frozenset({"NOUN", "VERB", "ADJ", "ADV"})  # PROPN is not a content word here (§3.2)


@dataclass(frozen=True)
class Token:
    text: str
    lemma: str
    pos: str  # Universal POS from spaCy (NOUN, VERB, ADJ, ADV, PROPN, ...)
    sent: int  # sentence number within its text, from 0
    start: int  # character offsets into the analysed text
    end: int

    @property
    def lower(self) -> str:
        return self.text.lower()

    @property
    def is_content(self) -> bool:
        return self.pos in CONTENT_POS


@dataclass(frozen=True)
class Analysis:
    text: str
    tokens: tuple[Token, ...]

    def sentences(self) -> list[list[Token]]:
        """The tokens grouped by sentence, in order (whitespace tokens dropped)."""
        groups: dict[int, list[Token]] = {}
        for token in self.tokens:
            groups.setdefault(token.sent, []).append(token)
        return [groups[key] for key in sorted(groups)]

    def to_json(self) -> list:
        return [self.text, [[t.text, t.lemma, t.pos, t.sent, t.start, t.end] for t in self.tokens]]

    @classmethod
    def from_json(cls, data: Sequence) -> "Analysis":
        text, rows = data
        return cls(text=text, tokens=tuple(Token(*row) for row in rows))


@lru_cache(maxsize=4)
def load_nlp(name: str | None = None):
    """The spaCy pipeline ``name`` (default: ``resources.spacy_model_name()``), once per process."""
    import spacy

    model = name or resources.spacy_model_name()
    try:
        nlp = spacy.load(model, exclude=["parser", "ner"])
    except OSError as error:
        raise FileNotFoundError(
            f"spaCy model {model!r} is not installed (set SPACY_MODEL): {error}"
        ) from None
    if "senter" in nlp.pipe_names and "senter" in nlp.disabled:
        nlp.enable_pipe("senter")
    elif "senter" not in nlp.pipe_names and "parser" not in nlp.pipe_names:
        nlp.add_pipe("sentencizer")
    return nlp


def _analysis(doc) -> Analysis:
    sent_of: dict[int, int] = {}
    for number, sent in enumerate(doc.sents):
        for token in sent:
            sent_of[token.i] = number
    tokens = tuple(
        Token(
            text=t.text,
            lemma=t.lemma_ or t.text,
            pos=t.pos_,
            sent=sent_of.get(t.i, 0),
            start=t.idx,
            end=t.idx + len(t.text),
        )
        for t in doc
        if not t.is_space
    )
    return Analysis(text=doc.text, tokens=tokens)


def analyse(*, nlp, texts: Iterable[str], batch_size: int = 32) -> list[Analysis]:
    """Tokenise, tag, lemmatise and sentence-split ``texts`` with the spaCy pipeline ``nlp``."""
    return [_analysis(doc) for doc in nlp.pipe(texts, batch_size=batch_size)]
