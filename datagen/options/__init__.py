"""Options (task paper §3.5): a candidate question becomes a ReCAM question with five options.

* ``build``: the pure part (folds, the readers' pool, filters, selection, checks, the paper's path);
* ``retrieval``, ``retrieval_metrics``: the three readers' k-fold retrieval and its metrics;
* ``lm_words``, ``prior``, ``inflection``: the LM word ranker and judge, the frequency prior, forms;
* ``gate``, ``gated``: the adversarial gate and the ranked, gated path;
* ``validity``, ``valid``: the rules of valid test items (option forms, near-synonyms, contrast words,
  gate version 5, one question per summary; docs/explanation/validity.md), ``explain``: the yield in words;
* ``finish``, ``stats``: rankings -> questions -> files, and the report's tables.

The names of ``build`` are re-exported here, so ``from datagen.options import check_question`` works.
"""

from datagen.options.build import (
    NUM_DISTRACTORS,
    SIMILARITY_THRESHOLD,
    BuildResult,
    Candidate,
    Similarity,
    assign_folds,
    build_dataset,
    build_question,
    check_question,
    exclusion_reason,
    gold_in_article,
    gold_position,
    normal,
    output_ids,
    read_candidates,
    select_distractors,
    words,
    write_recam,
)

__all__ = [
    "NUM_DISTRACTORS",
    "SIMILARITY_THRESHOLD",
    "BuildResult",
    "Candidate",
    "Similarity",
    "assign_folds",
    "build_dataset",
    "build_question",
    "check_question",
    "exclusion_reason",
    "gold_in_article",
    "gold_position",
    "normal",
    "output_ids",
    "read_candidates",
    "select_distractors",
    "words",
    "write_recam",
]
