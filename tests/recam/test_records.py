import json

import pytest

from recam.records import Question, dedupe_against, iter_questions, read_questions, write_questions

RECORD = {
    "article": "The economy grew.",
    "question": "A @placeholder view.",
    **{f"option_{i}": w for i, w in enumerate(["grim", "bright", "mixed", "bleak", "odd"])},
    "label": 1,
}


def test_official_dev_file_numbers_records_from_zero(recam_data_dir):
    questions = read_questions(recam_data_dir / "training_data" / "Task_1_dev.jsonl", require_labels=True)
    assert len(questions) == 837
    assert [q.id for q in questions[:3]] == [0, 1, 2]
    assert questions[-1].id == 836
    assert all(q.label in range(5) for q in questions)


def test_test_file_keeps_its_ids_and_has_no_labels(recam_data_dir):
    questions = read_questions(recam_data_dir / "test_data" / "Task_1_test.jsonl")
    assert len(questions) == 2025
    assert all(q.label is None for q in questions)
    with pytest.raises(ValueError, match="2025 record"):
        read_questions(recam_data_dir / "test_data" / "Task_1_test.jsonl", require_labels=True)


def test_round_trip(tmp_path):
    question = next(iter_questions([json.dumps(RECORD)]))
    write_questions(tmp_path / "out.jsonl", [question])
    assert read_questions(tmp_path / "out.jsonl") == [question]
    assert question.answer == "bright"
    assert question.filled() == "A bright view."


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "x.jsonl:2: not valid JSON"),
        ("[1, 2]", "x.jsonl:2: expected a JSON object"),
        (json.dumps({k: v for k, v in RECORD.items() if k != "option_3"}), "missing field"),
        (json.dumps({**RECORD, "question": "no blank"}), "@placeholder exactly once"),
        (json.dumps({**RECORD, "label": 5}), "'label' must be an integer 0-4"),
        (json.dumps({**RECORD, "id": -3}), "'id' must be a non-negative integer"),
        (json.dumps({**RECORD, "option_0": ""}), "'option_0' must be a non-empty string"),
    ],
)
def test_bad_lines_name_file_and_line(line, message):
    with pytest.raises(ValueError, match=message):
        list(iter_questions([json.dumps(RECORD), line], source="x.jsonl"))


def test_duplicate_ids_are_refused():
    with pytest.raises(ValueError, match=r"x\.jsonl:2: duplicate id 7"):
        list(iter_questions([json.dumps({**RECORD, "id": 7})] * 2, source="x.jsonl"))


def test_dedupe_against_drops_shared_and_repeated_questions():
    base = next(iter_questions([json.dumps(RECORD)]))
    other = Question(id=1, article="a", question="Another @placeholder.", options=base.options, label=0)
    same_text = Question(
        id=2, article="b", question="  a @placeholder   VIEW. ", options=base.options, label=0
    )
    assert dedupe_against([base, other, other], exclude=[same_text]) == [other]


def test_trial_sets_share_records_with_the_test_set(recam_data_dir):
    trial = read_questions(recam_data_dir / "trail_data" / "Task_1_Imperceptibility.jsonl")
    test = read_questions(recam_data_dir / "test_data" / "Task_1_test.jsonl")
    kept = dedupe_against(trial, exclude=test)
    assert 0 < len(kept) < len(trial)
    test_texts = {" ".join(q.question.split()).lower() for q in test}
    assert not any(" ".join(q.question.split()).lower() in test_texts for q in kept)
