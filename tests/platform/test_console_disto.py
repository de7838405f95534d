"""A generation job's quality view shows each option's DISTO score from the quality report when a DISTO
model is configured (DISTO_MODEL); without one, or with a report written without it, the column is
absent and a note says why. The report is written by the real quality-report code with a small DISTO
model trained here (hashed bag-of-words encoder), so the page must show the numbers of that JSON."""

import json
from html.parser import HTMLParser

import numpy as np
import pytest
from django.urls import reverse

from console import generation
from console.models import GenerationJob
from tests.datagen.quality.test_disto import HashEncoder, toy
from tests.platform.factories import UserFactory


class _Table(HTMLParser):
    """The cells of ``table#quality-options``: header texts and body rows (list of cell texts)."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = self.in_cell = False
        self.header: list[str] = []
        self.rows: list[list[str]] = []

    def handle_starttag(self, tag, attrs):
        if tag == "table" and dict(attrs).get("id") == "quality-options":
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag in ("td", "th"):
            self.in_cell = True
            self.rows[-1].append("")

    def handle_endtag(self, tag):
        if tag == "table":
            self.inside = False
        elif tag in ("td", "th"):
            self.in_cell = False

    def handle_data(self, data):
        if self.inside and self.in_cell:
            self.rows[-1][-1] += data.strip()


def _table(page: str) -> list[list[str]]:
    parser = _Table()
    parser.feed(page)
    return parser.rows


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """Two quality reports of the same 6 questions: with the DISTO scores of a trained model, and without."""
    from datagen.quality import disto
    from datagen.quality.disto_eval import score_options
    from datagen.quality.run import run_quality
    from lexicon.resources import wordnet

    folder = tmp_path_factory.mktemp("disto")
    model_dir = folder / "model"
    model, _ = disto.train(
        questions=toy(60, seed=1), files={"toy": "0"}, encoder=HashEncoder(), wordnet=wordnet(), seed=0,
        output_dir=model_dir,
    )  # fmt: skip
    source = folder / "recam.jsonl"
    source.write_text("".join(json.dumps(q.to_json()) + "\n" for q in toy(6, seed=3)), encoding="utf-8")

    def disto_scores(batch):
        table = score_options(model=model, encoder=HashEncoder(), questions=batch)
        return {"scores": table, "model": {"dir": str(model_dir)}}

    common = {
        "input_path": source,
        "score_fn": lambda b, _: np.zeros((len(b), 5)),
        "identity": {"model": "fake"},
    }
    with_disto = run_quality(
        output_path=folder / "with.json", cache_dir=folder / "c", disto=disto_scores, **common
    )
    without = run_quality(output_path=folder / "without.json", cache_dir=folder / "c", **common)
    return {"model_dir": str(model_dir), "with": with_disto, "without": without}


@pytest.fixture(autouse=True)
def datasets_root(settings, tmp_path):
    settings.DATASETS_ROOT = tmp_path / "datasets"


@pytest.fixture
def staff_client(client, db):
    client.force_login(UserFactory(is_staff=True))
    return client


def _page(client, quality) -> str:
    job = GenerationJob.objects.create(
        pairs_name="p", pairs_path="/x", pairs_sha256="0" * 64, status=GenerationJob.Status.DONE,
        settings={"subtask": 1, "gate": True},
    )  # fmt: skip
    folder = generation.job_dir(job=job)
    folder.mkdir(parents=True)
    (folder / "recam.quality.json").write_text(json.dumps(quality), encoding="utf-8")
    response = client.get(reverse("console_job", args=[job.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_each_distractor_shows_its_disto_score_from_the_report(staff_client, settings, reports):
    settings.DISTO_MODEL = reports["model_dir"]
    report = reports["with"]
    page = _page(staff_client, report)
    rows = _table(page)
    assert rows[0] == ["Question", "Option", "Gold", "DISTO score"]
    body = [r[-3:] for r in rows[1:]]  # (option, gold, score); the question cell spans its five rows
    expected = [
        [option, "gold" if j == q["label"] else "", "-" if j == q["label"] else f"{q['disto'][j]:.3f}"]
        for q in report["questions"]
        for j, option in enumerate(q["options"])
    ]
    assert body == expected
    shown = [float(score) for _, gold, score in body if not gold]
    assert len(shown) == 24
    assert len(set(shown)) > 1  # the trained model's scores, not one constant
    mean = report["disto"]["mean_distractor_score"]
    assert f"mean over all 24 distractors of the report {mean:.3f}" in page
    assert "The configured model is" not in page


def test_a_report_of_another_model_is_shown_and_named(staff_client, settings, reports):
    settings.DISTO_MODEL = "/elsewhere/disto"
    page = _page(staff_client, reports["with"])
    assert 'id="disto-column"' in page
    assert "The configured model is /elsewhere/disto: these scores are not that model" in page


def test_no_disto_model_configured_no_column_and_a_note(staff_client, settings, reports):
    settings.DISTO_MODEL = ""
    page = _page(staff_client, reports["with"])
    rows = _table(page)
    assert rows[0] == ["Question", "Option", "Gold"]
    assert len(rows) == 1 + 30
    assert 'id="disto-column"' not in page
    assert "No DISTO score: no DISTO model is configured (set DISTO_MODEL" in page


def test_a_report_without_disto_scores_says_how_to_add_them(staff_client, settings, reports):
    settings.DISTO_MODEL = reports["model_dir"]
    page = _page(staff_client, reports["without"])
    assert _table(page)[0] == ["Question", "Option", "Gold"]
    assert f"write it again with python -m datagen quality --disto-model {reports['model_dir']}" in page


@pytest.mark.parametrize(
    "quality",
    [
        {"questions": "not a list", "disto": 5},
        {"questions": [None, {"options": [1, 2]}, {"options": ["a", "b"], "label": 0, "disto": ["x", None]}]},
        {"disto": {"model": "m"}, "questions": [{"options": ["a", "b"], "label": 1, "disto": [0.25, None]}]},
    ],
)
def test_a_hand_edited_report_is_shown_not_an_error(staff_client, settings, quality):
    settings.DISTO_MODEL = "/m"
    page = _page(staff_client, quality)
    assert 'id="quality"' in page
