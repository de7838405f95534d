import pytest

from datagen.quality.fidelity import OUTCOMES, gold_outcomes, rebuilt_pair
from datagen.targets.pipeline import Settings, load_resources
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


def test_the_cli_prints_one_row_per_wsd_choice_and_a_side_by_side_table(recam_data_dir, tmp_path):
    import json

    from click.testing import CliRunner

    from datagen.quality.fidelity import main

    output = tmp_path / "fidelity.json"
    args = ["--data-dir", str(recam_data_dir), "--subtask", "2", "--no-encoder", "--limit", "3"]
    args += ["--wsd", "first-sense", "--wsd", "lesk", "--previous", "--before", "--output", str(output)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "| subtask | file | first-sense | lesk | v2 | before |" in result.output
    rows = json.loads(output.read_text(encoding="utf-8"))["rows"]["2"]
    variants = ["first-sense", "lesk", "v2", "before"]
    assert [(r["file"].split("/")[0], r["variant"]) for r in rows] == [
        (file, variant) for file in ("training_data", "trail_data") for variant in variants
    ]
    for row in rows:
        assert row["questions"] == 3
        assert sum(row["outcomes"].values()) == 3
        assert f"| {row['variant']} | 3 |" in result.output
    before = next(r for r in rows if r["variant"] == "before")["settings"]
    assert before["synonym_scope"] == "all"
    assert before["pos_rescue"] is False
    assert (before["wsd"], before["wsd_context"]) == ("lesk", "window")
    v2 = next(r for r in rows if r["variant"] == "v2")["settings"]
    assert (v2["wsd"], v2["wsd_context"], v2["synonym_scope"]) == ("lesk", "window", "sense")
    assert next(r for r in rows if r["variant"] == "lesk")["settings"]["wsd_context"] == "text"


def test_without_the_encoder_its_threshold_does_not_invalidate_the_journal(recam_data_dir, tmp_path):
    from dataclasses import replace

    questions = read_questions(recam_data_dir / "training_data" / "Task_2_dev.jsonl", require_labels=True)[:2]
    settings = Settings(subtask=2, use_encoder=False, wsd="first-sense")
    journal = tmp_path / "journal.jsonl"
    first = gold_outcomes(
        questions=questions,
        source="dev",
        settings=settings,
        res=load_resources(settings=settings),
        chunk=2,
        progress=False,
        journal=journal,
    )
    other = replace(settings, contextual_max=0.5)
    kwargs = {"questions": questions, "source": "dev", "chunk": 2, "progress": False, "journal": journal}
    assert gold_outcomes(settings=other, res=None, **kwargs) == first  # res=None: nothing recomputed
    with pytest.raises(AttributeError):  # another WSD is another run: recomputed (and res=None fails)
        gold_outcomes(settings=replace(settings, wsd="lesk"), res=None, **kwargs)


def test_the_loss_lister_accounts_for_every_question_and_names_the_gold_word(recam_data_dir):
    from datagen.quality.fidelity_losses import lost_gold

    questions = read_questions(
        recam_data_dir / "trail_data" / "Task_2_Nonspecificity.jsonl", require_labels=True
    )
    questions = questions[:25]
    settings = Settings(subtask=2, use_encoder=False, wsd="first-sense")
    lost, kinds = lost_gold(
        questions=questions,
        source="trial",
        settings=settings,
        res=load_resources(settings=settings),
        per_bucket=2,
    )
    assert sum(sum(counts.values()) for counts in kinds.values()) == len(questions)
    assert lost
    assert "kept" not in lost
    for fate, lines in lost.items():
        assert 1 <= len(lines) <= 2
        assert sum(kinds[fate].values()) >= len(lines)
        for line in lines:
            word = line.split(" ", 1)[0]
            assert f"[{word}]" in line  # the gold word is marked in its question
    assert lost["above-threshold"]  # first-sense leaves deep trial nouns
    assert all(" depth " in line for line in lost["above-threshold"])
