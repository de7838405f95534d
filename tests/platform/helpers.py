"""Test helpers: independent counts straight from the files."""

import json
from pathlib import Path


def independent_count(*, predictions_csv: bytes, gold_jsonl: Path) -> tuple[int, int]:
    """Count correct predictions straight from the files (no project code): (correct, total)."""
    gold = [
        json.loads(line)["label"]
        for line in gold_jsonl.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    predicted = {}
    for line in predictions_csv.decode("utf-8").splitlines():
        if line.strip():
            qid, label = line.split(",")
            predicted[int(qid)] = int(label)
    return sum(predicted.get(i) == label for i, label in enumerate(gold)), len(gold)
