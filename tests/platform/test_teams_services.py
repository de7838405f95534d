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


@pytest.mark.parametrize(
    "name",
    ["\uff34\uff45\uff41\uff4d\uff21", "Team\u200bA", "TEAMA", "Team\u00adA", "Team\u2060A", "Te\u034famA"],
)
def test_look_alike_team_names_are_taken(comp, name):
    """Red-team defect: fullwidth and zero-width look-alikes of a name were accepted beside it."""
    team_create(competition=comp, user=UserFactory(), name="TeamA")
    with pytest.raises(ApplicationError, match="is taken"):
        team_create(competition=comp, user=UserFactory(), name=name)


def test_the_database_refuses_a_look_alike_that_races_past_the_check(comp, monkeypatch):
    from django.db import IntegrityError, transaction

    from teams import services
    from teams.models import Team

    team_create(competition=comp, user=UserFactory(), name="TeamA")
    with pytest.raises(IntegrityError), transaction.atomic():
        Team.objects.create(competition=comp, name="\uff34\uff45\uff41\uff4d\uff21")
    monkeypatch.setattr(services, "team_name_taken", lambda **kw: None)  # the other request checked first
    with pytest.raises(ApplicationError, match="taken"):
        team_create(competition=comp, user=UserFactory(), name="Team\u200bA")
    assert list(Team.objects.filter(competition=comp).values_list("name", "name_key")) == [("TeamA", "teama")]


@pytest.mark.parametrize("name", ["\x1b]0;pwned\x07", "Owls\x00", "Owls\u202eslwO", "Owls\x9b31m"])
def test_control_characters_in_team_names_are_refused(comp, name):
    """Red-team defect: terminal escapes in team names reached `recam leaderboard` raw."""
    with pytest.raises(ApplicationError, match="control characters"):
        team_create(competition=comp, user=UserFactory(), name=name)


def test_a_name_of_invisible_characters_only_is_no_name(comp):
    with pytest.raises(ApplicationError, match="give the team a name"):
        team_create(competition=comp, user=UserFactory(), name="\u200b\u200d")


def test_the_migration_keeps_existing_look_alikes_and_makes_their_keys_unique(comp):
    import importlib

    from django.apps import apps

    from teams.models import Team

    first = team_create(competition=comp, user=UserFactory(), name="TeamA")
    later = team_create(competition=comp, user=UserFactory(), name="Owls")
    Team.objects.filter(pk=later.pk).update(name="TEAMA", name_key="old-2")  # keys not yet filled in
    Team.objects.filter(pk=first.pk).update(name_key="old-1")
    importlib.import_module("teams.migrations.0004_team_name_key").fill_keys(apps, None)
    keys = dict(Team.objects.filter(competition=comp).values_list("pk", "name_key"))
    assert keys == {first.pk: "teama", later.pk: f"teama#{later.pk}"}
