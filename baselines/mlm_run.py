"""Masked-language-model runs (both stages of baselines/encoder_mlm.py) on the shared loop of baselines/finetune.py.

``start_masked_lm_run`` opens a ``FineTuneRun`` of an ``AutoModelForMaskedLM``; its settings record the
base model and, for a base saved by ``adapt_encoder``, that base's manifest (provenance).
"""

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from baselines.finetune import MANIFEST, FineTuneRun, base_model_dir


def load_masked_lm(model_dir: Path, device: str) -> tuple:
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    return tokenizer, AutoModelForMaskedLM.from_pretrained(model_dir).to(device)


def start_masked_lm_run(*, output_dir, model_dir, settings, device, seed, kind, lr) -> FineTuneRun:
    """A resumable masked-LM run in ``output_dir`` (or the metrics of the finished identical run)."""
    base_dir = base_model_dir(model_dir)
    return FineTuneRun.start(
        output_dir=output_dir,
        base_dir=base_dir,
        settings={**settings, "base_model": str(base_dir), "base_manifest": _manifest_of(base_dir)},
        device=device,
        seed=seed,
        kind=kind,
        lr=lr,
        load=load_masked_lm,
    )


def _manifest_of(model_dir: Path) -> dict | None:
    """The manifest of an adapted base model (so a fine-tuned model records how its base was made)."""
    path = Path(model_dir) / MANIFEST
    if not path.is_file():
        return None
    manifest = json.loads(path.read_text(encoding="utf-8"))
    return {"baseline": manifest.get("baseline"), "settings": manifest.get("settings")}


def texts_sha256(texts: Sequence[str]) -> str:
    """A content hash of a list of texts (order-sensitive), recorded in the manifest."""
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode("utf-8") + b"\n")
    return digest.hexdigest()
