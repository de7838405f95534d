"""Which submission counts: best, last, or the team's selection (default: the last); the board follows."""

import datetime as dt

import pytest
from django.urls import reverse

from competitions.errors import ApplicationError
from leaderboards.counting import Candidate, counted_per_slot
from leaderboards.models import LeaderboardEntry
from submissions.services import submission_select
from teams.services import team_create
from tests.platform.factories import TeamFactory, UserFactory
from tests.platform.ops import N, make_phase, submit

T0 = dt.datetime(2021, 1, 1, tzinfo=dt.UTC)


def test_selected_policy_prefers_the_latest_selection_then_the_last_per_slot():
    a = Candidate(1, (1, False), T0, accuracy=0.9)
    b = Candidate(2, (1, False), T0 + dt.timedelta(hours=1), selected_at=T0 + dt.timedelta(hours=3))
    c = Candidate(3, (1, False), T0 + dt.timedelta(hours=2))
    d = Candidate(4, (1, True), T0)
    counted = counted_per_slot(policy="selected", candidates=[a, b, c, d])
    assert (counted[(1, False)].submission_id, counted[(1, True)].submission_id) == (2, 4)
    assert counted_per_slot(policy="selected", candidates=[a, c])[(1, False)].submission_id == 3
    with pytest.raises(ValueError, match="unknown counted policy 'worst'"):
        counted_per_slot(policy="worst", candidates=[a])


@pytest.mark.parametrize(("policy", "expected_correct"), [("best", 8), ("last", 3), ("selected", 3)])
def test_board_honours_the_policy(db, django_capture_on_commit_callbacks, policy, expected_correct):
    phase = make_phase(counted_policy=policy)
    team = TeamFactory(competition=phase.competition)
    submit(django_capture_on_commit_callbacks, phase, team, 8)
    submit(django_capture_on_commit_callbacks, phase, team, 3)
    entry = LeaderboardEntry.objects.get(phase=phase, team=team, test_subtask=1)
    assert entry.correct == expected_correct


def test_team_selects_its_counted_submission_with_the_button(db, client, django_capture_on_commit_callbacks):
    phase = make_phase(counted_policy="selected")
    user = UserFactory()
    team = team_create(competition=phase.competition, user=user, name="Owls")
    good = submit(django_capture_on_commit_callbacks, phase, team, 9)
    submit(django_capture_on_commit_callbacks, phase, team, 2)
    client.force_login(user)
    page = client.get(reverse("my_submissions", args=[phase.competition.slug])).content.decode()
    assert page.count("this is your counted submission") == 1
    assert reverse("submission_select", args=[good.pk]) in page
    client.post(reverse("submission_select", args=[good.pk]))
    assert LeaderboardEntry.objects.get(phase=phase, team=team, test_subtask=1).correct == 9
    stranger = UserFactory()
    team_create(competition=phase.competition, user=stranger, name="Other")
    client.force_login(stranger)
    assert client.post(reverse("submission_select", args=[good.pk])).status_code == 404


def test_selection_is_refused_where_the_phase_does_not_allow_it(db, django_capture_on_commit_callbacks):
    phase = make_phase(counted_policy="best")
    team = TeamFactory(competition=phase.competition)
    submission = submit(django_capture_on_commit_callbacks, phase, team, N)
    with pytest.raises(ApplicationError, match="nothing to choose"):
        submission_select(submission=submission)


def test_a_policy_change_rewrites_the_board(db, django_capture_on_commit_callbacks):
    from leaderboards.services import leaderboard_refresh_phase

    phase = make_phase(counted_policy="best")
    team = TeamFactory(competition=phase.competition)
    submit(django_capture_on_commit_callbacks, phase, team, 8)
    submit(django_capture_on_commit_callbacks, phase, team, 3)
    phase.counted_policy = "last"
    phase.save()
    assert leaderboard_refresh_phase(phase=phase) == 1
    assert LeaderboardEntry.objects.get(phase=phase, team=team, test_subtask=1).correct == 3


def test_the_evaluation_phase_hides_results_and_lets_teams_choose(competition):
    evaluation = competition.phases.get(kind="evaluation")
    practice = competition.phases.get(kind="practice")
    assert (evaluation.results_hidden, evaluation.counted_policy) == (True, "selected")
    assert (practice.results_hidden, practice.counted_policy) == (False, "best")
