"""Fact sheets: a phase that requires one counts a team only once it is complete; frozen with the results; exported."""

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from competitions.errors import ApplicationError
from leaderboards.factsheets import fact_sheet_save
from leaderboards.models import LeaderboardEntry
from leaderboards.services import official_result_freeze
from tests.platform.factories import TeamFactory, UserFactory, member
from tests.platform.ops import make_phase, submit

SHEET = {
    "system_name": "Gloss-RoBERTa",
    "model": "RoBERTa-large multiple choice",
    "pretrained_weights": "roberta-large",
    "external_data": "",
    "ensemble": True,
    "ensemble_size": 3,
    "trained_on_trial_dev": False,
    "abstract": "A reader with WordNet glosses.",
}


@pytest.fixture
def phase(db):
    return make_phase(kind="evaluation", counted_policy="last", fact_sheet_required=True)


def test_a_required_fact_sheet_gates_the_result_and_saving_it_counts_the_team(
    phase, django_capture_on_commit_callbacks
):
    team = TeamFactory(competition=phase.competition, name="alpha")
    submit(django_capture_on_commit_callbacks, phase, team, 7)
    assert not LeaderboardEntry.objects.filter(phase=phase, team=team).exists()
    fact_sheet_save(team=team, **{**SHEET, "abstract": "  "})  # incomplete: still not counted
    assert not LeaderboardEntry.objects.filter(phase=phase, team=team).exists()
    fact_sheet_save(team=team, **SHEET)
    assert LeaderboardEntry.objects.get(phase=phase, team=team, test_subtask=1).correct == 7


def test_not_required_means_counted_without_one(db, django_capture_on_commit_callbacks):
    phase = make_phase(kind="practice")
    team = TeamFactory(competition=phase.competition)
    submit(django_capture_on_commit_callbacks, phase, team, 5)
    assert LeaderboardEntry.objects.filter(phase=phase, team=team).exists()


def test_editable_until_the_freeze_then_refused(phase, client, django_capture_on_commit_callbacks):
    team = TeamFactory(competition=phase.competition, name="alpha")
    user = UserFactory()
    member(team, user)
    client.force_login(user)
    url = reverse("fact_sheet", args=[phase.competition.slug])
    response = client.post(url, {**SHEET, "ensemble": "on", "ensemble_size": "3", "trained_on_trial_dev": ""})
    assert response.status_code == 302
    assert team.fact_sheet.model == SHEET["model"]
    submit(django_capture_on_commit_callbacks, phase, team, 7)
    official_result_freeze(phase=phase)
    with pytest.raises(ApplicationError, match="frozen with the official results"):
        fact_sheet_save(team=team, **{**SHEET, "model": "changed"})
    refused = client.post(url, {**SHEET, "model": "changed"})
    assert refused.status_code == 400
    assert "frozen with the official results" in refused.content.decode()
    team.fact_sheet.refresh_from_db()
    assert team.fact_sheet.model == SHEET["model"]


def test_exports_with_the_official_results(phase, client, django_capture_on_commit_callbacks):
    alpha, _beta = (TeamFactory(competition=phase.competition, name=n) for n in ("alpha", "beta_2"))
    fact_sheet_save(team=alpha, **SHEET)
    submit(django_capture_on_commit_callbacks, phase, alpha, 7)
    official_result_freeze(phase=phase)
    args = ["recam_factsheets", "--phase", "evaluation", "--competition", phase.competition.slug]
    out = io.StringIO()
    call_command(*args, "--format", "csv", stdout=out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [(r["team"], r["fact_sheet"], r["model"]) for r in rows] == [("alpha", "True", SHEET["model"])]
    assert "beta_2" not in out.getvalue()  # not on the frozen board (no fact sheet, so never counted)
    out = io.StringIO()
    call_command(*args, "--format", "latex", stdout=out)
    assert (
        r"alpha & Gloss-RoBERTa & RoBERTa-large multiple choice & roberta-large & yes (3) & no \\"
        in out.getvalue()
    )
    assert "Participating systems" in out.getvalue()
    url = reverse("fact_sheets_export", args=[phase.competition.slug, "evaluation", "json"])
    assert client.get(url).status_code == 404
    client.force_login(UserFactory(is_staff=True))
    assert json.loads(client.get(url).content)["systems"][0]["ensemble_size"] == 3
