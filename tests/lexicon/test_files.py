"""The one file hash and the one atomic write."""

import hashlib
import os

from lexicon.files import file_sha256, write_atomic


def test_file_sha256_is_hashlibs_digest_and_follows_a_changed_file(tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(b"x" * (3 << 20))  # more than one 1 MiB chunk
    assert file_sha256(path) == hashlib.sha256(b"x" * (3 << 20)).hexdigest()
    path.write_bytes(b"other")
    os.utime(path, ns=(1, 1))  # a new mtime and size: the cache key changes
    assert file_sha256(str(path)) == hashlib.sha256(b"other").hexdigest()


def test_write_atomic_replaces_the_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "out.json"
    path.write_text("old", encoding="utf-8")
    write_atomic(path=path, text="new \u00e9")
    assert path.read_text(encoding="utf-8") == "new \u00e9"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]
