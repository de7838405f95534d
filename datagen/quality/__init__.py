"""The quality of a generated (or any ReCAM) file, and how faithful the pipeline is to ReCAM.

* ``report``, ``run``, ``calibration``: the per-question quality report (LM with and without the
  article, the frequency prior; effective number of options, contextual MI);
* ``fidelity``, ``fidelity_losses``, ``fidelity_tables``: does the pipeline pick ReCAM's own answers;
* ``distractor_bench``, ``bench_readers``: rankers' distractors against ReCAM's real ones.

The names of ``report`` are re-exported here, so ``from datagen.quality import summary_line`` works.
"""

from datagen.quality.report import (
    FLAG_PROBABILITY,
    LM,
    REPORT_VERSION,
    ScoreFn,
    build_report,
    cache_key,
    cached_scores,
    load_cache,
    summary_line,
)

__all__ = [
    "FLAG_PROBABILITY",
    "LM",
    "REPORT_VERSION",
    "ScoreFn",
    "build_report",
    "cache_key",
    "cached_scores",
    "load_cache",
    "summary_line",
]
