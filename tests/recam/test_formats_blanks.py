"""The multi-blank prediction file: every problem with its file and line, in the ReCAM parser's words."""

import pytest

from recam.formats.blanks import (
    Slots,
    blank_correctness,
    format_blank_predictions,
    parse_blank_predictions,
    write_blank_predictions,
)
from recam.submission_types import Limits, Problem, SubmissionError

DEFAULT = Limits()
EXPECTED = {0: Slots(blanks=2, choices=4), 5: Slots(blanks=1, choices=7)}
GOOD = "0,1,3\n0,2,0\n5,1,6\n"


def problems(text: str | bytes, filename: str = "preds.csv", limits: Limits = DEFAULT) -> tuple[Problem, ...]:
    data = text.encode() if isinstance(text, str) else text
    with pytest.raises(SubmissionError) as info:
        parse_blank_predictions(data=data, filename=filename, expected=EXPECTED, limits=limits)
    return info.value.problems


def only(found: tuple[Problem, ...]) -> tuple[int | None, str]:
    assert len(found) == 1, found
    assert found[0].file == "preds.csv"
    return found[0].line, found[0].message


def test_a_valid_file_with_crlf_parses():
    parsed = parse_blank_predictions(
        data=GOOD.replace("\n", "\r\n").encode(), filename="preds.csv", expected=EXPECTED
    )
    assert parsed == {(0, 1): 3, (0, 2): 0, (5, 1): 6}


def test_write_then_parse_round_trips(tmp_path):
    predictions = {(5, 1): 6, (0, 2): 0, (0, 1): 3}
    assert format_blank_predictions(predictions) == GOOD
    write_blank_predictions(tmp_path / "preds.csv", predictions)
    data = (tmp_path / "preds.csv").read_bytes()
    assert parse_blank_predictions(data=data, filename="preds.csv", expected=EXPECTED) == predictions


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("0,1", "expected three comma-separated fields 'id,blank,label', got 2 in '0,1'"),
        ("x,1,2", "id 'x' is not an integer"),
        ("0,b,2", "blank 'b' is not an integer"),
        ("9,1,2", "unknown id 9: not a passage of this test set"),
        ("0,3,2", "passage 0 has blanks 1-2; there is no blank 3"),
        ("0,0,2", "passage 0 has blanks 1-2; there is no blank 0"),
        ("0,2,4", "label 4 is out of range: labels of passage 0 are 0-3"),
        (
            "0,2,B",
            "label 'B' is written as a word or letter: give the option's index instead (labels of passage 0 are 0-3)",
        ),
        ("0,2,1.5", "label '1.5' is not an integer (labels of passage 0 are 0-3)"),
        ("0,2," + "9" * 30, "is out of range: labels of passage 0 are 0-3"),
    ],
)
def test_a_bad_line_is_reported_at_its_line(line, expected):
    rows = GOOD.splitlines()
    rows[1] = line  # line 2; a bad label still answers its blank, a bad key leaves it missing
    found = problems("\n".join(rows) + "\n")
    assert (found[0].line, found[0].file) == (2, "preds.csv")
    assert expected in found[0].message
    if not line.startswith("0,2,"):
        assert "1 of 3 blanks have no prediction (first: id 0 blank 2)" in found[-1].message


def test_header_bom_repeat_and_missing():
    assert only(problems("id,blank,label\n" + GOOD)) == (
        1,
        "header row 'id,blank,label': the file must have no header; remove this line",
    )
    assert only(problems(b"\xef\xbb\xbf" + GOOD.encode()))[1].startswith("starts with a byte-order mark")
    assert only(problems(GOOD + "0,1,2\n")) == (4, "id 0 blank 1 appears again (first on line 1)")
    assert only(problems("0,1,3\n")) == (
        None,
        "2 of 3 blanks have no prediction (first: id 0 blank 2, id 5 blank 1)",
    )


def test_not_utf8_empty_and_not_csv():
    assert only(problems(GOOD.encode() + b"0,2,\xff\n"))[1] == "not UTF-8 text (byte 0xff at column 5)"
    assert only(problems("")) == (None, "the file is empty")
    found = problems(GOOD, filename="preds.zip")
    assert found == (Problem("preds.zip", "not a CSV file: upload the predictions as one .csv file"),)


def test_line_problems_are_capped_and_summarised():
    bad = "".join(f"x{i},1,1\n" for i in range(8))
    found = problems(GOOD + bad, limits=Limits(max_line_problems=3))
    assert [p.line for p in found[:3]] == [4, 5, 6]
    assert found[3].message == "... and 5 more line problems"


def test_correctness_vector_orders_passages_by_id_then_blank():
    gold = {5: (6,), 0: (3, 1)}
    vector = blank_correctness(predictions={(0, 1): 3, (0, 2): 0, (5, 1): 6}, gold=gold)
    assert vector.tolist() == [1, 0, 1]


def test_a_file_of_millions_of_lines_is_read_only_up_to_the_blanks_plus_a_margin():
    """A small test set bounds the work: reading stops after the blanks plus the margin (blank lines count)."""
    limits = Limits()
    data = b"7,1,3\n" + b"\n" * 2_000_000 + b"7,2,0\n"
    with pytest.raises(SubmissionError) as error:
        parse_blank_predictions(data=data, filename="p.csv", expected={7: Slots(2, 4)}, limits=limits)
    problems = error.value.problems
    assert problems[-1].line == limits.max_lines(2) + 1
    assert "reading stopped here" in problems[-1].message
