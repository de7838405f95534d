"""Home and competition pages (public)."""

from django.conf import settings
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone

from competitions.models import Competition
from competitions.selectors import competition_get, competition_list
from teams.selectors import team_for_user


def home(request):
    competitions = list(competition_list())
    if len(competitions) == 1:
        return redirect("competition", slug=competitions[0].slug)
    return render(request, "competitions/home.html", {"competitions": competitions})


def competition_or_404(slug: str) -> Competition:
    """The competition of a URL's slug (no prefetch), or a 404; the apps' views share this look-up."""
    competition = Competition.objects.filter(slug=slug).first()
    if competition is None:
        raise Http404("no such competition")
    return competition


def competition_detail(request, slug: str):
    competition = competition_get(slug=slug)
    if competition is None:
        raise Http404("no such competition")
    context = {
        "competition": competition,
        "phases": competition.phases.all(),
        "team": team_for_user(competition=competition, user=request.user),
        "now": timezone.now(),
        "max_mib": settings.SUBMISSION_MAX_BYTES / 2**20,
    }
    return render(request, "competitions/detail.html", context)
