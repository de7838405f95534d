import pytest

from competitions.errors import ApplicationError
from teams.models import Membership
from teams.selectors import team_for_user, team_get_by_invite
from teams.services import team_create, team_get_or_create_baseline, team_join
from tests.platform.factories import CompetitionFactory, UserFactory


@pytest.fixture
def comp(db):
    return CompetitionFactory()


def test_create_makes_the_creator_a_member(comp):
    user = UserFactory()
    team = team_create(competition=comp, user=user, name="  Abstract   Minds ")
    assert team.name == "Abstract Minds"
    assert team_for_user(competition=comp, user=user) == team


def test_team_names_are_unique_ignoring_case(comp):
    team_create(competition=comp, user=UserFactory(), name="Owls")
    with pytest.raises(ApplicationError, match="taken"):
        team_create(competition=comp, user=UserFactory(), name="owls")


def test_one_team_per_user_per_competition(comp):
    user = UserFactory()
    team_create(competition=comp, user=user, name="A")
    with pytest.raises(ApplicationError, match="already in a team"):
        team_create(competition=comp, user=user, name="B")
    other = team_create(competition=comp, user=UserFactory(), name="C")
    with pytest.raises(ApplicationError, match="already in the team 'A'"):
        team_join(team=other, user=user)
    # ... but the same user may join a team in another competition
    elsewhere = team_create(competition=CompetitionFactory(), user=UserFactory(), name="A")
    team_join(team=elsewhere, user=user)
    assert Membership.objects.filter(user=user).count() == 2


def test_join_with_the_invite_code(comp):
    team = team_create(competition=comp, user=UserFactory(), name="Owls")
    newcomer = UserFactory()
    found = team_get_by_invite(invite_code=team.invite_code)
    team_join(team=found, user=newcomer)
    assert team_for_user(competition=comp, user=newcomer) == team
    assert team_get_by_invite(invite_code="not-a-code") is None


def test_baselines_cannot_be_joined_or_found_by_invite(comp):
    baseline = team_get_or_create_baseline(competition=comp, name="GA Reader")
    assert baseline.is_baseline
    assert team_get_by_invite(invite_code=baseline.invite_code) is None
    with pytest.raises(ApplicationError, match="baseline"):
        team_join(team=baseline, user=UserFactory())


def test_a_participant_team_is_not_turned_into_a_baseline(comp):
    team_create(competition=comp, user=UserFactory(), name="Owls")
    with pytest.raises(ApplicationError, match="participant team"):
        team_get_or_create_baseline(competition=comp, name="Owls")
