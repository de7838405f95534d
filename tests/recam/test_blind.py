import json

from recam.blind import batch_records, blind_items, key_json, noarticle_markdown, witharticle_markdown
from recam.records import Question, iter_questions


def _q(qid, word, article):
    options = (word, "alpha", "beta", "gamma", "delta")
    return Question(id=qid, article=article, question="It was @placeholder today .", options=options, label=0)


def test_items_are_mixed_numbered_and_unmarked_and_the_key_tells_them_apart():
    sets = {"generated": [_q(i, f"gen{i}", f"Article G{i}.") for i in range(5)],
            "recam": [_q(100 + i, f"rec{i}", f"Article R{i}.") for i in range(5)]}  # fmt: skip
    items = blind_items(sets=sets, seed=3)
    assert [i.number for i in items] == list(range(1, 11))
    assert [i.source for i in items] != ["generated"] * 5 + ["recam"] * 5  # shuffled
    assert blind_items(sets=sets, seed=3) == items  # seeded
    noarticle, witharticle = noarticle_markdown(items), witharticle_markdown(items)
    for text in (noarticle, witharticle):
        assert "generated" not in text
        assert "recam" not in text.lower()
        assert "label" not in text
    assert "Article G0." not in noarticle
    assert "Article G0." in witharticle
    assert "@placeholder" not in noarticle
    key = key_json(items)
    assert {k: v["source"] for k, v in key.items()} == {str(i.number): i.source for i in items}
    assert all(v["answer"].startswith(("gen", "rec")) for v in key.values())
    records = batch_records(items)
    parsed = list(iter_questions([json.dumps(r) for r in records]))
    assert [q.id for q in parsed] == list(range(1, 11))
    assert {r["source"] for r in records} == {"generated", "recam"}
