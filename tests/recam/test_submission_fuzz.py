"""Property-based fuzzing of the upload parser: whatever the bytes, only SubmissionError comes out."""

import io
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recam.submission import Limits, ParsedSubmission, SubmissionError, make_zip, parse_submission

EXPECTED = {1: set(range(20)), 2: set(range(15))}
LIMITS = Limits(max_bytes=64 * 1024, max_entries=8, max_uncompressed_bytes=16 * 1024)
NAMES = st.sampled_from(
    ["subtask1.csv", "subtask2.csv", "preds.zip", "x.csv", "a/subtask1.csv", "../x", "", "s.ZIP"]
)
CSV_LINE = st.one_of(
    st.tuples(st.integers(-5, 25), st.integers(-2, 7)).map(lambda t: f"{t[0]},{t[1]}"),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=12),
)
CSV_BODY = st.lists(CSV_LINE, max_size=30).flatmap(
    lambda lines: st.sampled_from(["\n", "\r\n"]).map(lambda nl: nl.join(lines).encode())
)


def _parse(data: bytes, name: str) -> ParsedSubmission | SubmissionError:
    try:
        return parse_submission(data=data, filename=name, expected_ids=EXPECTED, limits=LIMITS)
    except SubmissionError as exc:
        error = exc
    assert error.problems, "a SubmissionError must list at least one problem"
    return error


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=2048), name=NAMES)
def test_arbitrary_bytes(data, name):
    _parse(data, name)


@settings(max_examples=300, deadline=None)
@given(body=CSV_BODY, name=NAMES)
def test_csv_like_text(body, name):
    result = _parse(body, name)
    if isinstance(result, ParsedSubmission):
        for parsed in result.files:
            assert set(parsed.predictions) == EXPECTED[parsed.subtask]
            assert set(parsed.predictions.values()) <= set(range(5))


@settings(max_examples=150, deadline=None)
@given(
    entries=st.dictionaries(
        st.sampled_from(
            ["subtask1.csv", "subtask2.csv", "dir/subtask2.csv", "/abs.csv", "..\\up.csv", "__MACOSX/x"]
        ),
        CSV_BODY,
        max_size=4,
    ),
    cut=st.integers(0, 400),
)
def test_zips_whole_and_truncated(entries, cut):
    data = make_zip(entries)
    _parse(data, "upload.zip")
    _parse(data[: len(data) - cut], "upload.zip")


def test_zip_bomb_is_refused_while_reading():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("subtask1.csv", b"0,1\n" * 200_000)  # 800 KB, compresses to a few KB
    result = _parse(buffer.getvalue(), "bomb.zip")
    assert isinstance(result, SubmissionError)
    assert "unpacks to more than" in str(result)


def test_thousands_of_entries_are_refused():
    data = make_zip({f"f{i}.csv": "" for i in range(2000)})
    with pytest.raises(SubmissionError) as caught:
        parse_submission(data=data, filename="many.zip", expected_ids=EXPECTED)  # the default limits
    result = caught.value
    assert isinstance(result, SubmissionError)
    assert "2,000 entries" in str(result)


def _answers(draw_ids, labels, newline, last_newline, leading_zeros):
    lines = [
        f"{'0' * zeros}{qid},{label}"
        for qid, label, zeros in zip(draw_ids, labels, leading_zeros, strict=False)
    ]
    return (newline.join(lines) + (newline if last_newline else "")).encode()


CLEAN_LIKE = st.builds(
    _answers,
    st.permutations(sorted(EXPECTED[1])).flatmap(
        lambda ids: st.sampled_from([ids, ids[:-1], [*ids, ids[0]], [*ids, 99], ids])
    ),
    st.lists(st.sampled_from([*range(5)] * 8 + [5]), min_size=21, max_size=21),  # a label 5 now and then
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
    st.lists(st.sampled_from([0, 0, 0, 1, 2]), min_size=21, max_size=21),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=st.one_of(CLEAN_LIKE, CSV_BODY))
def test_the_clean_file_fast_path_agrees_with_the_line_reader(content):
    """Whatever the fast path accepts, the line-by-line reader accepts too, with the same predictions in
    the same order; the files it declines (duplicates, unknown or missing ids, a label 5, ...) are left to
    the reader, which still explains them."""
    from recam.submission import _parse_clean, _parse_csv, _parse_csv_lines

    expected = frozenset(EXPECTED[1])
    fast = _parse_clean(content, expected, LIMITS)
    lines = _parse_csv_lines(content, "subtask1.csv", expected, LIMITS)
    if fast is not None:
        assert lines == (fast, [])
        assert list(fast.items()) == list(lines[0].items())
    assert _parse_csv(content, "subtask1.csv", expected, LIMITS) == lines


def test_the_fast_path_takes_a_clean_official_style_file():
    from recam.submission import _parse_clean, format_predictions

    body = format_predictions({qid: qid % 5 for qid in EXPECTED[1]}).encode()
    assert _parse_clean(body, frozenset(EXPECTED[1]), LIMITS) == {qid: qid % 5 for qid in sorted(EXPECTED[1])}
    assert _parse_clean(body.replace(b"\n", b"\r\n"), frozenset(EXPECTED[1]), LIMITS) is not None
    assert _parse_clean(b"\xef\xbb\xbf" + body, frozenset(EXPECTED[1]), LIMITS) is None  # a BOM: explained
