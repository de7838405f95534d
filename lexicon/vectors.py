"""Static word vectors: the packaged GloVe 6B 50d (``.npy`` + index parquet) or any GloVe text file.

The packaged table is memory-mapped and its word->row index is cached per process, so a second
``load_vectors()`` costs microseconds. The text format (``word v1 ... vN``, one word per line, as in
glove.840B.300d.txt) is parsed line by line; ``vocabulary`` keeps only the words a caller needs.
Vectors from models (spaCy, an encoder) and their concatenation live in ``lexicon.model_vectors``
and are importable from here as before.
"""

import hashlib
from collections.abc import Collection, Iterable, Mapping
from functools import cached_property
from pathlib import Path

import numpy as np

from lexicon import resources
from lexicon.files import file_sha256
from lexicon.model_vectors import ConcatVectors, EncoderWordVectors, SpacyWordVectors

__all__ = [
    "ConcatVectors",
    "EncoderWordVectors",
    "SpacyWordVectors",
    "WordVectors",
    "file_sha256",
    "load_vectors",
]

# (resolved path, size, mtime_ns) -> (words, word->row index): the parquet read + dict build is the slow part.
_INDEX_CACHE: dict[tuple[str, int, int], tuple[list[str], dict[str, int]]] = {}


def _file_key(path: Path) -> tuple[str, int, int]:
    stat = path.stat()
    return (str(path.resolve()), stat.st_size, stat.st_mtime_ns)


class WordVectors:
    """A word -> vector table. ``get`` tries the exact word, then its lowercase form."""

    def __init__(
        self, *, index: Mapping[str, int], array: np.ndarray, name: str, sources: Iterable[Path] = ()
    ) -> None:
        if array.ndim != 2:
            raise ValueError(f"{name}: expected a 2-d vector array, got shape {array.shape}")
        self._index = index
        self._array = array  # Shape: (num_words, dim)
        self.dim: int = int(array.shape[1])
        self.name = name
        self._sources = tuple(sources)

    @cached_property
    def sha256(self) -> str:
        """sha256 of the source file(s); for an in-memory table, of its words and values."""
        if self._sources:
            if len(self._sources) == 1:
                return file_sha256(self._sources[0])
            joined = "".join(file_sha256(source) for source in self._sources)
            return hashlib.sha256(joined.encode()).hexdigest()
        digest = hashlib.sha256()
        for word, row in sorted(self._index.items()):
            digest.update(word.encode() + b"\0")
            digest.update(np.ascontiguousarray(self._array[row], dtype=np.float32).tobytes())
        return digest.hexdigest()

    def __len__(self) -> int:
        return len(self._index)

    def __repr__(self) -> str:
        return f"WordVectors({self.name!r}, words={len(self)}, dim={self.dim})"

    def _row(self, word: str) -> int | None:
        row = self._index.get(word)
        if row is None:
            row = self._index.get(word.lower())
        return row

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self._row(word) is not None

    def get(self, word: str) -> np.ndarray | None:
        row = self._row(word)
        if row is None:
            return None
        return np.array(self._array[row], dtype=np.float32)  # Shape: (dim,)

    def cosine(self, a: str, b: str) -> float | None:
        """Cosine similarity of two words; None if either has no vector (or a zero vector)."""
        va, vb = self.get(a), self.get(b)
        if va is None or vb is None:
            return None
        norm = float(np.linalg.norm(va) * np.linalg.norm(vb))
        return float(va @ vb) / norm if norm > 0 else None

    def matrix(self, words: Iterable[str]) -> tuple[np.ndarray, list[bool]]:
        """Stack the vectors of ``words``; rows of missing words are zeros and flagged False."""
        rows = [self._row(word) for word in words]
        found = [row is not None for row in rows]
        out = np.zeros((len(rows), self.dim), dtype=np.float32)  # Shape: (num_words, dim)
        hits = [i for i, row in enumerate(rows) if row is not None]
        if hits:
            out[hits] = self._array[[rows[i] for i in hits]]
        return out, found


def _index_path(npy: Path) -> Path:
    candidates = [npy.with_suffix(".parquet"), npy.with_name(npy.stem + "_index.parquet")]
    candidates += sorted(p for p in npy.parent.glob("*index*.parquet") if p not in candidates)
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(
        f"{npy}: no word index parquet beside it (looked for {candidates[0].name}, *index*.parquet)"
    )


def _npy_index(index_path: Path, rows: int) -> tuple[list[str], dict[str, int]]:
    key = _file_key(index_path)
    if key not in _INDEX_CACHE:
        import pandas as pd

        frame = pd.read_parquet(index_path)
        if frame.shape[1] != 1:
            raise ValueError(f"{index_path}: expected one column of words, got {list(frame.columns)}")
        words = [str(word) for word in frame.iloc[:, 0].tolist()]
        index: dict[str, int] = {}
        for row, word in enumerate(words):
            index.setdefault(word, row)  # the first occurrence wins, as in the text loader
        _INDEX_CACHE[key] = (words, index)
    words, index = _INDEX_CACHE[key]
    if len(words) != rows:
        raise ValueError(f"{index_path}: {len(words)} words but the vector array has {rows} rows")
    return words, index


def _wanted(vocabulary: Collection[str] | None) -> set[str] | None:
    if vocabulary is None:
        return None
    return set(vocabulary) | {word.lower() for word in vocabulary}


def _load_npy(path: Path, vocabulary: Collection[str] | None) -> WordVectors:
    array = np.load(path, mmap_mode="r")  # Shape: (num_words, dim)
    index_path = _index_path(path)
    _, index = _npy_index(index_path, array.shape[0])
    name = f"{path.name} ({array.shape[0]}x{array.shape[1]})"
    wanted = _wanted(vocabulary)
    if wanted is not None:
        kept = sorted((word, row) for word, row in index.items() if word in wanted)
        array = np.asarray(array[[row for _, row in kept]], dtype=np.float32)  # Shape: (kept, dim)
        index = {word: i for i, (word, _) in enumerate(kept)}
    return WordVectors(index=index, array=array, name=name, sources=(path, index_path))


def _parse_text_line(line: str, dim: int, path: Path, lineno: int) -> tuple[str, list[float]]:
    parts = line.rstrip("\n\r").rstrip(" ").split(" ")
    if len(parts) <= dim:
        raise ValueError(f"{path}:{lineno}: expected a word and {dim} numbers, got {len(parts)} fields")
    word = " ".join(parts[:-dim])  # glove.840B has a few "words" holding spaces
    try:
        values = [float(value) for value in parts[-dim:]]
    except ValueError as error:
        raise ValueError(f"{path}:{lineno}: not a number in the vector of {word!r}: {error}") from None
    return word, values


def _load_text(path: Path, vocabulary: Collection[str] | None) -> WordVectors:
    wanted = _wanted(vocabulary)
    index: dict[str, int] = {}
    rows: list[list[float]] = []
    dim = 0
    with path.open("rb") as handle:
        for lineno, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise ValueError(
                    f"{path}:{lineno}: not UTF-8 ({error.reason} at byte {error.start})"
                ) from None
            if not line.strip():
                continue
            if dim == 0:
                fields = line.split()
                if lineno == 1 and len(fields) == 2 and all(f.isdigit() for f in fields):
                    continue  # a word2vec-style "count dim" header
                dim = len(fields) - 1
                if dim < 1:
                    raise ValueError(f"{path}:{lineno}: expected `word v1 ... vN`, got {line[:60]!r}")
            if (
                wanted is not None
                and line.rstrip().count(" ") == dim
                and line[: line.find(" ")] not in wanted
            ):
                continue  # a one-token word we do not need: skip it before parsing its floats
            word, values = _parse_text_line(line, dim, path, lineno)
            if (wanted is not None and word not in wanted) or word in index:
                continue
            index[word] = len(rows)
            rows.append(values)
    if dim == 0:
        raise ValueError(f"{path}: no vectors in the file")
    array = np.asarray(rows, dtype=np.float32).reshape(len(rows), dim)  # Shape: (num_words, dim)
    return WordVectors(index=index, array=array, name=f"{path.name} ({dim}d)", sources=(path,))


def load_vectors(path: Path | None = None, *, vocabulary: Collection[str] | None = None) -> WordVectors:
    """Load word vectors: ``path`` None is the packaged GloVe 6B 50d (``lexicon.resources.glove_path()``).

    A ``.npy`` file needs a word index parquet beside it; any other file is read as GloVe text.
    ``vocabulary`` keeps only those words (and their lowercase forms) in memory.
    """
    path = Path(path) if path is not None else resources.glove_path()
    if not path.is_file():
        raise FileNotFoundError(f"word vectors not found: {path} (set GLOVE_PATH)")
    if path.suffix == ".npy":
        return _load_npy(path, vocabulary)
    return _load_text(path, vocabulary)
