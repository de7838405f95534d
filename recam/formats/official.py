"""Readers for the published CLOTH and SCDE files, converting them to this project's records.

- CLOTH (Xie et al., 2018) ships one JSON object per passage file (``train/high/high0.json``, ...):
  ``{"article": "... _ ...", "options": [[4 words], ...], "answers": ["A".."D", ...], "source": ...}``.
  :func:`load_cloth_official` reads one such file or every ``*.json`` under a folder (sorted by path);
  passage ids are 0, 1, 2, ... in that order. A bad file raises ValueError naming it and the field.
- SCDE (Kong et al., 2020) ships one JSON array per split (``train.json``, ``dev.json``, ``test.json``)
  of ``{"eid", "passage": [sentences with "<1>", "<2>", ...], "candidates": [...], "answer_sequence":
  [[letter, candidate index], ...], "number_of_blanks", "candidate_length"}`` (the layout the SCDE
  repository's feature extractor reads; it takes the index as the pair's second element). A jsonl file
  of the same objects is read too. :func:`load_scde_official` applies SCDE's cleaning rules and drops a
  passage that breaks one, reporting where and why; passage ids are the positions in the file.
"""

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from recam.formats.cloth import ClothPassage, cloth_from_json
from recam.formats.scde import ScdePassage, passage_key, passage_problems, scde_from_json
from recam.records import iter_jsonl

LETTERS = "ABCD"


@dataclass(frozen=True)
class Dropped:
    where: str
    reason: str

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


@dataclass(frozen=True)
class Loaded:
    passages: tuple
    sources: tuple[str, ...]  # where each passage came from (file, or file and position)
    dropped: tuple[Dropped, ...] = ()


def _read_json(path: Path) -> object:
    text = path.read_text(encoding="utf-8-sig")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise ValueError(f"{path}: JSON nested too deeply to read") from None


def _cloth_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise ValueError(f"{path}: no such file or folder")
    files = sorted(path.rglob("*.json"))
    if not files:
        raise ValueError(f"{path}: the folder holds no .json file")
    return files


def cloth_official_record(record: object, *, where: str) -> dict:
    """One official CLOTH object as a CLOTH-format record (answers as indexes 0-3)."""
    if not isinstance(record, dict):
        raise ValueError(f"{where}: expected a JSON object, got {type(record).__name__}")
    missing = [k for k in ("article", "options", "answers") if k not in record]
    if missing:
        raise ValueError(f"{where}: missing field(s) {', '.join(missing)}")
    answers = record["answers"]
    if not isinstance(answers, list):
        raise ValueError(f"{where}: field 'answers' must be a list of letters A-D")
    indexes = []
    for i, letter in enumerate(answers):
        if not isinstance(letter, str) or letter.strip().upper() not in set(LETTERS):
            raise ValueError(f"{where}: answers[{i}] (blank {i + 1}) must be a letter A-D, got {letter!r}")
        indexes.append(LETTERS.index(letter.strip().upper()))
    return {"article": record["article"], "options": record["options"], "answers": indexes}


def load_cloth_official(path: str | Path) -> Loaded:
    """Read an official CLOTH file, or every ``*.json`` under a folder, as CLOTH-format passages."""
    root = Path(path)
    passages: list[ClothPassage] = []
    sources = []
    for index, file in enumerate(_cloth_files(root)):
        where = str(file)
        record = cloth_official_record(_read_json(file), where=where)
        passages.append(cloth_from_json({**record, "id": index}, default_id=index, where=where))
        sources.append(where)
    return Loaded(passages=tuple(passages), sources=tuple(sources))


def _scde_objects(path: Path) -> Iterator[tuple[str, object]]:
    """(where, object) for each passage of an SCDE JSON array or jsonl file."""
    if not path.is_file():
        raise ValueError(f"{path}: no such file")
    with path.open(encoding="utf-8-sig") as handle:
        head = handle.read(1024).lstrip()
    if head.startswith("["):
        data = _read_json(path)
        for index, record in enumerate(data):
            eid = record.get("eid") if isinstance(record, dict) else None
            yield f"{path}: passage {index}" + ("" if eid is None else f" (eid {eid!r})"), record
    else:
        if head.startswith("{") and _one_object(path):
            raise ValueError(f"{path}: one JSON object; an SCDE split is a JSON array of passages, or jsonl")
        with path.open(encoding="utf-8-sig", newline=None) as handle:
            yield from iter_jsonl(handle, source=str(path))


def _one_object(path: Path) -> bool:
    """Whether the whole file is a single JSON object (a CLOTH file, say), not jsonl."""
    try:
        return isinstance(json.loads(path.read_text(encoding="utf-8-sig")), dict)
    except (json.JSONDecodeError, RecursionError):
        return False  # jsonl: several objects, one per line (each is checked as it is read)


def scde_official_record(record: object) -> tuple[dict | None, list[str]]:
    """One official SCDE object as an SCDE-format record, or None and the rules it breaks."""
    if not isinstance(record, dict):
        return None, [f"expected a JSON object, got {type(record).__name__}"]
    missing = [k for k in ("passage", "candidates", "answer_sequence") if record.get(k) is None]
    if missing:
        return None, [f"missing field(s) {', '.join(missing)}"]
    answers, problems = [], []
    sequence = record["answer_sequence"]
    for i, entry in enumerate(sequence if isinstance(sequence, list) else []):
        index = entry[1] if isinstance(entry, list) and len(entry) == 2 else entry
        if isinstance(index, bool) or not isinstance(index, int):
            problems.append(f"answer_sequence[{i}]: expected [letter, candidate index], got {entry!r}")
        answers.append(index)
    if not isinstance(sequence, list):
        problems.append("answer_sequence: must be a list of [letter, candidate index] pairs")
    candidates = record["candidates"]
    found = passage_problems(sentences=record["passage"], candidates=candidates, answers=answers)
    problems += [p.replace("answers", "answer_sequence", 1) if p.startswith("answers") else p for p in found]
    declared = record.get("candidate_length")
    if isinstance(candidates, list) and isinstance(declared, int) and declared != len(candidates):
        problems.append(f"candidates: candidate_length says {declared} but the list holds {len(candidates)}")
    if problems:
        return None, problems
    return {"passage": record["passage"], "candidates": candidates, "answers": answers}, []


def load_scde_official(path: str | Path, *, strict: bool = False) -> Loaded:
    """Read an official SCDE split, dropping (or with ``strict``, refusing) passages that break a rule."""
    passages: list[ScdePassage] = []
    sources, dropped = [], []
    seen: dict[str, str] = {}
    for index, (where, record) in enumerate(_scde_objects(Path(path))):
        converted, problems = scde_official_record(record)
        if converted is not None:
            key = passage_key(converted["passage"])
            if key in seen:
                problems = [f"duplicate passage (the same text as {seen[key]})"]
            else:
                seen[key] = where
        if problems:
            if strict:
                raise ValueError(f"{where}: {problems[0]}")
            dropped.append(Dropped(where, "; ".join(problems)))
            continue
        passages.append(scde_from_json({**converted, "id": index}, default_id=index, where=where))
        sources.append(where)
    return Loaded(passages=tuple(passages), sources=tuple(sources), dropped=tuple(dropped))
