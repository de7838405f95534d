"""Article overlap between XSum pairs and ReCAM files (pure; no Django, no models).

ReCAM was built from XSum, so an XSum sample shares articles with ReCAM's dev and test files (in
``xsum_test_1k`` about 2% of the pairs carry a ReCAM dev or test article almost word for word). A
question generated from such a pair, used for training, shows a model the evaluation article and
often the evaluation summary. ``overlap_shares`` measures, for each pair, the share of its article's
word n-grams that occur in any article of the reference files, so that the pair can be dropped before
``datagen candidates``. The measure is containment (the pair's side only), as in near-duplicate
detection with shingles (Broder, 1997): a reference article that quotes the whole pair counts fully.
"""

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

WORD = re.compile(r"\w+")
DEFAULT_N = 8
DEFAULT_MAX_SHARE = 0.01


def shingles(text: str, *, n: int = DEFAULT_N) -> set[tuple[str, ...]]:
    """Lower-cased word n-grams of ``text``; a text shorter than ``n`` words is one shingle."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    words = WORD.findall(text.lower())
    if not words:
        return set()
    if len(words) <= n:
        return {tuple(words)}
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


@dataclass(frozen=True)
class Overlap:
    share: float  # of the text's shingles found in the reference articles, 0-1
    source: str | None  # the reference (file) holding most of the shared shingles, None when share is 0


class OverlapIndex:
    """Shingles of reference articles, each labelled with where it came from (a file name)."""

    def __init__(self, *, n: int = DEFAULT_N) -> None:
        self.n = n
        self._sources: dict[tuple[str, ...], str] = {}

    def add(self, articles: Iterable[str], *, source: str) -> None:
        for article in articles:
            for shingle in shingles(article, n=self.n):
                self._sources.setdefault(shingle, source)

    def __len__(self) -> int:
        return len(self._sources)

    def overlap(self, text: str) -> Overlap:
        own = shingles(text, n=self.n)
        if not own:
            return Overlap(share=0.0, source=None)
        counts: dict[str, int] = {}
        for shingle in own:
            source = self._sources.get(shingle)
            if source is not None:
                counts[source] = counts.get(source, 0) + 1
        if not counts:
            return Overlap(share=0.0, source=None)
        shared = sum(counts.values())
        return Overlap(share=shared / len(own), source=max(counts, key=counts.get))


def split_by_overlap(
    texts: Sequence[str], index: OverlapIndex, *, max_share: float = DEFAULT_MAX_SHARE
) -> tuple[list[int], list[tuple[int, Overlap]]]:
    """Positions of the texts to keep (share below ``max_share``) and the dropped ones with their overlap."""
    if not 0.0 <= max_share <= 1.0:
        raise ValueError(f"max_share must be between 0 and 1, got {max_share}")
    kept: list[int] = []
    dropped: list[tuple[int, Overlap]] = []
    for position, text in enumerate(texts):
        found = index.overlap(text)
        if found.share > 0 and found.share >= max_share:
            dropped.append((position, found))
        else:
            kept.append(position)
    return kept, dropped
