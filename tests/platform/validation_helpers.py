"""Validation test helpers: small "generated" and gold files cut from the official dev sets."""

import json
from pathlib import Path

from django.contrib.auth import get_user_model

from tests.platform.factories import UserFactory
from validation.services import BatchSettings, annotator_set, batch_create


def jsonl_bytes(*, path: Path, count: int, first_id: int = 0) -> bytes:
    """The first ``count`` records of a labelled file, with explicit ids from ``first_id`` and the two
    fields `datagen options` adds (source_id, subtask)."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[:count]]
    for i, record in enumerate(records):
        record |= {"id": first_id + i, "source_id": f"xsum-{first_id + i}", "subtask": 1}
    return "".join(json.dumps(r) + "\n" for r in records).encode("utf-8")


def make_batch(*, data_dir: Path, generated: int = 5, gold: int = 10, **settings):
    """A batch of ``generated`` Subtask 1 dev questions (ids 1000...) with Subtask 2 dev gold checks."""
    return batch_create(
        name="test batch",
        source_name="generated.jsonl",
        data=jsonl_bytes(path=data_dir / "training_data/Task_1_dev.jsonl", count=generated, first_id=1000),
        batch_settings=BatchSettings(**settings),
        gold=("gold.jsonl", jsonl_bytes(path=data_dir / "training_data/Task_2_dev.jsonl", count=gold)),
    )


def make_annotator(username: str | None = None, *, password: str = "a-long-test-password"):
    user = UserFactory(**({"username": username} if username else {}))
    annotator_set(user=get_user_model().objects.get(pk=user.pk))
    return user
