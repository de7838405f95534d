"""CLOTH and SCDE competitions: test sets loaded from the published layouts, uploads checked line by line,
scores by the formats' scorers (BA / PA / DE for SCDE), and ReCAM competitions unchanged."""

import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from competitions.errors import ApplicationError
from competitions.models import Competition
from competitions.task_formats import format_gold_records, format_test_set_load
from leaderboards.models import LeaderboardEntry
from recam.formats import get_format
from recam.submission import SubmissionError
from submissions.models import Submission
from submissions.services import submission_create
from submissions.task_formats import format_test_set_load_and_rescore
from tests.platform.factories import CompetitionFactory, PhaseFactory, TeamFactory, member

FIXTURES = Path(__file__).parents[1] / "recam" / "fixtures"
SCDE_DEV = FIXTURES / "scde_official" / "dev.json"
CLOTH_DIR = FIXTURES / "cloth_official"


def phase_of(task_format: str):
    phase = PhaseFactory(competition=CompetitionFactory(task_format=task_format))
    team = TeamFactory(competition=phase.competition)
    member(team)
    return phase, team


def upload(phase, team, text: str, capture, filename: str = "preds.csv") -> Submission:
    with capture(execute=True):
        submission = submission_create(phase=phase, team=team, filename=filename, data=text.encode())
    submission.refresh_from_db()
    return submission


@pytest.mark.django_db
def test_a_new_competition_is_recam_and_refuses_a_format_test_set(tmp_path):
    competition = Competition.objects.create(slug="plain", title="Plain")
    assert competition.task_format == "recam"
    with pytest.raises(
        ApplicationError, match="a ReCAM competition loads its test sets with recam_competition"
    ):
        format_test_set_load(phase=PhaseFactory(competition=competition), path=SCDE_DEV, official=True)


@pytest.mark.django_db
def test_an_scde_test_set_loads_cleaned_with_its_slots_and_gold():
    phase, _team = phase_of("scde")
    message = format_test_set_load(phase=phase, path=SCDE_DEV, official=True)
    assert message.startswith("practice: scde: 2 passages, 5 blanks from dev.json (4 passages dropped")
    test_set = phase.test_sets.get()
    assert (test_set.question_ids, test_set.slots, test_set.num_questions) == (
        [0, 1],
        {"0": [2, 4], "1": [3, 5]},
        5,
    )
    records, sha = format_gold_records(test_set=test_set)
    assert [r.answers for r in records] == [(1, 0), (1, 0, 3)]
    assert sha == test_set.gold.sha256


@pytest.mark.django_db
def test_an_scde_upload_is_scored_with_ba_pa_and_de(django_capture_on_commit_callbacks):
    phase, team = phase_of("scde")
    format_test_set_load(phase=phase, path=SCDE_DEV, official=True)
    # passage 0 (answers 1, 0): both right; passage 1 (answers 1, 0, 3): blank 3 takes distractor 2
    submission = upload(
        phase, team, "0,1,1\n0,2,0\n1,1,1\n1,2,0\n1,3,2\n", django_capture_on_commit_callbacks
    )
    assert submission.status == Submission.Status.SCORED, submission.failure_reason
    assert list(submission.files.values_list("name", "subtask", "num_predictions")) == [
        ("predictions.csv", 1, 5)
    ]
    score = submission.scores.get()
    assert score.metrics == pytest.approx(
        {"blank_accuracy": (1 + 2 / 3) / 2, "passage_accuracy": 0.5, "distractor_error": 0.5}
    )
    assert (score.accuracy, score.correct, score.total) == (pytest.approx(5 / 6), 4, 5)
    assert score.scorer_version == get_format("scde").scorer_version
    entry = LeaderboardEntry.objects.get(phase=phase, team=team)
    assert entry.accuracy == pytest.approx(5 / 6)


@pytest.mark.django_db
def test_a_bad_upload_lists_every_problem_with_its_line_and_stores_nothing(
    django_capture_on_commit_callbacks,
):
    phase, team = phase_of("scde")
    format_test_set_load(phase=phase, path=SCDE_DEV, official=True)
    with pytest.raises(SubmissionError) as info:
        upload(phase, team, "0,1,1\n0,3,0\n1,1,G\n", django_capture_on_commit_callbacks)
    assert [str(p) for p in info.value.problems] == [
        "preds.csv, line 2: passage 0 has blanks 1-2; there is no blank 3",
        "preds.csv, line 3: label 'G' is written as a word or letter: give the option's index instead (labels of passage 1 are 0-4)",
        "preds.csv: 3 of 5 blanks have no prediction (first: id 0 blank 2, id 1 blank 2, id 1 blank 3)",
    ]
    assert not Submission.objects.exists()


@pytest.mark.django_db
def test_a_cloth_upload_waits_for_the_gold_then_is_scored(tmp_path, django_capture_on_commit_callbacks):
    phase, team = phase_of("cloth")
    loaded = get_format("cloth").load_official(CLOTH_DIR).passages
    unanswered = tmp_path / "cloth_test.jsonl"
    unanswered.write_text("".join(json.dumps({**p.to_json(), "answers": None}) + "\n" for p in loaded))
    assert format_test_set_load(phase=phase, path=unanswered).endswith("no gold answers")
    submission = upload(
        phase, team, "0,1,1\n0,2,3\n0,3,0\n1,1,1\n1,2,1\n1,3,0\n", django_capture_on_commit_callbacks
    )
    assert submission.status == Submission.Status.WAITING_GOLD
    with django_capture_on_commit_callbacks(execute=True):
        format_test_set_load_and_rescore(phase=phase, path=CLOTH_DIR, official=True)
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORED
    score = submission.scores.get()
    assert (score.correct, score.total, score.accuracy) == (5, 6, pytest.approx(5 / 6))
    assert score.metrics == pytest.approx({"accuracy": 5 / 6})


@pytest.mark.django_db
def test_a_phase_without_a_test_set_refuses_uploads_with_a_reason(django_capture_on_commit_callbacks):
    phase, team = phase_of("cloth")
    with pytest.raises(SubmissionError, match=r"preds\.csv: this phase has no test set yet"):
        upload(phase, team, "0,1,1\n", django_capture_on_commit_callbacks)


@pytest.mark.django_db
def test_the_command_loads_an_official_split(capsys):
    phase, _team = phase_of("scde")
    call_command(
        "recam_format_test_set",
        "--phase",
        "practice",
        "--competition",
        phase.competition.slug,
        "--official",
        str(SCDE_DEV),
    )
    assert "scde: 2 passages, 5 blanks" in capsys.readouterr().out
    folder = str(FIXTURES / "cloth_official")
    args = ["recam_format_test_set", "--phase", "practice", "--competition", phase.competition.slug]
    with pytest.raises(CommandError, match="cloth_official is a folder: give a scde jsonl file"):
        call_command(*args, folder)
    with pytest.raises(CommandError, match=r"high0001\.json: one JSON object; an SCDE split is a JSON array"):
        call_command(*args, "--official", str(FIXTURES / "cloth_official" / "high" / "high0001.json"))


@pytest.mark.django_db
def test_the_scde_board_shows_ba_pa_de_and_the_chance_row(client, django_capture_on_commit_callbacks):
    phase, team = phase_of("scde")
    format_test_set_load(phase=phase, path=SCDE_DEV, official=True)
    url = reverse("leaderboard", args=[phase.competition.slug, phase.kind])
    empty = client.get(url).content.decode()
    assert "No scored submissions yet." in empty
    assert 'id="chance-row"' in empty
    upload(phase, team, "0,1,1\n0,2,0\n1,1,1\n1,2,0\n1,3,2\n", django_capture_on_commit_callbacks)
    page = client.get(url).content.decode()
    for label in ("BA", "PA", "DE"):
        assert f">{label}</th>" in page
    assert "blanks answered right, averaged over passages" in page
    row = page[page.index(f'data-team="{team.name}"') :].split("</tr>")[0]
    assert [c.split(">")[-1] for c in row.split("</td>") if 'class="num metric"' in c] == [
        "83.33",
        "50.00",
        "0.500",
    ]
    chance = page[page.index('id="chance-row"') :].split("</tr>")[0]
    # passages of 2 blanks / 4 candidates and 3 blanks / 5 candidates: BA (1/4 + 1/5) / 2, PA (1/12 + 1/60) / 2, DE (1 + 6/5) / 2
    assert [c.split(">")[-1] for c in chance.split("</td>") if 'class="num metric"' in c] == [
        "22.50",
        "5.00",
        "1.100",
    ]
    assert "Acc. Cross" not in page


@pytest.mark.django_db
def test_a_recam_board_keeps_its_tables(client, practice):
    page = client.get(
        reverse("leaderboard", args=[practice.competition.slug, practice.kind])
    ).content.decode()
    assert "Acc. Cross" in page
    assert 'id="chance-row"' not in page


@pytest.mark.django_db
def test_the_competition_page_describes_the_formats_prediction_file(client):
    phase, _team = phase_of("scde")
    format_test_set_load(phase=phase, path=SCDE_DEV, official=True)
    page = client.get(reverse("competition", args=[phase.competition.slug])).content.decode()
    assert "one <code>id,blank,label</code> line per blank" in page
    assert "2 passages, 5 blanks" in page
    assert "subtask1.csv" not in page


@pytest.mark.django_db
def test_a_format_upload_has_no_cross_score_whatever_the_form_says(django_capture_on_commit_callbacks):
    phase, team = phase_of("scde")
    format_test_set_load(phase=phase, path=SCDE_DEV, official=True)
    data = b"0,1,1\n0,2,0\n1,1,1\n1,2,0\n1,3,3\n"
    with django_capture_on_commit_callbacks(execute=True):
        submission = submission_create(phase=phase, team=team, filename="p.csv", data=data, trained_on={1: 2})
    assert list(submission.files.values_list("subtask", "trained_on")) == [(1, 1)]
    assert submission.scores.get().trained_on == 1


@pytest.mark.django_db
def test_participants_get_the_passages_without_answers_and_an_example_that_uploads(
    client, django_capture_on_commit_callbacks
):
    phase, team = phase_of("scde")
    format_test_set_load(phase=phase, path=SCDE_DEV, official=True)
    slug = phase.competition.slug
    page = client.get(reverse("phase_data", args=[slug, phase.kind])).content.decode()
    assert "scde-practice.jsonl</a>" in page
    assert "one line <code>id,blank,label</code> per blank" in page
    passages = client.get(reverse("phase_questions", args=[slug, phase.kind, 1]))
    assert passages["Content-Disposition"] == 'attachment; filename="scde-practice.jsonl"'
    records = [json.loads(line) for line in passages.content.decode().splitlines()]
    assert [(r["id"], len(r["candidates"])) for r in records] == [(0, 4), (1, 5)]
    assert all("answers" not in r for r in records)
    example = client.get(reverse("phase_example", args=[slug, phase.kind]))
    assert example["Content-Disposition"] == 'attachment; filename="example-practice.csv"'
    assert example.content.decode() == "0,1,0\n0,2,0\n1,1,0\n1,2,0\n1,3,0\n"
    submission = upload(phase, team, example.content.decode(), django_capture_on_commit_callbacks)
    assert submission.status == Submission.Status.SCORED


@pytest.mark.django_db
def test_no_page_of_an_scde_competition_fails(client, admin_user, django_capture_on_commit_callbacks):
    """Every page an organizer or a participant opens answers without a server error (ReCAM-only views
    included: they say what they cannot show instead)."""
    phase, team = phase_of("scde")
    format_test_set_load(phase=phase, path=SCDE_DEV, official=True)
    submission = upload(
        phase, team, "0,1,1\n0,2,0\n1,1,1\n1,2,0\n1,3,2\n", django_capture_on_commit_callbacks
    )
    slug, kind = phase.competition.slug, phase.kind
    client.force_login(admin_user)
    urls = [
        reverse("competition", args=[slug]),
        reverse("leaderboard", args=[slug, kind]),
        *(reverse("leaderboard_export", args=[slug, kind, fmt]) for fmt in ("csv", "json", "latex")),
        reverse("question_analytics", args=[slug, kind, 1]),
        reverse("phase_data", args=[slug, kind]),
        reverse("submission_detail", args=[submission.pk]),
        reverse("submission_status", args=[submission.pk]),
        reverse("phase_submissions_download", args=[slug, kind]),
        reverse("fact_sheets_export", args=[slug, kind, "csv"]),
        reverse("submit", args=[slug]),
        reverse("my_submissions", args=[slug]),
        reverse("submission_download", args=[submission.pk]),
        reverse("console_competition", args=[slug]),
        reverse("console_phase", args=[slug, kind]),
        f"/admin/competitions/competition/{phase.competition.pk}/change/",
    ]
    statuses = {url: client.get(url).status_code for url in urls}
    assert {url: code for url, code in statuses.items() if code >= 500} == {}
