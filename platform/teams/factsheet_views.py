"""A team's fact sheet (members edit it until the freeze) and its exports for the organizers."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render

from competitions.errors import ApplicationError
from competitions.models import Phase
from competitions.views import competition_or_404
from leaderboards.factsheets import fact_sheet_save, fact_sheets_csv, fact_sheets_json, fact_sheets_latex
from teams.factsheets import FIELDS, fact_sheet_locked_by
from teams.models import FactSheet
from teams.views import member_team_or_redirect

EXPORTS = {"csv": ("text/csv", fact_sheets_csv), "json": ("application/json", fact_sheets_json)}
EXPORTS["latex"] = ("application/x-latex", fact_sheets_latex)


class FactSheetForm(forms.ModelForm):
    class Meta:
        model = FactSheet
        fields = FIELDS


@login_required
def fact_sheet_page(request, slug: str):
    competition = competition_or_404(slug)
    team, refusal = member_team_or_redirect(
        request, competition=competition, message="Create or join a team first."
    )
    if refusal is not None:
        return refusal
    sheet = FactSheet.objects.filter(team=team).first()
    locked = fact_sheet_locked_by(team=team)
    form = FactSheetForm(request.POST if request.method == "POST" else None, instance=sheet)
    if request.method == "POST" and form.is_valid():
        try:
            fact_sheet_save(team=team, user=request.user, **{f: form.cleaned_data[f] for f in FIELDS})
        except ApplicationError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, "Fact sheet saved.")
            return redirect("fact_sheet", slug=slug)
    required = list(
        Phase.objects.filter(competition=competition, fact_sheet_required=True).values_list(
            "title", flat=True
        )
    )
    context = {"competition": competition, "team": team, "form": form, "locked": locked, "required": required}
    return render(request, "teams/factsheet.html", context, status=400 if form.errors else 200)


def fact_sheets_export(request, slug: str, phase: str, fmt: str):
    if not request.user.is_staff:
        raise Http404("no such page")
    phase_obj = Phase.objects.filter(competition__slug=slug, kind=phase).select_related("competition").first()
    if phase_obj is None or fmt not in EXPORTS:
        raise Http404("no such export")
    content_type, render_export = EXPORTS[fmt]
    response = HttpResponse(render_export(phase=phase_obj), content_type=f"{content_type}; charset=utf-8")
    extension = "tex" if fmt == "latex" else fmt
    response["Content-Disposition"] = f'attachment; filename="{slug}-{phase}-systems.{extension}"'
    return response
