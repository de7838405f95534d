"""The newcomer path: a phase's Data page and its public files, and the API token page."""

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods
from rest_framework.authtoken.models import Token

from api.services import token_get_or_create
from competitions.models import Competition, Phase
from competitions.selectors import phase_by_slug
from onboarding import selectors
from recam.formats import DEFAULT_FORMAT


def _phase(slug: str, kind: str) -> Phase:
    phase = phase_by_slug(slug=slug, kind=kind, prefetch=("test_sets__gold",))
    if phase is None:
        raise Http404("no such phase")
    return phase


def _attachment(body: bytes, name: str, content_type: str) -> HttpResponse:
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def data_index(request, slug: str):
    """The Data page of the competition's first phase (the navigation links here)."""
    phase = Phase.objects.filter(competition__slug=slug).order_by("order").first()
    if phase is None:
        raise Http404("no phase yet")
    return redirect("phase_data", slug=slug, kind=phase.kind)


def phase_data(request, slug: str, kind: str):
    phase = _phase(slug, kind)
    phases = Phase.objects.filter(competition=phase.competition)
    context = {
        "competition": phase.competition,
        "phase": phase,
        "phases": phases,
        "test_sets": list(phase.test_sets.all()),
        "now": timezone.now(),
        "max_mib": settings.SUBMISSION_MAX_BYTES / 2**20,
    }
    return render(request, "onboarding/data.html", context)


def phase_questions(request, slug: str, kind: str, subtask: int):
    phase = _phase(slug, kind)
    test_set = next((ts for ts in phase.test_sets.all() if ts.subtask == subtask), None)
    body = selectors.public_questions_jsonl(test_set=test_set) if test_set else None
    if body is None:
        raise Http404("no questions file for this subtask")
    fmt = phase.competition.task_format
    name = f"subtask{subtask}.jsonl" if fmt == DEFAULT_FORMAT else f"{fmt}-{kind}.jsonl"
    return _attachment(body, name, "application/jsonl; charset=utf-8")


def phase_example(request, slug: str, kind: str):
    phase = _phase(slug, kind)
    if not phase.test_sets.all():
        raise Http404("this phase has no test set yet")
    if phase.competition.task_format != DEFAULT_FORMAT:  # CLOTH, SCDE: one id,blank,label CSV
        body = selectors.example_format_csv(phase=phase)
        return _attachment(body, f"example-{kind}.csv", "text/csv; charset=utf-8")
    return _attachment(
        selectors.example_submission_zip(phase=phase), f"example-{kind}.zip", "application/zip"
    )


def rules(request, slug: str):
    competition = Competition.objects.filter(slug=slug).first()
    if competition is None:
        raise Http404("no such competition")
    phases = Phase.objects.filter(competition=competition)
    context = {"competition": competition, "phases": phases, "rules_version": settings.RULES_VERSION}
    return render(request, "onboarding/rules.html", context)


def phase_files_json(request, kind: str):
    """``{file name: absolute URL}`` of the phase's public files (what ``recam data`` downloads)."""
    slug = request.GET.get("competition") or settings.RECAM_COMPETITION_SLUG
    phase = _phase(slug, kind)
    urls = {
        f"subtask{ts.subtask}.jsonl": reverse("phase_questions", args=[slug, kind, ts.subtask])
        for ts in phase.test_sets.all()
    }
    if urls:
        urls[f"example-{kind}.zip"] = reverse("phase_example", args=[slug, kind])
    urls["recam-starting-kit.zip"] = reverse("starting_kit")
    files = {name: request.build_absolute_uri(url) for name, url in urls.items()}
    return JsonResponse({"competition": slug, "phase": kind, "files": files})


def starting_kit(request):
    return _attachment(selectors.starting_kit_zip(), "recam-starting-kit.zip", "application/zip")


@login_required
@require_http_methods(["GET", "POST"])
def api_token(request):
    """The key is shown right after it is made; afterwards the page says only that a token exists."""
    key = None
    if request.method == "POST":
        key = token_get_or_create(user=request.user, reset=True).key
    token = Token.objects.filter(user=request.user).first()
    return render(request, "onboarding/token.html", {"key": key, "token": token})
