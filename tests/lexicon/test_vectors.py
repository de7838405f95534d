"""Word-vector loaders on the packaged GloVe 6B 50d and on a tiny real GloVe text slice."""

import hashlib
from pathlib import Path

import numpy as np
import pytest

from lexicon import resources
from lexicon.vectors import ConcatVectors, EncoderWordVectors, WordVectors, load_vectors

SLICE_WORDS = ["the", "economy", "policy", "king", "queen", "apple", "freedom", "table", "idea", "paris"]


@pytest.fixture(scope="module")
def packaged() -> WordVectors:
    return load_vectors()


@pytest.fixture
def glove_text(tmp_path: Path, packaged: WordVectors) -> Path:
    """A real GloVe text slice: rows copied from the packaged table, written in the standard format."""
    path = tmp_path / "glove.slice.50d.txt"
    lines = [f"{word} {' '.join(repr(float(v)) for v in packaged.get(word))}" for word in SLICE_WORDS]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_packaged_table_loads_with_its_index(packaged: WordVectors) -> None:
    assert packaged.dim == 50
    assert len(packaged) == 400_000
    assert "economy" in packaged
    assert "qzxv-not-a-word" not in packaged
    assert packaged.get("qzxv-not-a-word") is None
    assert packaged.get("economy").shape == (50,)


def test_packaged_lookup_falls_back_to_lowercase(packaged: WordVectors) -> None:
    np.testing.assert_array_equal(packaged.get("Economy"), packaged.get("economy"))


def test_packaged_sha256_hashes_the_source_files(packaged: WordVectors) -> None:
    npy = resources.glove_path()
    expected = "".join(
        hashlib.sha256(path.read_bytes()).hexdigest() for path in (npy, npy.parent / "glove_6B_index.parquet")
    )
    assert packaged.sha256 == hashlib.sha256(expected.encode()).hexdigest()


def test_vocabulary_keeps_only_the_asked_words_with_the_same_vectors(packaged: WordVectors) -> None:
    small = load_vectors(vocabulary=["Economy", "idea", "qzxv-not-a-word"])
    assert len(small) == 2
    np.testing.assert_array_equal(small.get("economy"), packaged.get("economy"))
    assert small.get("table") is None
    assert small.sha256 == packaged.sha256


def test_text_slice_matches_the_packaged_vectors(glove_text: Path, packaged: WordVectors) -> None:
    vectors = load_vectors(glove_text)
    assert vectors.dim == 50
    assert len(vectors) == len(SLICE_WORDS)
    for word in SLICE_WORDS:
        np.testing.assert_allclose(vectors.get(word), packaged.get(word), rtol=1e-6)
    assert vectors.get("Paris") is not None
    assert vectors.cosine("king", "queen") == pytest.approx(packaged.cosine("king", "queen"), rel=1e-5)
    assert vectors.cosine("king", "qzxv") is None


def test_text_cosine_is_the_normalised_dot_product(glove_text: Path) -> None:
    vectors = load_vectors(glove_text)
    a, b = vectors.get("apple"), vectors.get("idea")
    expected = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    assert vectors.cosine("apple", "idea") == pytest.approx(expected, rel=1e-6)


def test_matrix_flags_missing_words_with_zero_rows(glove_text: Path) -> None:
    vectors = load_vectors(glove_text)
    matrix, found = vectors.matrix(["king", "qzxv", "Queen"])
    assert matrix.shape == (3, 50)
    assert found == [True, False, True]
    assert not matrix[1].any()
    np.testing.assert_array_equal(matrix[2], vectors.get("queen"))


def test_text_vocabulary_and_header_and_spaced_words(tmp_path: Path) -> None:
    path = tmp_path / "vectors.txt"
    path.write_text("3 2\nthe 0.1 0.2\n. . . 0.5 0.5\nCat 1.0 -1.0\n", encoding="utf-8")
    everything = load_vectors(path)
    assert everything.dim == 2
    np.testing.assert_allclose(everything.get(". . ."), [0.5, 0.5])
    only = load_vectors(path, vocabulary=["cat"])
    assert len(only) == 0
    only = load_vectors(path, vocabulary=["Cat"])
    np.testing.assert_allclose(only.get("Cat"), [1.0, -1.0])
    assert "the" not in only


def test_bad_text_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("the 0.1 0.2\ncat 0.3 oops\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.txt:2: not a number"):
        load_vectors(path)
    path.write_text("the 0.1 0.2\ncat\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.txt:2: expected a word and 2 numbers"):
        load_vectors(path)
    path.write_bytes(b"the 0.1 0.2\n\xff\xfe 0.3 0.4\n")
    with pytest.raises(ValueError, match=r"bad\.txt:2: not UTF-8"):
        load_vectors(path)


def test_npy_without_index_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "lonely.npy"
    np.save(path, np.zeros((2, 3), dtype=np.float32))
    with pytest.raises(FileNotFoundError, match="no word index parquet"):
        load_vectors(path)


def test_encoder_and_concat_vectors(glove_text: Path) -> None:
    encoder = EncoderWordVectors()
    matrix, found = encoder.matrix(["economy", "", "economy"])
    assert matrix.shape == (3, encoder.dim)
    assert found == [True, False, True]
    np.testing.assert_allclose(matrix[0], matrix[2], rtol=1e-5, atol=1e-6)
    both = ConcatVectors(parts=[load_vectors(glove_text), encoder])
    matrix, found = both.matrix(["king", "qzxv"])
    assert both.dim == 50 + encoder.dim
    assert found == [True, False]
    assert not matrix[1].any()


def test_encoder_rejects_an_unknown_layer_choice() -> None:
    with pytest.raises(ValueError, match="layers must be 'all' or 'last'"):
        EncoderWordVectors(layers="middle")
