"""Read an uploaded zip safely: only subtask1.csv / subtask2.csv at its root, no unsafe paths, no zip bombs."""

import io
import re
import zipfile
from collections.abc import Mapping
from pathlib import PurePosixPath

from recam.submission_types import SUBMISSION_FILES, Limits, Problem, SubmissionError, size_text

_IGNORED_ZIP_ENTRIES = ("__MACOSX/",)
_IGNORED_NAMES = {".DS_Store", "Thumbs.db", "desktop.ini"}


def read_zip(
    data: bytes, name: str, limits: Limits, caps: Mapping[str, int] | None = None
) -> tuple[dict[str, bytes], list[Problem]]:
    """The prediction files at the zip's root, each read up to its cap in ``caps`` (bytes; the most a
    valid file for the phase can hold). A prediction file without a cap (its subtask is not in the phase)
    is not unpacked: it is refused whatever it holds, so it comes back empty."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError, KeyError):
        raise SubmissionError([Problem(name, "not a valid zip archive (is the file complete?)")]) from None
    if len(infos) > limits.max_entries:
        raise SubmissionError(
            [
                Problem(
                    name,
                    f"the zip holds {len(infos):,} entries; at most {limits.max_entries} are "
                    "allowed (it needs only subtask1.csv and/or subtask2.csv)",
                )
            ]
        )
    problems: list[Problem] = []
    entries: dict[str, bytes] = {}
    budget = limits.max_uncompressed_bytes
    for info in infos:
        entry = info.filename
        where = f"{name}/{entry}"
        parts = PurePosixPath(entry.replace("\\", "/")).parts
        if entry.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", entry) or ".." in parts:
            problems.append(
                Problem(where, "unsafe path in the zip (absolute or with '..'); zip the files themselves")
            )
            continue
        if info.is_dir() or entry.startswith(_IGNORED_ZIP_ENTRIES) or parts[-1] in _IGNORED_NAMES:
            continue
        if len(parts) > 1:
            hint = (
                f"put {parts[-1]} at the root of the zip"
                if parts[-1] in SUBMISSION_FILES
                else "unexpected file"
            )
            problems.append(Problem(where, f"inside the folder '{'/'.join(parts[:-1])}/': {hint}"))
            continue
        if entry not in SUBMISSION_FILES:
            problems.append(
                Problem(where, "unexpected file: the zip may hold only subtask1.csv and subtask2.csv")
            )
            continue
        if entry in entries:
            problems.append(Problem(where, "appears twice in the zip"))
            continue
        if info.flag_bits & 0x1:
            problems.append(Problem(where, "is encrypted; upload an unencrypted zip"))
            continue
        if caps is not None and entry not in caps:
            entries[entry] = b""
            continue
        cap = budget if caps is None else min(budget, caps[entry])
        content = _read_entry(archive, info, cap)
        if content is None:
            problems.append(Problem(where, _too_large(cap, budget, limits)))
            continue
        budget -= len(content)
        entries[entry] = content
    if not entries and not problems:
        problems.append(Problem(name, "the zip holds neither subtask1.csv nor subtask2.csv at its root"))
    return entries, problems


def _too_large(cap: int, budget: int, limits: Limits) -> str:
    if cap < budget:
        return (
            f"unpacks to more than {size_text(cap)}, more than a prediction file for this phase's test "
            "set can hold; refused"
        )
    return f"unpacks to more than {size_text(limits.max_uncompressed_bytes)}; refused"


def _read_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: int) -> bytes | None:
    """Read at most ``budget`` bytes (declared sizes can lie: a zip bomb is stopped while reading)."""
    if info.file_size > budget:
        return None
    try:
        with archive.open(info) as handle:
            content = handle.read(budget + 1)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError, RuntimeError):
        raise SubmissionError(
            [Problem(info.filename, "could not be unpacked (corrupt or unsupported compression)")]
        ) from None
    return None if len(content) > budget else content
