"""Pure ReCAM domain core shared by the platform, the workers, datagen and the baselines.

No Django, no torch: records, jsonl I/O, submission-file parsing and the one scorer.
"""

from recam.metrics import SCORER_VERSION, Score, accuracy, score_predictions
from recam.records import Question, read_questions, write_questions

__all__ = [
    "SCORER_VERSION",
    "Question",
    "Score",
    "accuracy",
    "read_questions",
    "score_predictions",
    "write_questions",
]
