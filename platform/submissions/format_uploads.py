"""Uploads of the multi-blank task formats (CLOTH, SCDE), parsed through ``recam.formats``.

ReCAM competitions never reach this module (``format_parse`` answers None for them): their uploads keep
``recam.submission``. A multi-blank upload is one ``id,blank,label`` CSV (``recam.formats.blanks``),
recorded as the one prediction file of the phase's one test set. Scores: ``submissions.task_formats``.
"""

from competitions.models import Phase
from competitions.task_formats import SUBTASK, format_slots, format_test_set_get
from recam.formats import DEFAULT_FORMAT
from recam.formats.blanks import parse_blank_predictions
from recam.submission import Limits, ParsedSubmission, PredictionFile, Problem, SubmissionError, sha256_hex

FILE_NAME = "predictions.csv"  # the name the prediction file is recorded under


def format_parse(*, phase: Phase, filename: str, data: bytes, limits: Limits) -> ParsedSubmission | None:
    """The parsed upload of a multi-blank phase (SubmissionError listing every problem); None for ReCAM."""
    if phase.competition.task_format == DEFAULT_FORMAT:
        return None
    test_set = format_test_set_get(phase=phase)
    if test_set is None:
        raise SubmissionError([Problem(filename, "this phase has no test set yet; try again later")])
    predictions = parse_blank_predictions(
        data=data, filename=filename, expected=format_slots(test_set=test_set), limits=limits
    )
    digest = sha256_hex(data)
    prediction_file = PredictionFile(name=FILE_NAME, subtask=SUBTASK, sha256=digest, predictions=predictions)
    return ParsedSubmission(sha256=digest, files=(prediction_file,))
