"""The leaderboard page is cached by a cheap version: one query on a hit, and a new score shows at once."""

from django.urls import reverse

from tests.platform.factories import TeamFactory
from tests.platform.ops import make_phase, submit


def test_a_hit_costs_one_query_and_a_new_score_shows_at_once(
    db, client, django_assert_num_queries, django_capture_on_commit_callbacks
):
    phase = make_phase()
    team = TeamFactory(competition=phase.competition, name="Owls")
    submit(django_capture_on_commit_callbacks, phase, team, 3)
    url = reverse("leaderboard", args=[phase.competition.slug, phase.kind])
    assert "30.00" in client.get(url).content.decode()
    with django_assert_num_queries(1):
        again = client.get(url)
    assert "30.00" in again.content.decode()
    other = TeamFactory(competition=phase.competition, name="Bats")
    submit(django_capture_on_commit_callbacks, phase, other, 6)
    page = client.get(url).content.decode()
    assert "60.00" in page
    assert "Bats" in page
    phase.counted_policy = "last"  # the policy is part of the version too
    phase.save()
    submit(django_capture_on_commit_callbacks, phase, team, 1)
    assert "10.00" in client.get(url).content.decode()
