"""factory_boy factories for the platform's models."""

import factory
from django.contrib.auth import get_user_model

from competitions.models import Competition, Phase
from teams.models import Membership, Team


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.PostGenerationMethodCall("set_password", "a-long-test-password")

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class CompetitionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Competition
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda n: f"comp-{n}")
    title = factory.LazyAttribute(lambda o: f"Competition {o.slug}")


class PhaseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Phase

    competition = factory.SubFactory(CompetitionFactory)
    kind = Phase.Kind.PRACTICE
    title = "Practice"


class TeamFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Team

    competition = factory.SubFactory(CompetitionFactory)
    name = factory.Sequence(lambda n: f"team-{n}")


def member(team: Team, user=None) -> Membership:
    user = user or UserFactory()
    return Membership.objects.create(team=team, user=user, competition=team.competition)
