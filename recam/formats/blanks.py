"""The prediction file of the multi-blank formats (CLOTH, SCDE): one ``id,blank,label`` line per blank.

No header; ``id`` is the passage id, ``blank`` the blank's number in the passage (1, 2, ... in reading
order: SCDE's ``<1>``, ``<2>``, ...), ``label`` the index of the chosen option (CLOTH: 0-3 among the
blank's own options; SCDE: 0 to |C|-1 among the passage's shared candidates). CRLF endings are fine.
Every problem is listed with the file and line, in the words of the ReCAM parser (``recam.submission``).
"""

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import numpy as np

from recam.submission import iter_lines
from recam.submission_types import Limits, Problem, SubmissionError, size_text

BlankKey = tuple[int, int]  # (passage id, blank number from 1)
_INT = re.compile(r"^[+-]?\d+$")
MAX_DIGITS = 18  # as recam.submission: no id needs more, and int() refuses very long digit strings
DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class Slots:
    """What a passage's predictions must cover: its number of blanks and of choices per blank."""

    blanks: int
    choices: int


def parse_blank_predictions(
    *, data: bytes, filename: str, expected: Mapping[int, Slots], limits: Limits = DEFAULT_LIMITS
) -> dict[BlankKey, int]:
    """Validate a bare ``id,blank,label`` CSV against the passages' slots; raise SubmissionError listing all.

    >>> parse_blank_predictions(data=b"7,1,3\\n7,2,0\\n", filename="p.csv", expected={7: Slots(2, 4)})
    {(7, 1): 3, (7, 2): 0}
    >>> parse_blank_predictions(data=b"7,1,4\\n", filename="p.csv", expected={7: Slots(1, 4)})
    Traceback (most recent call last):
    ...
    recam.submission_types.SubmissionError: p.csv, line 1: label 4 is out of range: labels of passage 7 are 0-3
    """
    name = PurePosixPath(filename.replace("\\", "/")).name or "upload"
    if not data:
        raise SubmissionError([Problem(name, "the file is empty")])
    if len(data) > limits.max_bytes:
        too_large = f"the file is {size_text(len(data))}, over the limit of {size_text(limits.max_bytes)}"
        raise SubmissionError([Problem(name, too_large)])
    if data[:4] == b"PK\x03\x04" or not name.lower().endswith(".csv"):
        raise SubmissionError([Problem(name, "not a CSV file: upload the predictions as one .csv file")])
    predictions, problems = _parse(data, name, expected, limits)
    if problems:
        raise SubmissionError(problems)
    return predictions


def _parse(
    content: bytes, name: str, expected: Mapping[int, Slots], limits: Limits
) -> tuple[dict[BlankKey, int], list[Problem]]:
    problems: list[Problem] = []
    counted = 0

    def report(message: str, line: int) -> None:
        nonlocal counted
        counted += 1
        if counted <= limits.max_line_problems:
            problems.append(Problem(name, message, line))

    if content.startswith(b"\xef\xbb\xbf"):
        problems.append(Problem(name, "starts with a byte-order mark (BOM); save it as UTF-8 without BOM", 1))
        content = content[3:]
    if not content.strip():
        return {}, [*problems, Problem(name, "the file is empty")]
    predictions: dict[BlankKey, int] = {}
    first_line: dict[BlankKey, int] = {}
    max_lines = limits.max_lines(sum(slots.blanks for slots in expected.values()))
    for lineno, line in _lines(content, report, limits, max_lines):
        if line is None:
            problems.append(
                Problem(
                    name,
                    f"more than {max_lines:,} lines: the test set has one line per blank; reading stopped here",
                    lineno,
                )
            )
            return predictions, problems
        key, label, problem = _parse_line(line, lineno, expected)
        if key is not None:
            if key in first_line:
                report(f"id {key[0]} blank {key[1]} appears again (first on line {first_line[key]})", lineno)
                continue
            first_line[key] = lineno  # a bad label still answers this blank: it is not also "missing"
        if problem is not None:
            report(problem, lineno)
            continue
        predictions[key] = label
    if counted > limits.max_line_problems:
        problems.append(Problem(name, f"... and {counted - limits.max_line_problems:,} more line problems"))
    missing = [key for key in expected_keys(expected) if key not in first_line]
    if missing:
        first = ", ".join(f"id {pid} blank {blank}" for pid, blank in missing[:5])
        total = sum(slots.blanks for slots in expected.values())
        problems.append(
            Problem(name, f"{len(missing):,} of {total:,} blanks have no prediction (first: {first})")
        )
    return predictions, problems


def _lines(content: bytes, report, limits: Limits, max_lines: int) -> Iterator[tuple[int, str | None]]:
    """Non-blank lines, one at a time and each cut at the line limit (``recam.submission.iter_lines``);
    ``(lineno, None)`` once the file has more than ``max_lines`` lines (blank lines count)."""
    for lineno, raw, cut in iter_lines(content, limits.max_line_bytes):
        if lineno > max_lines:
            yield lineno, None
            return
        if cut:
            report(f"the line is longer than {limits.max_line_bytes} bytes", lineno)
            continue
        if not raw.strip():
            continue
        try:
            yield lineno, raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            report(f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})", lineno)


def _parse_line(
    line: str, lineno: int, expected: Mapping[int, Slots]
) -> tuple[BlankKey | None, int | None, str | None]:
    """Return (key, label, problem): the key whenever it parses and names a blank, else the problem."""
    fields = [f.strip() for f in line.split(",")]
    if len(fields) != 3:
        return (
            None,
            None,
            f"expected three comma-separated fields 'id,blank,label', got {len(fields)} in {_shown(line)}",
        )
    pid, blank, label = fields
    if lineno == 1 and not any(_INT.match(f) for f in fields):
        return None, None, f"header row {_shown(line)}: the file must have no header; remove this line"
    for what, text in (("id", pid), ("blank", blank)):
        if not _INT.match(text):
            return None, None, f"{what} {_shown(text)} is not an integer"
        if _too_long(text):
            return (
                None,
                None,
                f"{what} {_shown(text)} has more than {MAX_DIGITS} digits: not in this test set",
            )
    key = (int(pid), int(blank))
    slots = expected.get(key[0])
    if slots is None:
        return None, None, f"unknown id {key[0]}: not a passage of this test set"
    if not 1 <= key[1] <= slots.blanks:
        return None, None, f"passage {key[0]} has blanks 1-{slots.blanks}; there is no blank {key[1]}"
    labels = f"labels of passage {key[0]} are 0-{slots.choices - 1}"
    if not _INT.match(label):
        if label.replace("-", "").replace(" ", "").isalpha():
            return (
                key,
                None,
                f"label {_shown(label)} is written as a word or letter: give the option's index instead ({labels})",
            )
        return key, None, f"label {_shown(label)} is not an integer ({labels})"
    if _too_long(label) or not 0 <= int(label) < slots.choices:
        return (
            key,
            None,
            f"label {_shown(label) if _too_long(label) else int(label)} is out of range: {labels}",
        )
    return key, int(label), None


def _too_long(digits: str) -> bool:
    return len(digits.lstrip("+-")) > MAX_DIGITS


def _shown(text: str) -> str:
    """A field as it appears in a problem: quoted, and cut to 40 characters."""
    return repr(text if len(text) <= 40 else text[:37] + "...")


def expected_keys(expected: Mapping[int, Slots]) -> list[BlankKey]:
    """Every (passage id, blank) of a test set, passages in id order, blanks in reading order."""
    return [(pid, blank) for pid in sorted(expected) for blank in range(1, expected[pid].blanks + 1)]


def gold_keys(gold: Mapping[int, tuple[int, ...]]) -> list[BlankKey]:
    return [(pid, blank) for pid in sorted(gold) for blank in range(1, len(gold[pid]) + 1)]


def passage_answers(passages: Iterable) -> dict[int, tuple[int, ...]]:
    """Passage id -> its answers (CLOTH's right options, SCDE's right candidates); every passage must have them."""
    result = {}
    for passage in passages:
        if passage.answers is None:
            raise ValueError(f"passage {passage.id} has no answers: it cannot be scored")
        result[passage.id] = passage.answers
    return result


def score_nested(
    accuracy: Callable, *, predictions: Mapping[BlankKey, int], passages: Iterable
) -> dict[str, float]:
    """A format's ``accuracy`` over (id, blank) -> label predictions; a blank without one counts as wrong."""
    answers = passage_answers(passages)
    return accuracy(
        predictions=nested(predictions, answers), references=[answers[p] for p in sorted(answers)]
    )


def nested(predictions: Mapping[BlankKey, int], gold: Mapping[int, tuple[int, ...]]) -> list[list[int]]:
    """Predictions per passage (id order) and blank; a missing prediction is -1 (it matches no label)."""
    return [[predictions.get((pid, b), -1) for b in range(1, len(gold[pid]) + 1)] for pid in sorted(gold)]


def blank_correctness(
    *, predictions: Mapping[BlankKey, int], gold: Mapping[int, tuple[int, ...]]
) -> np.ndarray:
    """0/1 vector over every blank (passages in id order, blanks in reading order): the items of the
    intervals and tied ranks (``recam.stats``), as ``recam.stats.correctness`` is for ReCAM questions."""
    keys = gold_keys(gold)
    flat = {(pid, b + 1): label for pid, labels in gold.items() for b, label in enumerate(labels)}
    return np.fromiter((predictions.get(k, -1) == flat[k] for k in keys), dtype=np.int8, count=len(keys))


def per_passage_means(*, correct: np.ndarray, blanks: Sequence[int]) -> np.ndarray:
    """The mean of each passage's stretch of a per-blank 0/1 vector (passages in id order, ``blanks`` each).

    SCDE's blank accuracy averages over passages: these are its bootstrap items, built from the stored
    per-blank vector and the test set's slots (``recam.formats.scde.vectors`` builds the same from the gold).

    >>> per_passage_means(correct=np.array([1, 0, 1, 1, 1]), blanks=[2, 3]).tolist()
    [0.5, 1.0]
    >>> per_passage_means(correct=np.array([1, 0]), blanks=[3])
    Traceback (most recent call last):
    ...
    ValueError: 2 blank results for passages of 3 blanks in all
    """
    sizes = np.asarray(blanks, dtype=np.int64)
    vector = np.asarray(correct, dtype=np.float64)
    if vector.ndim != 1 or int(sizes.sum()) != vector.size or np.any(sizes <= 0):
        raise ValueError(f"{vector.size} blank results for passages of {int(sizes.sum())} blanks in all")
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    return np.add.reduceat(vector, starts) / sizes  # Shape: (passages,)


def format_blank_predictions(predictions: Mapping[BlankKey, int]) -> str:
    """The file body: ``id,blank,label`` lines, passages in id order, blanks in order; no header."""
    return "".join(f"{pid},{blank},{label}\n" for (pid, blank), label in sorted(predictions.items()))


def write_blank_predictions(path: str | Path, predictions: Mapping[BlankKey, int]) -> None:
    Path(path).write_text(format_blank_predictions(predictions), encoding="utf-8", newline="\n")
