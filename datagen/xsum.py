"""Read XSum-format pairs: one ``{"id", "document", "summary"}`` JSON object per line.

Bad lines (not JSON, not an object, a missing or empty ``document``/``summary``) are reported with
their line number and skipped; they never stop the run.
"""

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Pair:
    id: str
    document: str
    summary: str
    line: int


@dataclass(frozen=True)
class BadLine:
    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


def _pair(record: object, lineno: int) -> Pair:
    if not isinstance(record, dict):
        raise ValueError(f"expected a JSON object, got {type(record).__name__}")
    for key in ("document", "summary"):
        if key not in record:
            raise ValueError(f"missing field {key!r}")
        if not isinstance(record[key], str) or not record[key].strip():
            raise ValueError(f"field {key!r} must be a non-empty string")
    raw_id = record.get("id")
    pair_id = f"line{lineno}" if raw_id is None or str(raw_id).strip() == "" else str(raw_id).strip()
    return Pair(id=pair_id, document=record["document"], summary=record["summary"].strip(), line=lineno)


def parse_pairs(lines: Iterable[str]) -> tuple[list[Pair], list[BadLine]]:
    """Parse jsonl lines into pairs; blank lines are ignored, bad ones collected with their number."""
    pairs: list[Pair] = []
    bad: list[BadLine] = []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            pairs.append(_pair(json.loads(line), lineno))
        except json.JSONDecodeError as error:
            bad.append(BadLine(line=lineno, message=f"not JSON ({error.msg} at column {error.colno})"))
        except ValueError as error:
            bad.append(BadLine(line=lineno, message=str(error)))
    return pairs, bad


def read_pairs(*, path: Path) -> tuple[list[Pair], list[BadLine]]:
    """Read a pairs file; see ``parse_pairs``. Undecodable bytes are replaced, not fatal."""
    with Path(path).open(encoding="utf-8", errors="replace") as handle:
        return parse_pairs(handle)
