"""ReCAM starting kit: predict every question of the downloaded test files and write a valid upload.

    python make_submission.py subtask1.jsonl [subtask2.jsonl] --out submission.zip
    python make_submission.py subtask1.jsonl --predictions my_labels.txt --out submission.zip

Without --predictions it runs a tiny baseline (the option that occurs most often in the article; ties go
to the lowest option number). With --predictions, give one label (0-4) per line in the same order as
the questions of the (single) jsonl file. The output zip holds subtask1.csv and/or subtask2.csv: no
header, one ``id,label`` line per question, id = the question's "id" field (its 0-based line number
in the file), label 0-4. Every question needs a line; the score is accuracy (correct / total).
Standard library only (Python 3.8+).
"""

import argparse
import json
import re
import sys
import zipfile
from pathlib import Path


def read_questions(path: Path) -> list[dict]:
    questions = []
    with path.open(encoding="utf-8") as handle:
        for lineno, line in enumerate(handle):
            if line.strip():
                record = json.loads(line)
                record.setdefault("id", lineno)
                questions.append(record)
    return questions


def baseline(question: dict) -> int:
    words = re.findall(r"\w+", question["article"].lower())
    counts = [words.count(question[f"option_{i}"].lower()) for i in range(5)]
    return max(range(5), key=lambda i: (counts[i], -i))


def subtask_of(path: Path) -> int:
    match = re.search(r"(?:subtask|task)_?([12])", path.name.lower())
    if not match:
        sys.exit(f"{path}: cannot tell the subtask from the file name (expected subtask1 or subtask2 in it)")
    return int(match.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("questions", nargs="+", type=Path, help="subtask1.jsonl and/or subtask2.jsonl")
    parser.add_argument("--predictions", type=Path, help="one label 0-4 per line (single jsonl only)")
    parser.add_argument("--out", type=Path, default=Path("submission.zip"))
    args = parser.parse_args(argv)
    if args.predictions and len(args.questions) != 1:
        parser.error("--predictions works with one questions file")
    files = {}
    for path in args.questions:
        questions = read_questions(path)
        if args.predictions:
            labels = [int(x) for x in args.predictions.read_text().split()]
            if len(labels) != len(questions) or any(not 0 <= x <= 4 for x in labels):
                sys.exit(f"{args.predictions}: need {len(questions)} labels 0-4, got {len(labels)}")
        else:
            labels = [baseline(q) for q in questions]
        lines = sorted((int(q["id"]), label) for q, label in zip(questions, labels, strict=False))
        files[f"subtask{subtask_of(path)}.csv"] = "".join(f"{qid},{label}\n" for qid, label in lines)
    with zipfile.ZipFile(args.out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, body in files.items():
            archive.writestr(name, body)
    print(f"wrote {args.out}: " + ", ".join(f"{n} ({b.count(chr(10))} lines)" for n, b in files.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
