"""The gate's score cache keeps every result it received when a run stops half-way (resume)."""

import json

import pytest

from datagen.options.finish import _cached_gate_scores
from datagen.options.lm_words import item_key


def _items(n: int) -> list[dict]:
    return [
        {"id": i, "article": f"A{i}.", "question": "Q @placeholder.", "words": ["w"], "must": ["w"], "top": 0}
        for i in range(n)
    ]


def _result(item: dict) -> dict:
    return {"id": item["id"], "article": {"w": -float(item["id"])}, "options_only": {"w": -1.0}}


def test_results_streamed_before_a_failure_are_kept_and_a_rerun_scores_only_the_rest(tmp_path):
    items = _items(12)

    def stops_after_five(batch):  # yields as the Celery backend does, then a shard fails
        for item in batch[:5]:
            yield _result(item)
        raise RuntimeError("shard 2 failed")

    with pytest.raises(RuntimeError, match="shard 2 failed"):
        _cached_gate_scores(work=tmp_path, items=items, score_many=stops_after_five, chunk=None)
    lines = (tmp_path / "gate-scores.jsonl").read_text().splitlines()
    assert [json.loads(line)["id"] for line in lines] == [0, 1, 2, 3, 4]
    assert [json.loads(line)["key"] for line in lines] == [item_key(item) for item in items[:5]]

    asked = []

    def scores_the_rest(batch):
        asked.extend(item["id"] for item in batch)
        return [_result(item) for item in batch]

    found = _cached_gate_scores(work=tmp_path, items=items, score_many=scores_the_rest, chunk=None)
    assert asked == list(range(5, 12))  # the five received before the failure are not scored again
    assert [f["id"] for f in found] == list(range(12))
    assert found[3]["article"] == {"w": -3.0}
    assert len((tmp_path / "gate-scores.jsonl").read_text().splitlines()) == 12
