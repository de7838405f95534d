"""The upload parser: one test per error the platform issue lists, asserting the message, file and line."""

import io
import zipfile

import pytest

from recam.submission import Limits, Problem, SubmissionError, make_zip, parse_submission

IDS = {1: set(range(6)), 2: set(range(4))}
GOOD1 = "0,1\n1,4\n2,0\n3,3\n4,2\n5,2\n"
GOOD2 = "0,0\n1,1\n2,2\n3,3\n"
DEFAULT_LIMITS = Limits()


def problems(
    data: bytes, filename: str = "preds.zip", limits: Limits = DEFAULT_LIMITS
) -> tuple[Problem, ...]:
    with pytest.raises(SubmissionError) as info:
        parse_submission(data=data, filename=filename, expected_ids=IDS, limits=limits)
    return info.value.problems


def only(found: tuple[Problem, ...]) -> Problem:
    assert len(found) == 1, found
    return found[0]


def label_problems(data: bytes, filename: str) -> tuple[Problem, ...]:
    """A line with a bad label is reported at its line, and only there: its id does not also count as missing."""
    found = problems(data, filename=filename)
    assert len(found) == 1, found
    return found


def test_valid_zip_with_both_files_parses():
    parsed = parse_submission(
        data=make_zip({"subtask1.csv": GOOD1, "subtask2.csv": GOOD2}), filename="p.zip", expected_ids=IDS
    )
    assert parsed.subtasks == (1, 2)
    assert dict(parsed.files[0].predictions)[1] == 4


def test_crlf_line_endings_are_fine():
    parsed = parse_submission(
        data=GOOD1.replace("\n", "\r\n").encode(), filename="subtask1.csv", expected_ids=IDS
    )
    assert dict(parsed.files[0].predictions) == {0: 1, 1: 4, 2: 0, 3: 3, 4: 2, 5: 2}


def test_not_a_zip():
    problem = only(problems(b"hello, this is a word document", filename="preds.docx"))
    assert problem.file == "preds.docx"
    assert "not a zip file" in problem.message


def test_corrupt_zip():
    problem = only(problems(make_zip({"subtask1.csv": GOOD1})[:40], filename="preds.zip"))
    assert problem.file == "preds.zip"
    assert "not a valid zip archive" in problem.message


def test_nested_folder():
    problem = only(problems(make_zip({"results/subtask1.csv": GOOD1})))
    assert problem.file == "preds.zip/results/subtask1.csv"
    assert "inside the folder 'results/'" in problem.message
    assert "put subtask1.csv at the root of the zip" in problem.message


def test_header_row():
    problem = only(problems(make_zip({"subtask1.csv": "id,label\n" + GOOD1})))
    assert (problem.file, problem.line) == ("subtask1.csv", 1)
    assert "header row 'id,label'" in problem.message


def test_bom():
    problem = only(problems(b"\xef\xbb\xbf" + GOOD1.encode(), filename="subtask1.csv"))
    assert (problem.file, problem.line) == ("subtask1.csv", 1)
    assert "byte-order mark" in problem.message


def test_non_integer_label():
    problem = label_problems(GOOD1.replace("2,0", "2,0.5").encode(), filename="subtask1.csv")[0]
    assert (problem.file, problem.line) == ("subtask1.csv", 3)
    assert problem.message == "label '0.5' is not an integer 0-4"


def test_out_of_range_label():
    problem = label_problems(GOOD1.replace("3,3", "3,5").encode(), filename="subtask1.csv")[0]
    assert (problem.file, problem.line) == ("subtask1.csv", 4)
    assert problem.message == "label 5 is out of range: labels are 0-4"


def test_label_written_as_a_word():
    problem = label_problems(GOOD1.replace("4,2", "4,economy").encode(), filename="subtask1.csv")[0]
    assert (problem.file, problem.line) == ("subtask1.csv", 5)
    assert "label 'economy' is written as a word" in problem.message


def test_duplicate_id():
    problem = only(problems((GOOD1 + "2,1\n").encode(), filename="subtask1.csv"))
    assert (problem.file, problem.line) == ("subtask1.csv", 7)
    assert problem.message == "id 2 appears again (first on line 3)"


def test_missing_ids_give_count_and_first_few():
    problem = only(problems(b"0,1\n", filename="subtask1.csv"))
    assert (problem.file, problem.line) == ("subtask1.csv", None)
    assert problem.message == "5 of 6 ids have no prediction (first: 1, 2, 3, 4, 5)"


def test_unknown_id():
    problem = only(problems((GOOD1 + "99,1\n").encode(), filename="subtask1.csv"))
    assert (problem.file, problem.line) == ("subtask1.csv", 7)
    assert "unknown id 99" in problem.message


def test_empty_upload():
    problem = only(problems(b"", filename="preds.zip"))
    assert (problem.file, problem.message) == ("preds.zip", "the file is empty")


def test_empty_csv_inside_zip():
    problem = only(problems(make_zip({"subtask1.csv": ""})))
    assert (problem.file, problem.message) == ("subtask1.csv", "the file is empty")


def test_over_the_size_limit():
    problem = only(problems(GOOD1.encode() * 10, filename="subtask1.csv", limits=Limits(max_bytes=100)))
    assert problem.file == "subtask1.csv"
    assert "over the limit of 100 bytes" in problem.message


def _zip_with_entry(name: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(zipfile.ZipInfo(name), GOOD1)
    return buffer.getvalue()


def test_absolute_path_in_zip():
    found = problems(_zip_with_entry("/tmp/subtask1.csv"))
    assert any(p.file == "preds.zip//tmp/subtask1.csv" and "unsafe path" in p.message for p in found), found


def test_dotdot_path_in_zip():
    found = problems(_zip_with_entry("../subtask1.csv"))
    assert any(p.file == "preds.zip/../subtask1.csv" and "unsafe path" in p.message for p in found), found


def test_every_problem_is_listed_at_once():
    body = "id,label\n0,1\n0,2\n1,seven\n2,9\n"
    found = problems(make_zip({"subtask1.csv": body, "extra/subtask2.csv": GOOD2}))
    messages = [str(p) for p in found]
    assert len(found) == 6, messages
    assert {p.line for p in found if p.file == "subtask1.csv"} == {1, 3, 4, 5, None}


def test_bad_label_then_same_id_again_is_a_duplicate():
    found = problems((GOOD1 + "0,9\n").replace("0,1\n", "0,x1\n", 1).encode(), filename="subtask1.csv")
    assert [(p.line, p.message) for p in found] == [
        (1, "label 'x1' is not an integer 0-4"),
        (7, "id 0 appears again (first on line 1)"),
    ]


@pytest.mark.parametrize(
    ("digits", "message"),
    [(19, "has more than 18 digits"), (150, "has more than 18 digits"), (4301, "longer than 200 bytes")],
)
def test_an_id_with_thousands_of_digits_is_a_listed_problem(digits, message):
    """Red-team defect: int() of more than 4,300 digits raised ValueError out of the parser (a 500)."""
    body = GOOD1 + "9" * digits + ",1\n"
    problem = only(problems(body.encode(), filename="subtask1.csv"))
    assert (problem.file, problem.line) == ("subtask1.csv", 7)
    assert message in problem.message
    assert len(problem.message) < 120  # the field is cut, not echoed whole


@pytest.mark.parametrize("digits", [19, 4301, 100_000])
def test_a_label_with_thousands_of_digits_is_a_listed_problem(digits):
    body = GOOD1.replace("5,2", "5," + "4" * digits)
    problem = only(problems(body.encode(), filename="subtask1.csv"))
    assert (problem.file, problem.line) == ("subtask1.csv", 6)
    assert "is out of range: labels are 0-4" in problem.message
    assert len(problem.message) < 120


def test_a_small_zip_of_millions_of_lines_is_refused_before_it_is_unpacked():
    """Red-team defect: 46 KB deflated to 45 MiB of '0,1' lines; the parser split it all in memory and
    looped past its problem cap for 31 s (the web worker was killed)."""
    data = make_zip({"subtask1.csv": b"0,1\n" * (45 * 2**18)})
    assert len(data) < 100_000
    problem = only(problems(data))
    assert problem.file == "preds.zip/subtask1.csv"
    assert "more than a prediction file for this phase's test set can hold" in problem.message


def test_lines_past_the_question_count_and_margin_stop_the_reading():
    limits = Limits(line_margin=10)
    body = GOOD1 + "\n" * 1_000_000 + "5,1\n"  # blank lines count: 6 questions + 10 lines at most
    found = problems(body.encode(), filename="subtask1.csv", limits=limits)
    assert [(p.line, p.message) for p in found] == [
        (
            17,
            "more than 16 lines: this phase's Subtask 1 test set has 6 questions (one line each); "
            "reading stopped here",
        ),
    ]


def test_reading_stops_at_the_problem_cap():
    body = GOOD1 + "0,1\n" * 1_000_000  # a bare CSV under the byte limit: a million repeated ids
    found = problems(body.encode(), filename="subtask1.csv", limits=Limits(line_margin=2_000_000))
    assert len(found) == 51
    assert found[-1] == Problem("subtask1.csv", "reading stopped here after 50 problems", 57)
