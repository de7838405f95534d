"""The second options-only scorer: a corpus word-frequency prior, independent of the LM.

Each option is scored by the log of its frequency in English as estimated by the ``wordfreq``
package (PyPI ``wordfreq==3.1.1``; its "large"/"best" English list, built from Wikipedia, news,
books, web text, subtitles and Reddit/Twitter, none of them the article of a question). A multi-word
option is scored by the sum of its words' log frequencies (wordfreq's own phrase frequency would
divide by the number of words). Words wordfreq does not know get the floor ``MIN_FREQUENCY``.

It sees neither the article nor the question: it measures how much the options alone give away by
their commonness (the "most frequent word wins" shortcut), so a gate checked by it and by the LM
cannot fool only the model it was built on.
"""

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

MIN_FREQUENCY = 1e-9  # below wordfreq's smallest listed English frequency (~1e-8)
NAME = "wordfreq"


def wordfreq_version() -> str:
    from importlib.metadata import version

    return version("wordfreq")


@lru_cache(maxsize=65536)
def word_logfreq(word: str) -> float:
    """Natural log of the word's English frequency (per token), floored at ``MIN_FREQUENCY``."""
    from wordfreq import tokenize, word_frequency

    tokens = tokenize(word, "en") or [word.lower()]
    return sum(math.log(max(word_frequency(t, "en"), MIN_FREQUENCY)) for t in tokens)


def prior_scores(*, options: Sequence[Sequence[str]]) -> np.ndarray:
    """``(n_questions, n_options)`` log frequencies of the options (higher: more common)."""
    return np.array([[word_logfreq(o) for o in row] for row in options], dtype=float)
