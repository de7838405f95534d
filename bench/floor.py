"""(a) The floor: parse and score one 2,025-line submission in process, no web, no queue.

The ids are those of the official Subtask 1 test set; predictions and "gold" labels are drawn at random
with a fixed seed (the test labels are not public), so the work is exactly the real parse + score.
"""

import random
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from recam.metrics import score_predictions
from recam.records import read_questions
from recam.submission import format_predictions, make_zip, parse_submission

TEST_FILE = Path("test_data") / "Task_1_test.jsonl"


@dataclass(frozen=True)
class FloorResult:
    lines: int
    zip_bytes: int
    repeats: int
    parse_ms_median: float
    score_ms_median: float
    total_ms_median: float
    total_ms_p95: float
    total_ms_min: float
    accuracy: float


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list.

    >>> percentile([5.0, 1.0, 3.0, 2.0, 4.0], 50), percentile([5.0, 1.0, 3.0, 2.0, 4.0], 95)
    (3.0, 5.0)
    """
    if not values:
        raise ValueError("percentile of an empty list")
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))  # ceil(n * q / 100), at least 1
    return ordered[int(rank) - 1]


def make_floor_input(*, data_dir: Path, seed: int) -> tuple[bytes, dict[int, int], set[int]]:
    """The zipped subtask1.csv (random labels), random gold labels, and the test ids."""
    ids = [q.id for q in read_questions(data_dir / TEST_FILE)]
    rng = random.Random(seed)
    predictions = {qid: rng.randrange(5) for qid in ids}
    gold = {qid: rng.randrange(5) for qid in ids}
    upload = make_zip({"subtask1.csv": format_predictions(predictions)})
    return upload, gold, set(ids)


def run_floor(*, data_dir: Path, seed: int = 13, repeats: int = 50) -> FloorResult:
    upload, gold, ids = make_floor_input(data_dir=data_dir, seed=seed)
    parse_ms: list[float] = []
    score_ms: list[float] = []
    total_ms: list[float] = []
    accuracy = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        parsed = parse_submission(data=upload, filename="submission.zip", expected_ids={1: ids})
        parsed_at = time.perf_counter()
        score = score_predictions(predictions=parsed.files[0].predictions, gold=gold)
        end = time.perf_counter()
        parse_ms.append((parsed_at - start) * 1000)
        score_ms.append((end - parsed_at) * 1000)
        total_ms.append((end - start) * 1000)
        accuracy = score.accuracy
    return FloorResult(
        lines=len(ids),
        zip_bytes=len(upload),
        repeats=repeats,
        parse_ms_median=round(statistics.median(parse_ms), 3),
        score_ms_median=round(statistics.median(score_ms), 3),
        total_ms_median=round(statistics.median(total_ms), 3),
        total_ms_p95=round(percentile(total_ms, 95), 3),
        total_ms_min=round(min(total_ms), 3),
        accuracy=round(accuracy, 4),
    )
