"""My team: create one, invite others with a link, join with a code."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render

from competitions.errors import ApplicationError
from competitions.models import Competition
from competitions.views import competition_or_404
from teams.forms import TeamCreateForm, TeamJoinForm
from teams.models import Team
from teams.selectors import team_for_user, team_get_by_invite, team_members
from teams.services import team_create, team_join


def member_team_or_redirect(
    request, *, competition: Competition, message: str
) -> tuple[Team | None, HttpResponse | None]:
    """The user's team in the competition, or (None, a redirect to the team page with ``message``)."""
    team = team_for_user(competition=competition, user=request.user)
    if team is None:
        messages.info(request, message)
        return None, redirect("team", slug=competition.slug)
    return team, None


@login_required
def team_page(request, slug: str):
    competition = competition_or_404(slug)
    team = team_for_user(competition=competition, user=request.user)
    create_form = TeamCreateForm(request.POST if "create" in request.POST else None)
    join_form = TeamJoinForm(request.POST if "join" in request.POST else None)
    if request.method == "POST" and team is None:
        try:
            if create_form.is_bound and create_form.is_valid():
                team_create(
                    competition=competition,
                    user=request.user,
                    name=create_form.cleaned_data["name"],
                    accept_rules=create_form.cleaned_data["accept_rules"],  # required by the form
                )
                messages.success(request, "Team created. Share the invite link with your team-mates.")
                return redirect("team", slug=slug)
            if join_form.is_bound and join_form.is_valid():
                return redirect("team_join", code=join_form.cleaned_data["invite_code"])
        except ApplicationError as exc:
            (create_form if create_form.is_bound else join_form).add_error(None, exc.message)
    context = {"competition": competition, "team": team, "create_form": create_form, "join_form": join_form}
    if team is not None:
        context["members"] = team_members(team=team)
        context["invite_url"] = request.build_absolute_uri(f"/teams/join/{team.invite_code}/")
    return render(request, "teams/team.html", context)


@login_required
def team_join_page(request, code: str):
    team = team_get_by_invite(invite_code=code)
    if team is None:
        raise Http404("this invite code is not valid")
    error = None
    if request.method == "POST" and not request.POST.get("accept_rules"):
        error = "Accept the competition rules and terms to join."
    elif request.method == "POST":
        try:
            team_join(team=team, user=request.user, accept_rules=True)  # checked just above
        except ApplicationError as exc:
            error = exc.message
        else:
            messages.success(request, f"You joined {team.name}.")
            return redirect("team", slug=team.competition.slug)
    return render(request, "teams/join.html", {"team": team, "competition": team.competition, "error": error})
