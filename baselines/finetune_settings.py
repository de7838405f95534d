"""What an encoder fine-tune on labelled questions is asked to do (both encoder readers share it).

Torch-free, so the CLI can hold its per-reader defaults without loading torch. With the hashes of the
inputs, the settings identify a run (``identity``): the same call resumes it or returns the finished
run's metrics (baselines/finetune.py).
"""

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from recam.records import Question


def questions_sha256(questions: Sequence[Question]) -> str:
    """A content hash of a question list (order-sensitive), recorded in the manifest."""
    digest = hashlib.sha256()
    for q in questions:
        digest.update(json.dumps(q.to_json(), sort_keys=True, ensure_ascii=False).encode() + b"\n")
    return digest.hexdigest()


@dataclass(frozen=True, kw_only=True)
class FineTuneSettings:
    """The training settings of ``train_encoder`` / ``train_encoder_mlm``.

    ``time_budget_s`` bounds the training wall time, summed over resumed runs: training stops at the
    first step boundary past it, and the model is saved and evaluated as it is then.
    """

    epochs: float = 3.0
    max_length: int = 256  # word pieces of (question, article)
    batch_size: int = 8
    lr: float = 5e-5
    time_budget_s: float | None = None
    seed: int = 13

    def __post_init__(self) -> None:
        if self.epochs <= 0 or self.batch_size < 1 or self.max_length < 16:
            raise ValueError(
                f"FineTuneSettings: bad settings epochs={self.epochs} batch_size={self.batch_size} "
                f"max_length={self.max_length} (epochs > 0, batch_size >= 1, max_length >= 16)"
            )

    def identity(self, *, train: Sequence[Question], dev: Sequence[Question] | None) -> dict:
        """The settings and the inputs' hashes: what a checkpoint and a manifest must match to be this run."""
        return {
            **asdict(self),
            "train_sha256": questions_sha256(train),
            "train_size": len(train),
            "dev_sha256": questions_sha256(dev) if dev else None,
        }
