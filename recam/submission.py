"""Parse and validate an uploaded ReCAM submission, listing every problem with file and line.

The official format: a zip holding ``subtask1.csv`` and/or ``subtask2.csv`` at its root, no header,
one ``id,label`` line per test question, label an integer 0-4. A bare ``subtask1.csv`` or
``subtask2.csv`` is accepted too. CRLF line endings are fine.

Only this module's :class:`SubmissionError` (a ``ValueError``) leaves :func:`parse_submission`;
whatever the bytes, nothing else is raised. The types live in ``recam.submission_types``, the zip
reader in ``recam.submission_zip``; the types are importable from here as before.
"""

import hashlib
import io
import re
import zipfile
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path, PurePosixPath

from recam.submission_types import (
    SUBMISSION_FILES,
    Limits,
    ParsedSubmission,
    PredictionFile,
    Problem,
    SubmissionError,
    size_text,
)
from recam.submission_zip import read_zip

NUM_OPTIONS = 5
_INT = re.compile(r"^[+-]?\d+$")
# Ids and labels are small integers; a longer digit string is refused before int() sees it (Python
# refuses to convert strings of more than 4,300 digits, and no id needs more than 18).
MAX_DIGITS = 18
DEFAULT_LIMITS = Limits()

__all__ = [
    "SUBMISSION_FILES",
    "Limits",
    "ParsedSubmission",
    "PredictionFile",
    "Problem",
    "SubmissionError",
    "format_predictions",
    "make_zip",
    "parse_submission",
    "sha256_hex",
    "write_predictions",
]


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def parse_submission(
    *,
    data: bytes,
    filename: str,
    expected_ids: Mapping[int, Collection[int]],
    limits: Limits = DEFAULT_LIMITS,
) -> ParsedSubmission:
    """Validate an upload against the test ids of each subtask the phase has (``{subtask: ids}``).

    >>> parsed = parse_submission(data=b"0,1\\r\\n1,4\\r\\n", filename="subtask1.csv", expected_ids={1: {0, 1}})
    >>> parsed.subtasks, dict(parsed.files[0].predictions)
    ((1,), {0: 1, 1: 4})
    >>> parse_submission(data=b"id,label\\n0,1\\n", filename="subtask1.csv", expected_ids={1: {0, 1}})
    Traceback (most recent call last):
    ...
    recam.submission_types.SubmissionError: subtask1.csv, line 1: header row 'id,label': the file must have no header; remove this line
    subtask1.csv: 1 of 2 ids have no prediction (first: 1)
    """
    name = PurePosixPath(filename.replace("\\", "/")).name or "upload"
    caps = {
        entry: limits.max_file_bytes(len(expected_ids[subtask]))
        for entry, subtask in SUBMISSION_FILES.items()
        if subtask in expected_ids
    }
    entries, problems = _entries(data=data, name=name, limits=limits, caps=caps)
    files = []
    for entry_name, content in sorted(entries.items()):
        subtask = SUBMISSION_FILES[entry_name]
        if subtask not in expected_ids:
            problems.append(
                Problem(entry_name, f"this phase has no Subtask {subtask} test set; remove {entry_name}")
            )
            continue
        predictions, file_problems = _parse_csv(content, entry_name, expected_ids[subtask], limits)
        problems.extend(file_problems)
        files.append(
            PredictionFile(
                name=entry_name, subtask=subtask, sha256=sha256_hex(content), predictions=predictions
            )
        )
    if problems:
        raise SubmissionError(problems)
    return ParsedSubmission(sha256=sha256_hex(data), files=tuple(files))


def _entries(
    *, data: bytes, name: str, limits: Limits, caps: Mapping[str, int]
) -> tuple[dict[str, bytes], list[Problem]]:
    """The prediction files of an upload (a zip's, or the bare CSV itself) and the zip's problems.

    An upload that cannot hold prediction files at all (empty, too large, not a zip or a subtask CSV)
    raises at once: there is nothing further to check.
    """
    if not data:
        raise SubmissionError([Problem(name, "the file is empty")])
    if len(data) > limits.max_bytes:
        too_large = f"the file is {size_text(len(data))}, over the limit of {size_text(limits.max_bytes)}"
        raise SubmissionError([Problem(name, too_large)])
    if data[:4] == b"PK\x03\x04" or name.lower().endswith(".zip"):
        return read_zip(data, name, limits, caps)
    if name in SUBMISSION_FILES:
        return {name: data}, []
    if name.lower().endswith(".csv"):
        message = (
            "a bare CSV must be named subtask1.csv or subtask2.csv; "
            "or upload a zip holding those files at its root"
        )
    else:
        message = (
            "not a zip file: upload a .zip holding subtask1.csv and/or "
            "subtask2.csv at its root (or one of those CSV files)"
        )
    raise SubmissionError([Problem(name, message)])


def iter_lines(content: bytes, max_line_bytes: int) -> Iterator[tuple[int, bytes, bool]]:
    """(line number, line without its ending, whether it was cut at ``max_line_bytes``), one at a time:
    the file is never split into a list, and a long line is never copied whole."""
    start, lineno, size = 0, 0, len(content)
    while start < size:
        lineno += 1
        end = content.find(b"\n", start)
        end = size if end == -1 else end
        cut = end - start > max_line_bytes
        yield lineno, content[start : min(end, start + max_line_bytes)].rstrip(b"\r"), cut
        start = end + 1


# A clean file: only "id,label" lines (ASCII digits, label 0-4, LF or CRLF, the last ending optional).
_CLEAN_LINES = re.compile(rb"(?:[0-9]{1,%d},[0-4]\r?\n)*[0-9]{1,%d},[0-4]\r?\n?" % (MAX_DIGITS, MAX_DIGITS))
_CLEAN_PAIR = re.compile(rb"([0-9]+),([0-4])")


def _parse_clean(content: bytes, expected: Collection[int], limits: Limits) -> dict[int, int] | None:
    """The predictions of a clean file that answers every expected id exactly once, read by two regular
    expressions (about a tenth of the line-by-line reader's CPU); None for anything else, which the
    line-by-line reader then reads and explains. Whatever it accepts, that reader accepts with the
    same predictions in the same order (tests/recam/test_submission_fuzz.py)."""
    if limits.max_line_bytes < MAX_DIGITS + 3 or not _CLEAN_LINES.fullmatch(content):
        return None
    pairs = _CLEAN_PAIR.findall(content)
    if len(pairs) > limits.max_lines(len(expected)):
        return None
    predictions = {int(qid): int(label) for qid, label in pairs}
    if len(predictions) != len(pairs) or predictions.keys() != expected:
        return None  # an id twice, an unknown or a missing id: the reader names them
    return predictions


def _parse_csv(
    content: bytes, name: str, expected: Collection[int], limits: Limits
) -> tuple[dict[int, int], list[Problem]]:
    """Read at most the phase's question count plus a margin of lines, and stop at the problem cap:
    the work is bounded by the test set's size, not by the file's. A clean file takes a fast path."""
    expected_set = expected if isinstance(expected, set | frozenset) else set(expected)
    clean = _parse_clean(content, expected_set, limits)
    if clean is not None:
        return clean, []
    return _parse_csv_lines(content, name, expected_set, limits)


def _parse_csv_lines(
    content: bytes, name: str, expected: Collection[int], limits: Limits
) -> tuple[dict[int, int], list[Problem]]:
    """The line-by-line reader: every problem with its line."""
    problems: list[Problem] = []
    line_problems = 0

    def report(message: str, line: int) -> None:
        nonlocal line_problems
        line_problems += 1
        problems.append(Problem(name, message, line))

    if content.startswith(b"\xef\xbb\xbf"):
        problems.append(Problem(name, "starts with a byte-order mark (BOM); save it as UTF-8 without BOM", 1))
        content = content[3:]
    if not content.strip():
        return {}, [*problems, Problem(name, "the file is empty")]
    predictions: dict[int, int] = {}
    first_line: dict[int, int] = {}
    expected_set = expected if isinstance(expected, set | frozenset) else set(expected)
    max_lines = limits.max_lines(len(expected_set))
    for lineno, raw, cut in iter_lines(content, limits.max_line_bytes):
        if lineno > max_lines:
            problems.append(_too_many_lines(name, lineno, len(expected_set), limits))
            return predictions, problems
        if line_problems >= limits.max_line_problems:
            problems.append(Problem(name, f"reading stopped here after {line_problems} problems", lineno))
            return predictions, problems
        if not raw.strip() and not cut:
            continue
        problem = None
        if not cut or b"," in raw:  # a head without its comma says nothing about the fields
            problem = _take_line(raw, lineno, name, expected_set, predictions, first_line, cut=cut)
        if problem is None and cut:
            problem = f"the line is longer than {limits.max_line_bytes} bytes: not an 'id,label' line"
        if problem is not None:
            report(problem, lineno)
    missing = sorted(set(expected_set) - set(first_line))
    if missing:
        first = ", ".join(str(i) for i in missing[:5])
        problems.append(
            Problem(
                name, f"{len(missing):,} of {len(expected_set):,} ids have no prediction (first: {first})"
            )
        )
    return predictions, problems


def _take_line(
    raw: bytes,
    lineno: int,
    name: str,
    expected: Collection[int],
    predictions: dict[int, int],
    first_line: dict[int, int],
    *,
    cut: bool = False,
) -> str | None:
    """Record one line's prediction; return its problem, if any. A ``cut`` line (its head only) is
    checked but never recorded: its id counts as answered, its problem is the one its head shows."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"
    qid, label, problem = _parse_line(line, lineno)
    if qid is not None:
        if qid in first_line:
            return f"id {qid} appears again (first on line {first_line[qid]})"
        first_line[qid] = lineno  # a bad label still answers this id: it is not also "missing"
        if qid not in expected:
            return f"unknown id {qid}: not in this phase's Subtask {SUBMISSION_FILES[name]} test set"
    if problem is not None or cut:
        return problem
    predictions[qid] = label
    return None


def _too_many_lines(name: str, lineno: int, questions: int, limits: Limits) -> Problem:
    return Problem(
        name,
        f"more than {limits.max_lines(questions):,} lines: this phase's Subtask {SUBMISSION_FILES[name]} "
        f"test set has {questions:,} questions (one line each); reading stopped here",
        lineno,
    )


def _parse_line(line: str, lineno: int) -> tuple[int | None, int | None, str | None]:
    """Return (id, label, problem): the id whenever it parses, the label or the problem with the line."""
    fields = [f.strip() for f in line.split(",")]
    if len(fields) != 2:
        return (
            None,
            None,
            f"expected two comma-separated fields 'id,label', got {len(fields)} in {_shown(line)}",
        )
    qid, label = fields
    if lineno == 1 and not _INT.match(qid) and not _INT.match(label):
        return None, None, f"header row {_shown(line)}: the file must have no header; remove this line"
    if not _INT.match(qid):
        return None, None, f"id {_shown(qid)} is not an integer"
    if _too_long(qid):
        return None, None, f"id {_shown(qid)} has more than {MAX_DIGITS} digits: not an id of this test set"
    if not _INT.match(label):
        if label.replace("-", "").replace(" ", "").isalpha():
            return (
                int(qid),
                None,
                f"label {_shown(label)} is written as a word: give the option's index 0-4 instead",
            )
        return int(qid), None, f"label {_shown(label)} is not an integer 0-4"
    if _too_long(label):
        return int(qid), None, f"label {_shown(label)} is out of range: labels are 0-4"
    if not 0 <= int(label) < NUM_OPTIONS:
        return int(qid), None, f"label {int(label)} is out of range: labels are 0-4"
    return int(qid), int(label), None


def _too_long(digits: str) -> bool:
    return len(digits.lstrip("+-")) > MAX_DIGITS


def _shown(text: str) -> str:
    """A field as it appears in a problem: quoted, and cut to 40 characters."""
    return repr(text if len(text) <= 40 else text[:37] + "...")


def format_predictions(predictions: Mapping[int, int]) -> str:
    """The official file body for one subtask: ``id,label`` lines in id order, no header."""
    return "".join(f"{qid},{label}\n" for qid, label in sorted(predictions.items()))


def write_predictions(path: str | Path, predictions: Mapping[int, int]) -> None:
    Path(path).write_text(format_predictions(predictions), encoding="utf-8", newline="\n")


def make_zip(files: Mapping[str, bytes | str]) -> bytes:
    """A submission zip holding the given ``{name: content}`` at its root; the same files give the same
    bytes (entries carry a fixed timestamp, not the current time)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for entry, content in files.items():
            info = zipfile.ZipInfo(entry, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, content)
    return buffer.getvalue()


def ids_digest(ids: Collection[int]) -> str:
    """The sha256 of the ids sorted and comma-separated: names the order a choices string follows.

    >>> ids_digest([2, 10, 1]) == sha256_hex(b"1,2,10")
    True
    """
    return sha256_hex(",".join(map(str, sorted(ids))).encode())


def predictions_to_choices(predictions: Mapping[int, int]) -> str:
    """A validated file's labels (0-4) as one digit per id, ids sorted: the form scoring reads back.

    >>> predictions_to_choices({7: 4, 2: 0, 5: 3})
    '034'
    """
    return "".join(str(predictions[qid]) for qid in sorted(predictions))


def choices_to_predictions(choices: str, ids: Collection[int]) -> dict[int, int]:
    """The inverse of ``predictions_to_choices`` for the same ids.

    >>> choices_to_predictions("034", [5, 2, 7])
    {2: 0, 5: 3, 7: 4}
    """
    ordered = sorted(ids)
    if len(ordered) != len(choices):
        raise ValueError(f"{len(choices)} choices for {len(ordered)} ids")
    return dict(zip(ordered, map(int, choices), strict=True))
