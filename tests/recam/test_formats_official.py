"""The published CLOTH and SCDE layouts, read from small hand-made files in those layouts."""

import json
from pathlib import Path

import pytest

from recam.formats.official import load_cloth_official, load_scde_official

FIXTURES = Path(__file__).parent / "fixtures"
CLOTH_DIR = FIXTURES / "cloth_official"
SCDE_DEV = FIXTURES / "scde_official" / "dev.json"


def test_a_cloth_folder_reads_every_passage_file_in_path_order():
    loaded = load_cloth_official(CLOTH_DIR)
    assert [Path(s).name for s in loaded.sources] == ["high0001.json", "middle0001.json"]
    first, second = loaded.passages
    assert (first.id, first.answers, second.answers) == (0, (1, 3, 0), (1, 1, 2))
    assert first.options[0] == ("swam", "went", "wrote", "slept")
    assert "he went to the shop" in first.filled()
    assert second.filled().endswith("everybody felt warm and happy .")


def write_cloth(tmp_path, **change) -> Path:
    record = json.loads((CLOTH_DIR / "middle" / "middle0001.json").read_text()) | change
    path = tmp_path / "middle0002.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"answers": ["B", "E", "C"]}, "answers[1] (blank 2) must be a letter A-D, got 'E'"),
        ({"answers": ["B", "AB", "C"]}, "answers[1] (blank 2) must be a letter A-D, got 'AB'"),
        (
            {"options": [["a", "b", "c", "d"], ["a", "b", "c"], ["a", "b", "c", "d"]]},
            "options[1] (blank 2) must hold exactly 4 options, got 3",
        ),
        ({"answers": ["B", "B"]}, "'answers' must hold one answer per blank (3), got 2"),
        (
            {"article": "No blanks at all ."},
            "the article has 0 blank(s) ('_') but 'options' has 3 option list(s)",
        ),
    ],
)
def test_a_bad_cloth_file_is_named_with_its_field(tmp_path, change, expected):
    path = write_cloth(tmp_path, **change)
    with pytest.raises(ValueError, match=r"middle0002\.json: ") as info:
        load_cloth_official(path)
    assert str(info.value) == f"{path}: {expected}"


def test_cloth_json_errors_name_the_line(tmp_path):
    path = tmp_path / "high9.json"
    path.write_text('{\n  "article": "x _",\n  "options": [[1,2,3,4]\n}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"high9.json:4: not valid JSON"):
        load_cloth_official(path)


def test_cloth_folder_without_json_files_is_refused(tmp_path):
    with pytest.raises(ValueError, match=f"{tmp_path}: the folder holds no .json file"):
        load_cloth_official(tmp_path)
    with pytest.raises(ValueError, match="no such file or folder"):
        load_cloth_official(tmp_path / "missing")


def test_scde_keeps_clean_passages_and_reports_each_cleaning_rule():
    loaded = load_scde_official(SCDE_DEV)
    assert [p.id for p in loaded.passages] == [0, 1]
    first, second = loaded.passages
    assert (first.answers, first.distractors) == ((1, 0), (2, 3))
    assert (second.blanks, second.answers, len(second.candidates)) == (3, (1, 0, 3), 5)
    reasons = {d.where.split(": ", 1)[1]: d.reason for d in loaded.dropped}
    assert reasons == {
        "passage 2 (eid 103)": f"duplicate passage (the same text as {SCDE_DEV}: passage 0 (eid 101))",
        "passage 3 (eid 104)": "answer_sequence[0]: 4 points to no candidate (blank 1; candidates are 0-1)",
        "passage 4 (eid 105)": "candidates[1]: missing or empty candidate",
        "passage 5 (eid 106)": "passage: 2 blanks but only 1 candidates; answer_sequence: candidate 0 answers more than one blank",
    }


def test_scde_strict_refuses_the_first_bad_passage():
    with pytest.raises(ValueError, match=r"dev.json: passage 2 \(eid 103\): duplicate passage"):
        load_scde_official(SCDE_DEV, strict=True)


def test_scde_jsonl_files_are_read_with_line_numbers(tmp_path):
    records = json.loads(SCDE_DEV.read_text())
    path = tmp_path / "dev.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records[:2] + records[3:4]), encoding="utf-8")
    loaded = load_scde_official(path)
    assert len(loaded.passages) == 2
    assert [str(d).split(": ", 1)[0] for d in loaded.dropped] == [f"{path}:3"]


def test_scde_answer_pairs_must_hold_an_index(tmp_path):
    record = json.loads(SCDE_DEV.read_text())[0] | {"answer_sequence": [["B", "one"], ["A", 0]]}
    path = tmp_path / "dev.json"
    path.write_text(json.dumps([record]), encoding="utf-8")
    [dropped] = load_scde_official(path).dropped
    assert dropped.reason.startswith(
        "answer_sequence[0]: expected [letter, candidate index], got ['B', 'one']"
    )


def test_scde_refuses_a_single_json_object_with_a_reason():
    with pytest.raises(ValueError, match=r"high0001\.json: one JSON object; an SCDE split is a JSON array"):
        load_scde_official(CLOTH_DIR / "high" / "high0001.json")
