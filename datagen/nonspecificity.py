"""Nonspecificity (§3.3): the chosen sense's maximal hypernym path length to the WordNet root.

Each noun or verb of the summary is disambiguated with the adapted Lesk algorithm (or another
``datagen.wsd`` method); the context is
the summary concatenated with the passage (their content words that WordNet knows), cut to a window
of ``window`` words each side of the target. Depth 0 is the root, the most abstract; the paper keeps
targets with depth < 6.
"""

from collections.abc import Iterable

from datagen.lesk import AdaptedLesk, Sense, context_window
from datagen.nlp import CONTENT_POS, Analysis

TARGET_POS = frozenset({"NOUN", "VERB"})
DEFAULT_WINDOW = 8
DEFAULT_MAX_DEPTH = 6


class NonspecificityScorer:
    def __init__(self, *, lesk: AdaptedLesk, window: int = DEFAULT_WINDOW) -> None:
        if window < 1:
            raise ValueError(f"the Lesk window must be at least 1 word, got {window}")
        self.lesk = lesk
        self.window = window

    def _known(self, token) -> bool:
        return token.pos in CONTENT_POS and bool(self.lesk.senses(token.lemma, token.pos))

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
        positions: dict[int, int] = {}
        words: list[tuple[str, str]] = []
        for index, token in enumerate(summary.tokens):
            if self._known(token):
                positions[index] = len(words)
                words.append((token.lemma, token.pos))
        needed = len(words) + 2 * self.window
        for token in passage.tokens:
            if len(words) >= needed:
                break
            if self._known(token):
                words.append((token.lemma, token.pos))
        senses: dict[int, Sense | None] = {}
        for index in indices:
            token = summary.tokens[index]
            if (target_pos is not None and token.pos not in target_pos) or index not in positions:
                senses[index] = None
                continue
            context = context_window(words=words, position=positions[index], window=self.window)
            senses[index] = self.lesk.disambiguate(lemma=token.lemma, pos=token.pos, context=context)
        return senses
