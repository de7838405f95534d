"""Device choice: CUDA when present, else CPU (a request such as "cpu" or "cuda:1" wins)."""

import torch


def pick_device(requested: str | None = None) -> str:
    """The torch device to use; raise ValueError if CUDA is requested but absent."""
    if requested:
        if requested.startswith("cuda") and not torch.cuda.is_available():
            raise ValueError(f"device {requested!r} requested but CUDA is not available")
        return requested
    return "cuda" if torch.cuda.is_available() else "cpu"
