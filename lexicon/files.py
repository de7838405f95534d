"""The one file hash and the one atomic write of the pure cores (datagen, baselines use these)."""

import hashlib
import os
from pathlib import Path

_HASH_CHUNK = 1 << 20
_HASH_CACHE: dict[tuple[str, int, int], str] = {}


def file_sha256(path: str | Path) -> str:
    """sha256 of a file, read in 1 MiB chunks; cached per process by (path, size, mtime)."""
    path = Path(path)
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _HASH_CACHE:
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            while chunk := handle.read(_HASH_CHUNK):
                digest.update(chunk)
        _HASH_CACHE[key] = digest.hexdigest()
    return _HASH_CACHE[key]


def write_atomic(*, path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file and a rename: a reader sees the old
    file or the new one, never half of one; an interrupted write leaves the old file in place."""
    path = Path(path)
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
