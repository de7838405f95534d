"""The public leaderboard page: no login, a constant number of queries."""

from django.http import Http404
from django.shortcuts import render

from competitions.models import Phase
from leaderboards.selectors import leaderboard_tables


def leaderboard(request, slug: str, phase: str):
    phase_obj = Phase.objects.filter(competition__slug=slug, kind=phase).select_related("competition").first()
    if phase_obj is None:
        raise Http404("no such phase")
    phases = Phase.objects.filter(competition=phase_obj.competition).values_list("kind", "title")
    subtasks = [ts.subtask for ts in phase_obj.test_sets.all()]
    context = {
        "competition": phase_obj.competition,
        "phase": phase_obj,
        "phases": list(phases),
        "tables": leaderboard_tables(phase=phase_obj, subtasks=subtasks),
    }
    return render(request, "leaderboards/leaderboard.html", context)
