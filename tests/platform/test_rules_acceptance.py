"""Rules and terms: accepting them at team registration is stored (who, which version, when) and shown to
the organizers in the console and the admin; the admin cannot add or edit such a record."""

import datetime as dt

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from competitions.errors import ApplicationError
from teams.models import RulesAcceptance
from teams.selectors import teams_with_rules_acceptances
from teams.services import team_create, team_join
from tests.platform.factories import CompetitionFactory, UserFactory


@pytest.fixture
def comp(db):
    return CompetitionFactory()


def test_create_and_join_store_who_accepted_which_version_when(comp, settings):
    settings.RULES_VERSION = "v-test-1"
    before = timezone.now()
    owner, mate = UserFactory(username="olga"), UserFactory(username="ben")
    team = team_create(competition=comp, user=owner, name="Owls", accept_rules=True)
    settings.RULES_VERSION = "v-test-2"  # the rules changed between the two acceptances
    team_join(team=team, user=mate, accept_rules=True)
    rows = list(RulesAcceptance.objects.order_by("accepted_at", "id"))
    assert [(r.user, r.username, r.rules_version, r.action) for r in rows] == [
        (owner, "olga", "v-test-1", "create"),
        (mate, "ben", "v-test-2", "join"),
    ]
    assert all(r.team == team and r.competition == comp for r in rows)
    assert all(before <= r.accepted_at <= timezone.now() for r in rows)
    owner.delete()  # the record keeps the name when the account goes
    assert RulesAcceptance.objects.get(username="olga").user is None


def test_a_refused_team_or_join_stores_no_acceptance(comp):
    user = UserFactory()
    team_create(competition=comp, user=user, name="Owls", accept_rules=True)
    with pytest.raises(ApplicationError):
        team_create(competition=comp, user=UserFactory(), name="owls", accept_rules=True)  # name taken
    with pytest.raises(ApplicationError):
        team_create(competition=comp, user=user, name="Bats", accept_rules=True)  # already in a team
    assert RulesAcceptance.objects.count() == 1
    script_made = team_create(competition=comp, user=UserFactory(), name="Script")  # no acceptance given
    assert not RulesAcceptance.objects.filter(team=script_made).exists()


def test_the_web_forms_store_the_acceptance_and_the_console_shows_it(competition, client, settings):
    settings.RULES_VERSION = "2099-01-01"
    owner, friend = UserFactory(username="olga"), UserFactory(username="ben")
    client.force_login(owner)
    refused = client.post(reverse("team", args=[competition.slug]), {"create": "1", "name": "Owls"})
    assert refused.status_code == 200  # the box is required: no team, no record
    assert not RulesAcceptance.objects.exists()
    response = client.post(
        reverse("team", args=[competition.slug]), {"create": "1", "name": "Owls", "accept_rules": "on"}
    )
    assert response.status_code == 302
    team = owner.memberships.get().team
    other = Client()
    other.force_login(friend)
    assert other.post(reverse("team_join", args=[team.invite_code])).status_code == 200  # not accepted
    assert RulesAcceptance.objects.count() == 1
    other.post(reverse("team_join", args=[team.invite_code]), {"accept_rules": "1"})
    assert [(a.username, a.rules_version) for a in RulesAcceptance.objects.order_by("id")] == [
        ("olga", "2099-01-01"),
        ("ben", "2099-01-01"),
    ]
    RulesAcceptance.objects.filter(username="ben").update(
        rules_version="2098-01-01", accepted_at=dt.datetime(2098, 1, 2, 3, 4, tzinfo=dt.UTC)
    )
    staff = Client()
    staff.force_login(UserFactory(is_staff=True))
    page = staff.get(reverse("console_competition", args=[competition.slug])).content.decode()
    table = page[page.index('id="console-teams"') :]
    assert "olga (created the team)" in table
    assert "ben (joined the team)" in table
    assert '2098-01-01 <span class="badge status-failed">older</span>' in table  # not the current one
    assert '<time datetime="2098-01-02T03:04:00+00:00" class="utc">2098-01-02 03:04 UTC</time>' in table
    assert "Current rules version: <strong>2099-01-01</strong>" in page
    rules = client.get(reverse("rules", args=[competition.slug])).content.decode()
    assert "Version 2099-01-01." in rules


def test_teams_without_a_record_are_marked_and_the_selector_costs_two_queries(
    comp, django_assert_num_queries
):
    team_create(competition=comp, user=UserFactory(), name="Form", accept_rules=True)
    team_create(competition=comp, user=UserFactory(), name="Script")
    with django_assert_num_queries(2):
        teams = {t.name: len(t.acceptances) for t in teams_with_rules_acceptances(competition=comp)}
    assert teams == {"Form": 1, "Script": 0}


def test_the_admin_lists_acceptances_read_only(admin_client, comp):
    team_create(competition=comp, user=UserFactory(username="olga"), name="Owls", accept_rules=True)
    acceptance = RulesAcceptance.objects.get()
    listing = admin_client.get(reverse("admin:teams_rulesacceptance_changelist"))
    assert b"olga" in listing.content
    assert admin_client.get(reverse("admin:teams_rulesacceptance_add")).status_code == 403
    url = reverse("admin:teams_rulesacceptance_change", args=[acceptance.pk])
    admin_client.post(url, {"username": "mallory", "rules_version": "forged"})
    acceptance.refresh_from_db()
    assert (acceptance.username, acceptance.rules_version) != ("mallory", "forged")
    team_page = admin_client.get(reverse("admin:teams_team_change", args=[acceptance.team_id]))
    assert acceptance.rules_version.encode() in team_page.content
