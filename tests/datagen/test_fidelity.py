from datagen.fidelity import OUTCOMES, gold_outcomes, rebuilt_pair
from datagen.pipeline import Settings, load_resources
from recam.records import read_questions


def test_rebuilt_pair_puts_the_gold_answer_back_at_the_placeholder(recam_data_dir):
    question = read_questions(recam_data_dir / "training_data" / "Task_2_dev.jsonl", require_labels=True)[0]
    pair, (start, end) = rebuilt_pair(question=question, source="dev")
    assert pair.summary[start:end] == question.answer
    assert pair.summary == question.filled()
    assert pair.document == question.article
    assert pair.id == "dev#0"


def test_gold_outcomes_account_for_every_question(recam_data_dir):
    questions = read_questions(recam_data_dir / "training_data" / "Task_2_dev.jsonl", require_labels=True)[:6]
    settings = Settings(subtask=2, use_encoder=False)
    counts = gold_outcomes(
        questions=questions,
        source="dev",
        settings=settings,
        res=load_resources(settings=settings),
        chunk=4,
        progress=False,
    )
    assert sum(counts.values()) == len(questions)
    assert set(counts) <= set(OUTCOMES)
    assert counts["contextual"] == 0  # the encoder stage is off


def test_a_rerun_with_the_journal_reuses_finished_chunks(recam_data_dir, tmp_path):
    questions = read_questions(recam_data_dir / "training_data" / "Task_2_dev.jsonl", require_labels=True)[:4]
    settings = Settings(subtask=2, use_encoder=False)
    journal = tmp_path / "journal.jsonl"
    res = load_resources(settings=settings)
    first = gold_outcomes(
        questions=questions,
        source="dev",
        settings=settings,
        res=res,
        chunk=2,
        progress=False,
        journal=journal,
    )
    assert len(journal.read_text(encoding="utf-8").splitlines()) == 2
    # res=None: recomputing any chunk would fail, so equal counts mean both chunks were reused
    again = gold_outcomes(
        questions=questions,
        source="dev",
        settings=settings,
        res=None,
        chunk=2,
        progress=False,
        journal=journal,
    )
    assert again == first
