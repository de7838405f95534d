"""The types of an uploaded submission: limits, problems (file and line), the error, the parsed result."""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

SUBMISSION_FILES = {"subtask1.csv": 1, "subtask2.csv": 2}


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 10 * 1024 * 1024  # the upload itself
    max_entries: int = 100  # entries in a zip
    max_uncompressed_bytes: int = 50 * 1024 * 1024  # all entries together, as actually read
    max_line_problems: int = 50  # per file; reading stops at the next one
    # A prediction file holds one line per test question: at most the phase's question count plus this
    # margin (blank lines count) is read, and no line is longer than max_line_bytes.
    line_margin: int = 1000
    max_line_bytes: int = 200

    def max_lines(self, questions: int) -> int:
        return questions + self.line_margin

    def max_file_bytes(self, questions: int) -> int:
        """The most a prediction file for ``questions`` questions can unpack to (each line and its end)."""
        return self.max_lines(questions) * (self.max_line_bytes + 2)


@dataclass(frozen=True)
class Problem:
    file: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}, line {self.line}"
        return f"{where}: {self.message}"


class SubmissionError(ValueError):
    """The upload is invalid; ``problems`` lists every problem found."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


@dataclass(frozen=True)
class PredictionFile:
    name: str
    subtask: int
    sha256: str
    predictions: Mapping[int, int] = field(repr=False)


@dataclass(frozen=True)
class ParsedSubmission:
    sha256: str
    files: tuple[PredictionFile, ...]

    @property
    def subtasks(self) -> tuple[int, ...]:
        return tuple(f.subtask for f in self.files)


def size_text(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MiB" if n >= 1024 * 1024 else f"{n:,} bytes"
