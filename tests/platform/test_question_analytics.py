"""Organizer analytics page and command: staff only, flags on constructed answers, CSV joined with a quality report."""

import csv
import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from competitions.services import gold_store, phase_test_set_store
from recam.submission import format_predictions
from submissions.services import submission_create
from tests.platform.factories import PhaseFactory, TeamFactory, UserFactory

Q = 20  # gold: option 0 everywhere


@pytest.fixture
def phase(db, django_capture_on_commit_callbacks):
    phase = PhaseFactory(kind="practice", counted_policy="last")
    test_set = phase_test_set_store(
        phase=phase, subtask=1, question_ids=list(range(Q)), source_name="t", source_sha256="0" * 64
    )
    gold_store(test_set=test_set, labels=dict.fromkeys(range(Q), 0), source_name="t")
    for t in range(8):  # team t gets questions >= t + 4 wrong; question 3 always option 2; nobody picks 4
        answers = {i: 0 if i < t + 4 else 1 for i in range(Q)}
        answers[3] = 2
        answers[19] = 3 if t >= 5 else 1  # the strongest three agree on wrong option 3
        with django_capture_on_commit_callbacks(execute=True):
            submission_create(
                phase=phase,
                team=TeamFactory(competition=phase.competition, name=f"team{t}"),
                filename="subtask1.csv",
                data=format_predictions(answers).encode(),
                trained_on={1: 1},
            )
    return phase


def _url(phase):
    return reverse("question_analytics", args=[phase.competition.slug, phase.kind, 1])


def test_only_organizers_see_the_page(phase, client):
    assert client.get(_url(phase)).status_code == 404
    client.force_login(UserFactory())
    assert client.get(_url(phase)).status_code == 404


def test_page_and_csv_flag_constructed_questions(phase, client):
    client.force_login(UserFactory(is_staff=True))
    page = client.get(_url(phase)).content.decode()
    assert "8 teams, 20 questions" in page
    assert "strong_agree_wrong" in page
    assert "(option 3)" in page
    rows = {
        int(r["question_id"]): r
        for r in csv.DictReader(io.StringIO(client.get(_url(phase) + "?format=csv").content.decode()))
    }
    # everyone (so the strong teams too) chose option 2 on question 3
    assert rows[3]["flags"].split() == ["none_right", "strong_agree_wrong", "unpicked_distractors"]
    assert (rows[3]["pick_2"], rows[3]["share_correct"]) == ("1.0", "0.0")
    assert "strong_agree_wrong" in rows[19]["flags"]
    assert rows[19]["strong_wrong_option"] == "3"
    assert "4" in rows[10]["unpicked_distractors"].split()
    assert float(rows[5]["irt_difficulty"]) < float(rows[10]["irt_difficulty"])  # 6 teams right vs 1
    assert rows[18]["irt_difficulty"] == ""  # nobody right: no variation, not fitted


def test_quality_report_is_joined_by_id_and_a_bad_one_is_refused(phase, client):
    client.force_login(UserFactory(is_staff=True))
    report = {
        "with_article_accuracy": 0.8,
        "options_only_accuracy": 0.3,
        "effective_options": 3.1,
        "contextual_mi": 0.2,
        "questions": [{"id": 3, "options_only_correct": True}],
    }
    upload = SimpleUploadedFile("quality.json", json.dumps(report).encode())
    response = client.post(_url(phase), {"quality": upload, "format": "csv"})
    rows = {int(r["question_id"]): r for r in csv.DictReader(io.StringIO(response.content.decode()))}
    assert rows[3]["quality_options_only_correct"] == "True"
    assert rows[4]["quality_options_only_correct"] == ""
    bad = client.post(_url(phase), {"quality": SimpleUploadedFile("q.json", b"{nope"), "format": "html"})
    assert bad.status_code == 400
    assert "q.json: not a JSON file" in bad.content.decode()


def test_command_writes_the_csv_and_names_a_bad_report(phase, tmp_path):
    out = tmp_path / "questions.csv"
    args = [
        "recam_analytics",
        "--phase",
        "practice",
        "--subtask",
        "1",
        "--competition",
        phase.competition.slug,
    ]
    call_command(*args, "--out", str(out), stderr=io.StringIO())
    assert len(out.read_text().splitlines()) == Q + 1
    (tmp_path / "bad.json").write_text("[1, 2]")
    with pytest.raises(CommandError, match=r"bad\.json: expected an object"):
        call_command(*args, "--quality", str(tmp_path / "bad.json"))


def test_baselines_are_left_out_unless_asked_for_and_then_marked(
    phase, client, django_capture_on_commit_callbacks, tmp_path
):
    from teams.services import team_get_or_create_baseline

    baseline = team_get_or_create_baseline(competition=phase.competition, name="GA Reader")
    with django_capture_on_commit_callbacks(execute=True):  # right everywhere, question 3 included
        submission_create(
            phase=phase,
            team=baseline,
            filename="subtask1.csv",
            data=format_predictions(dict.fromkeys(range(Q), 0)).encode(),
            trained_on={1: 1},
            force=True,
        )
    client.force_login(UserFactory(is_staff=True))
    page = client.get(_url(phase)).content.decode()
    assert "8 teams, 20 questions" in page
    assert "Include the 1 baseline" in page
    with_baselines = client.get(_url(phase) + "?baselines=1").content.decode()
    assert "9 teams, 20 questions" in with_baselines
    assert 'GA Reader <span class="badge">baseline</span>' in with_baselines
    assert 'href="?format=csv&amp;baselines=1"' in with_baselines

    def share(query: str) -> str:
        body = client.get(_url(phase) + query).content.decode()
        return next(r for r in csv.DictReader(io.StringIO(body)) if r["question_id"] == "3")["share_correct"]

    assert (share("?format=csv"), share("?format=csv&baselines=1")) == ("0.0", "0.1111")
    out = tmp_path / "q.csv"
    args = [
        "recam_analytics",
        "--phase",
        "practice",
        "--subtask",
        "1",
        "--competition",
        phase.competition.slug,
    ]
    call_command(*args, "--baselines", "--out", str(out), stderr=io.StringIO())
    assert "0.1111" in next(line for line in out.read_text().splitlines() if line.startswith("3,"))


def test_a_board_of_baselines_only_points_to_them(db, client, django_capture_on_commit_callbacks):
    from teams.services import team_get_or_create_baseline

    phase = PhaseFactory(kind="practice", counted_policy="last")
    test_set = phase_test_set_store(
        phase=phase, subtask=1, question_ids=list(range(Q)), source_name="t", source_sha256="0" * 64
    )
    gold_store(test_set=test_set, labels=dict.fromkeys(range(Q), 0), source_name="t")
    with django_capture_on_commit_callbacks(execute=True):  # as `make baselines` leaves the practice phase
        submission_create(
            phase=phase,
            team=team_get_or_create_baseline(competition=phase.competition, name="GA Reader"),
            filename="subtask1.csv",
            data=format_predictions(dict.fromkeys(range(Q), 1)).encode(),
            trained_on={1: 1},
            force=True,
        )
    client.force_login(UserFactory(is_staff=True))
    page = client.get(_url(phase)).content.decode()
    assert "No participant answers per question yet." in page
    assert '<a href="?baselines=1">Include the 1 baseline</a> to see their answers.' in page
    assert "1 team, 20 questions" in client.get(_url(phase) + "?baselines=1").content.decode()


def test_a_quality_report_with_a_huge_integer_is_refused_not_a_500(phase, client):
    """Red-team defect: a 5,000-digit id raised "Exceeds the limit (4300 digits)" out of the page."""
    client.force_login(UserFactory(is_staff=True))
    huge = b'{"questions": [{"id": ' + b"7" * 5000 + b"}]}"
    response = client.post(_url(phase), {"quality": SimpleUploadedFile("q.json", huge), "format": "html"})
    assert response.status_code == 400
    assert "q.json: the integer 77777777777777777777... has 5,000 digits" in response.content.decode()
