import json

from datagen.xsum import parse_pairs, read_pairs


def test_read_pairs_reports_each_bad_line_with_its_number_and_keeps_the_rest(tmp_path):
    lines = [
        json.dumps({"id": "1", "document": "A long article.", "summary": "A summary."}),
        "{not json",
        json.dumps({"id": "3", "summary": "no document"}),
        json.dumps({"id": "4", "document": "Text.", "summary": "   "}),
        "",
        json.dumps(["a", "list"]),
        json.dumps({"document": "Doc without id.", "summary": "Summary."}),
    ]
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    pairs, bad = read_pairs(path=path)
    assert [(p.id, p.line) for p in pairs] == [("1", 1), ("line7", 7)]
    assert [b.line for b in bad] == [2, 3, 4, 6]
    assert "not JSON" in bad[0].message
    assert "'document'" in bad[1].message
    assert "'summary'" in bad[2].message
    assert "non-empty" in bad[2].message
    assert "JSON object" in bad[3].message
    assert str(bad[0]).startswith("line 2:")


def test_parse_pairs_reads_the_real_xsum_sample(xsum_path):
    with xsum_path.open(encoding="utf-8") as handle:
        pairs, bad = parse_pairs(handle.readlines()[:20])
    assert len(pairs) == 20
    assert not bad
    assert all(p.document.strip() and p.summary.strip() for p in pairs)
