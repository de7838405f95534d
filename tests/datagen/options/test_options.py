"""Option selection, filters, seeded gold positions and output checks, on real WordNet and tiny vectors."""

import json
from collections import Counter

import numpy as np
import pytest

from datagen.options.build import (
    Candidate,
    assign_folds,
    build_dataset,
    build_question,
    check_question,
    exclusion_reason,
    gold_position,
    read_candidates,
    select_distractors,
    write_recam,
)
from lexicon.resources import wordnet as load_wordnet
from lexicon.vectors import WordVectors
from recam.records import Question, read_questions, write_questions


@pytest.fixture(scope="session")
def wordnet():
    return load_wordnet()


@pytest.fixture(scope="session")
def vectors():
    table = {
        "big": [1.0, 0.0, 0.0],
        "huge": [0.95, 0.2, 0.0],  # cosine to "big" 0.978: above 0.85
        "tiny": [0.8, 0.6, 0.0],  # cosine to "big" 0.8: below 0.85
        "small": [0.0, 1.0, 0.0],
    }
    words = sorted(table)
    return WordVectors(
        index={w: i for i, w in enumerate(words)},
        array=np.array([table[w] for w in words], dtype=np.float32),
        name="tiny",
    )


POOL_BIG = [
    ["huge", "large", "small", "tall", "tiny"],
    ["small", "wide", "tall", "big"],
    ["wide", "small", "short"],
]


def test_exclusion_reasons_cover_gold_synonyms_and_similar_words(wordnet, vectors):
    def reason(word, gold="big"):
        return exclusion_reason(word=word, gold=gold, wordnet=wordnet, vectors=vectors)

    assert reason("big") == "gold"
    assert reason("Big") == "gold"
    assert reason("policies", gold="policy") == "gold"  # same WordNet base form
    assert reason("losses", gold="loss") == "gold"  # "losses" is a WordNet noun too: every analysis counts
    assert reason("large") == "synonym"  # big.a.01 has the lemma "large"
    assert reason("bigness") == "form"  # WordNet derivational link, no synonym, no vector
    assert reason("economic", gold="economy") == "form"
    assert reason("huge") == "similar"
    assert reason("tiny") is None
    assert reason("wide") is None  # no vector: the similarity filter cannot judge it


def test_select_distractors_takes_most_frequent_then_best_rank(wordnet, vectors):
    chosen = select_distractors(pool=POOL_BIG, gold="big", wordnet=wordnet, vectors=vectors)
    # small x3; wide x2 best rank 1 before tall x2 best rank 3; short (rank 3) before tiny (rank 5)
    assert chosen == ["small", "wide", "tall", "short"]


def test_select_distractors_breaks_full_ties_alphabetically(wordnet):
    pool = [["war", "crisis", "deal"], ["crisis", "war", "deal"]]
    assert select_distractors(pool=pool, gold="peace", wordnet=wordnet, vectors=None, count=2) == [
        "crisis",
        "war",
    ]


def test_select_distractors_does_not_depend_on_reader_order(wordnet, vectors):
    forward = select_distractors(pool=POOL_BIG, gold="big", wordnet=wordnet, vectors=vectors)
    backward = select_distractors(pool=POOL_BIG[::-1], gold="big", wordnet=wordnet, vectors=vectors)
    assert forward == backward


def test_select_distractors_may_return_fewer_than_four(wordnet, vectors):
    pool = [["huge", "large", "small"], ["big", "tiny"]]
    # tiny (best rank 2) before small (best rank 3); the other three are excluded
    assert select_distractors(pool=pool, gold="big", wordnet=wordnet, vectors=vectors) == ["tiny", "small"]


def test_gold_position_is_seeded_per_question_and_uses_every_slot():
    positions = [gold_position(seed=13, question_id=i) for i in range(200)]
    assert positions == [gold_position(seed=13, question_id=i) for i in range(200)]
    assert set(positions) == {0, 1, 2, 3, 4}
    assert max(Counter(positions).values()) < 80  # not stuck on one slot
    assert positions != [gold_position(seed=14, question_id=i) for i in range(200)]


def test_build_question_puts_the_gold_at_its_seeded_label():
    candidate = Candidate(id=7, article="A text.", question="It was @placeholder .", answer="policy")
    question = build_question(candidate=candidate, question_id=7, distractors=["a", "b", "c", "d"], seed=13)
    assert question.label == gold_position(seed=13, question_id=7)
    assert question.options[question.label] == "policy"
    assert [o for o in question.options if o != "policy"] == ["a", "b", "c", "d"]


ARTICLE = "The council met on Monday to discuss the budget for the city's schools."


def _question(options, label=0, article=ARTICLE):
    return Question(
        id=0,
        article=article,
        question="The council discussed its @placeholder .",
        options=options,
        label=label,
    )


def test_check_question_accepts_a_valid_question(wordnet):
    question = _question(("policy", "meeting", "money", "city", "school"))
    assert check_question(question=question, gold="policy", wordnet=wordnet) == []


@pytest.mark.parametrize(
    ("options", "label", "article", "problem"),
    [
        (("policy", "money", "money", "city", "school"), 0, ARTICLE, "options-not-distinct"),
        (("policy", "money", "policy", "city", "school"), 0, ARTICLE, "gold-not-once"),
        (("policy", "meeting", "money", "city", "school"), 1, ARTICLE, "label-not-gold"),
        (("policy", "policies", "money", "city", "school"), 0, ARTICLE, "option-equals-gold"),
        (("policy", "insurance", "money", "city", "school"), 0, ARTICLE, "option-synonym-of-gold"),
        (
            ("policy", "meeting", "money", "city", "school"),
            0,
            ARTICLE + " New policies came.",
            "gold-in-article",
        ),
    ],
)
def test_check_question_rejects_bad_questions(wordnet, options, label, article, problem):
    question = _question(options, label=label, article=article)
    assert problem in check_question(question=question, gold="policy", wordnet=wordnet)


def test_check_question_rejects_a_derived_form_of_the_gold(wordnet):
    question = _question(("economy", "meeting", "economic", "city", "school"))
    assert check_question(question=question, gold="economy", wordnet=wordnet) == ["option-form-of-gold"]
    question = _question(("success", "meeting", "money", "city", "successful"))
    assert check_question(question=question, gold="success", wordnet=wordnet) == ["option-form-of-gold"]


def test_derived_forms_never_reach_the_options_and_are_counted(wordnet):
    pool = [["economic", "growth", "economist", "budget"], ["economic", "tax"], ["crisis", "market"]]
    chosen = select_distractors(pool=pool, gold="economy", wordnet=wordnet, vectors=None)
    # "economic" is the most frequent type but a form of the gold; then best rank, then alphabetical
    assert chosen == ["crisis", "growth", "market", "tax"]
    candidate = Candidate(id=0, article=ARTICLE, question="The @placeholder grew .", answer="economy")
    built = build_dataset(candidates=[candidate], pools={0: pool}, wordnet=wordnet, vectors=None, seed=13)
    assert built.excluded == Counter({"form": 2})  # economic, economist: word types, counted once each
    assert set(built.questions[0].options) == {"economy", "crisis", "growth", "market", "tax"}


def test_build_dataset_drops_and_counts_failing_questions(wordnet, vectors, tmp_path):
    good = Candidate(id=0, article=ARTICLE, question="The council discussed its @placeholder .", answer="big")
    in_article = Candidate(id=1, article="A big day.", question="It was a @placeholder day .", answer="big")
    starved = Candidate(id=2, article=ARTICLE, question="A @placeholder council .", answer="big")
    unranked = Candidate(id=3, article=ARTICLE, question="The @placeholder city .", answer="big")
    pools = {0: POOL_BIG, 1: POOL_BIG, 2: [["huge", "large", "small"], ["tiny"]]}
    built = build_dataset(
        candidates=[good, in_article, starved, unranked],
        pools=pools,
        wordnet=wordnet,
        vectors=vectors,
        seed=13,
    )
    assert [q.id for q in built.questions] == [0]
    assert built.drops == Counter({"gold-in-article": 1, "too-few-distractors": 1, "no-rankings": 1})
    assert built.excluded["synonym"] >= 1
    assert built.excluded["similar"] >= 1
    path = tmp_path / "out.jsonl"
    write_questions(path, built.questions)
    (read,) = read_questions(path, require_labels=True)
    assert read.answer == "big"
    assert set(read.options) == {"big", "small", "wide", "tall", "short"}


def test_read_candidates_names_file_and_line(tmp_path):
    path = tmp_path / "cands.jsonl"
    good = {"id": 0, "article": "A.", "question": "B @placeholder .", "answer": "Word", "subtask": 1}
    path.write_text(json.dumps(good) + "\n{not json\n")
    with pytest.raises(ValueError, match=r"cands.jsonl:2: not valid JSON"):
        read_candidates(path)
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "id": 1, "question": "no blank"}) + "\n")
    with pytest.raises(ValueError, match=r"cands.jsonl:2: the question must contain @placeholder"):
        read_candidates(path)
    path.write_text(json.dumps(good) + "\n" + json.dumps(good) + "\n")
    with pytest.raises(ValueError, match=r"cands.jsonl:2: duplicate id 0"):
        read_candidates(path)
    path.write_text(json.dumps(good) + "\n")
    (candidate,) = read_candidates(path)
    assert (candidate.answer, candidate.subtask) == ("word", "1")


def test_assign_folds_keeps_an_article_in_one_fold():
    candidates = [
        Candidate(id=i, article=f"article {i // 2}", question="@placeholder", answer="w") for i in range(10)
    ]
    folds = assign_folds(candidates=candidates, folds=2, seed=13)
    assert folds == assign_folds(candidates=candidates, folds=2, seed=13)
    assert set(folds.values()) == {0, 1}
    assert all(folds[i] == folds[i + 1] for i in range(0, 10, 2))
    with pytest.raises(ValueError, match="5 distinct article"):
        assign_folds(candidates=candidates, folds=6, seed=13)


def test_string_candidate_ids_are_renumbered_and_kept_as_source_id(wordnet, vectors, tmp_path):
    make = lambda cid: Candidate(  # noqa: E731
        id=cid,
        article=ARTICLE,
        question="The council discussed its @placeholder .",
        answer="big",
        subtask="2",
    )
    candidates = [make("pair-9-1"), make("pair-3-0")]
    built = build_dataset(
        candidates=candidates,
        pools={c.id: POOL_BIG for c in candidates},
        wordnet=wordnet,
        vectors=vectors,
        seed=1,
    )
    path = tmp_path / "out.jsonl"
    write_recam(path=path, questions=built.questions, sources=built.sources)
    assert [q.id for q in read_questions(path)] == [0, 1]
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r["source_id"], r["subtask"]) for r in records] == [("pair-9-1", "2"), ("pair-3-0", "2")]


def test_recam_questions_become_candidates_with_their_gold(tmp_path, recam_data_dir):
    from click.testing import CliRunner

    from datagen.cli import main
    from datagen.options.build import read_recam_candidates

    dev = recam_data_dir / "training_data" / "Task_2_dev.jsonl"
    questions = read_questions(dev, require_labels=True)[:3]
    path = tmp_path / "dev3.jsonl"
    write_questions(path, questions, with_ids=False)
    candidates = read_recam_candidates(path, subtask="2")
    assert [c.id for c in candidates] == [0, 1, 2]
    assert [c.answer for c in candidates] == [q.answer.lower() for q in questions]
    assert [(c.article, c.question, c.subtask) for c in candidates] == [
        (q.article, q.question, "2") for q in questions
    ]
    unlabelled = tmp_path / "unlabelled.jsonl"
    lines = path.read_text().splitlines()
    record = json.loads(lines[1])
    del record["label"]
    unlabelled.write_text("\n".join([lines[0], json.dumps(record), lines[2]]) + "\n")
    with pytest.raises(ValueError, match=r"unlabelled\.jsonl: 1 record.*line 2"):
        read_recam_candidates(unlabelled)
    result = CliRunner().invoke(
        main,
        ["options", "--from-recam", "--candidates", str(unlabelled), "--output", str(tmp_path / "o.jsonl"),
         "--ranker", "lm", "--no-gate"],
    )  # fmt: skip
    assert result.exit_code == 1
    assert "unlabelled.jsonl: 1 record(s) have no 'label' (first at line 2" in result.output


def test_a_from_recam_plan_reads_its_candidates_as_recam(tmp_path, recam_data_dir):
    from datagen.options.retrieval import Plan, plan_candidates, read_plan, write_plan

    dev = recam_data_dir / "training_data" / "Task_1_dev.jsonl"
    path = tmp_path / "dev4.jsonl"
    write_questions(path, read_questions(dev, require_labels=True)[:4], with_ids=False)
    plan = Plan(candidates=str(path), candidates_sha256="x", folds=2, seed=1, readers=("ga",), reader_settings={},
                from_recam="2")  # fmt: skip
    write_plan(work_dir=tmp_path / "w", plan=plan)
    found = plan_candidates(read_plan(work_dir=tmp_path / "w"))
    assert [(c.id, c.subtask) for c in found] == [(0, "2"), (1, "2"), (2, "2"), (3, "2")]
    with pytest.raises(ValueError, match="field 'answer' must be a non-empty string"):
        plan_candidates(Plan(**{**plan.__dict__, "from_recam": None}))


def test_a_limited_run_loads_the_vectors_of_the_whole_files_words(tmp_path, monkeypatch):
    import lexicon.vectors
    from datagen.options.finish import finish
    from datagen.options.retrieval import Plan, write_plan

    candidates = [Candidate(id=i, article=f"story {w} here", question="a @placeholder law", answer=w)
                  for i, w in enumerate(["legislative", "parliamentary", "future"])]  # fmt: skip
    write_plan(work_dir=tmp_path, plan=Plan(candidates="c", candidates_sha256="x", folds=2, seed=1,
                                            readers=("ga",), reader_settings={}))  # fmt: skip
    seen = []

    class Stop(Exception):
        pass

    def load_vectors(path, *, vocabulary):
        seen.append(set(vocabulary))
        raise Stop

    monkeypatch.setattr(lexicon.vectors, "load_vectors", load_vectors)
    with pytest.raises(Stop):
        finish(work=tmp_path, groups={"1": candidates}, candidates=candidates, readers=("ga",),
               output=tmp_path / "o.jsonl", ranker="lm", limit=1)  # fmt: skip
    assert {"legislative", "parliamentary", "future"} <= seen[0]
