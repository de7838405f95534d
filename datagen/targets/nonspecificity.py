"""Nonspecificity (§3.3): the chosen sense's maximal hypernym path length to the WordNet root.

Each noun or verb of the summary is disambiguated with the adapted Lesk algorithm (or another
``datagen.targets.wsd`` method) over the summary concatenated with the passage, as §3.3 states. The context is
either that whole ``text`` (every word with a letter, the target itself left out: what the paper's
concatenation gives a whole-context Lesk such as pywsd's) or a ``window`` of ``window`` content words
that WordNet knows each side of the target (Banerjee and Pedersen's 2n+1 window, pipeline versions 1-2).
Depth 0 is the root, the most abstract; the paper keeps targets with depth < 6.
"""

from collections.abc import Iterable

from datagen.nlp import CONTENT_POS, Analysis
from datagen.targets.lesk import AdaptedLesk, Sense, context_window

TARGET_POS = frozenset({"NOUN", "VERB"})
DEFAULT_WINDOW = 8
DEFAULT_MAX_DEPTH = 6
CONTEXTS = ("text", "window")


class NonspecificityScorer:
    def __init__(self, *, lesk: AdaptedLesk, window: int = DEFAULT_WINDOW, context: str = "window") -> None:
        if window < 1:
            raise ValueError(f"the Lesk window must be at least 1 word, got {window}")
        if context not in CONTEXTS:
            raise ValueError(f"the WSD context must be one of {', '.join(CONTEXTS)}, got {context!r}")
        self.lesk = lesk
        self.window = window
        self.context = context

    def wordnet_lemma(self, token) -> str:
        """spaCy's lemma, or the surface word when WordNet does not know that lemma for the POS but
        knows the word (``synsets`` applies WordNet's own lemmatiser, morphy): spaCy lemmatises
        "politics" to "politic" and "odds" to "odd", which WordNet has only as adjectives."""
        if self.lesk.senses(token.lemma, token.pos) or not self.lesk.senses(token.lower, token.pos):
            return token.lemma
        return token.lower

    def _known(self, token) -> bool:
        return token.pos in CONTENT_POS and bool(self.lesk.senses(self.wordnet_lemma(token), token.pos))

    def score(
        self,
        *,
        summary: Analysis,
        passage: Analysis,
        indices: Iterable[int],
        target_pos: frozenset[str] | None = TARGET_POS,
    ) -> dict[int, Sense | None]:
        """The chosen sense (with its depth) of each summary token in ``indices``; None if it is not
        of ``target_pos`` (default: noun or verb; None: any content word) or WordNet does not know it."""
        if self.context == "text":
            return self._score_text(summary, passage, indices, target_pos)
        positions: dict[int, int] = {}
        words: list[tuple[str, str]] = []
        for index, token in enumerate(summary.tokens):
            if self._known(token):
                positions[index] = len(words)
                words.append((self.wordnet_lemma(token), token.pos))
        needed = len(words) + 2 * self.window
        for token in passage.tokens:
            if len(words) >= needed:
                break
            if self._known(token):
                words.append((self.wordnet_lemma(token), token.pos))
        senses: dict[int, Sense | None] = {}
        for index in indices:
            token = summary.tokens[index]
            if (target_pos is not None and token.pos not in target_pos) or index not in positions:
                senses[index] = None
                continue
            context = context_window(words=words, position=positions[index], window=self.window)
            senses[index] = self.lesk.disambiguate(
                lemma=self.wordnet_lemma(token), pos=token.pos, context=context
            )
        return senses

    def _score_text(self, summary, passage, indices, target_pos) -> dict[int, Sense | None]:
        words = [(t.lemma, t.pos) for t in (*summary.tokens, *passage.tokens) if _has_letter(t.text)]
        tokens = summary.tokens
        senses: dict[int, Sense | None] = {}
        for index in indices:
            token = tokens[index]
            if (target_pos is not None and token.pos not in target_pos) or not self._known(token):
                senses[index] = None
                continue
            # the whole text without the target token (its summary position among the kept words)
            position = sum(_has_letter(t.text) for t in tokens[:index])
            context = words[:position] + words[position + 1 :]
            senses[index] = self.lesk.disambiguate(
                lemma=self.wordnet_lemma(token), pos=token.pos, context=context
            )
        return senses


def _has_letter(text: str) -> bool:
    return any(c.isalpha() for c in text)
