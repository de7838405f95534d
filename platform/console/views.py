"""The organizers' console (staff only): thin views over the console, competitions, submissions and
leaderboards services. Every POST redirects back to the phase page with a message."""

from django.conf import settings
from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from competitions.errors import ApplicationError
from competitions.models import Competition, Phase
from competitions.services import competition_create, competition_format_locked, competition_update
from console import selectors, services
from console.forms import (
    CompetitionCreateForm,
    CompetitionForm,
    FileForSubtaskForm,
    FormatTestSetForm,
    PhaseForm,
    SubmissionActionForm,
)
from leaderboards.exports import FORMATS
from leaderboards.format_board import format_board
from leaderboards.official import official_result_latest
from leaderboards.services import phase_publish
from teams.selectors import teams_with_rules_acceptances

MAX_UPLOAD_BYTES = 200 * 1024 * 1024


def _competition(slug: str) -> Competition:
    competition = Competition.objects.filter(slug=slug).first()
    if competition is None:
        raise Http404("no such competition")
    return competition


def _phase(slug: str, kind: str) -> Phase:
    phase = Phase.objects.filter(competition__slug=slug, kind=kind).select_related("competition").first()
    if phase is None:
        raise Http404("no such phase")
    return phase


def _back(phase: Phase):
    return redirect("console_phase", slug=phase.competition.slug, kind=phase.kind)


@staff_member_required
def index(request):
    competitions = list(Competition.objects.order_by("created_at"))
    if len(competitions) == 1:
        return redirect("console_competition", slug=competitions[0].slug)
    return render(request, "console/index.html", {"competitions": competitions})


@staff_member_required
def competition_new(request):
    form = CompetitionCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            competition = competition_create(**form.cleaned_data)
        except ApplicationError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(
                request,
                f"Competition “{competition.title}” created ({competition.get_task_format_display()}). "
                "Add its phases next.",
            )
            return redirect("console_competition", slug=competition.slug)
    status = 400 if form.errors else 200
    return render(request, "console/competition_new.html", {"form": form}, status=status)


@staff_member_required
def competition_console(request, slug: str):
    competition = _competition(slug)
    locked = competition_format_locked(competition=competition)
    form = CompetitionForm(request.POST or None, instance=competition, format_locked=locked)
    if request.method == "POST" and form.is_valid():
        try:
            competition_update(competition=competition, **form.cleaned_data)
        except ApplicationError as exc:
            form.add_error("task_format", exc.message)
        else:
            messages.success(request, "Competition saved.")
            return redirect("console_competition", slug=slug)
    context = {
        "competition": competition,
        "form": form,
        "overview": selectors.phase_overview(competition=competition),
        "missing": selectors.missing_phase_kinds(competition=competition),
        "datasets_url": reverse("console_datasets"),
        "teams": teams_with_rules_acceptances(competition=competition),
        "rules_version": settings.RULES_VERSION,
    }
    return render(request, "console/competition.html", context)


@staff_member_required
def phase_new(request, slug: str, kind: str):
    competition = _competition(slug)
    if kind not in Phase.Kind.values:
        raise Http404("no such phase kind")
    if Phase.objects.filter(competition=competition, kind=kind).exists():
        return redirect("console_phase", slug=slug, kind=kind)
    form = PhaseForm(request.POST or None, initial=services.phase_defaults(kind=kind))
    if request.method == "POST" and form.is_valid():
        phase = services.phase_save(competition=competition, kind=kind, values=form.cleaned_data)
        messages.success(request, f"Phase “{phase.title}” created. Load its test set next.")
        return _back(phase)
    context = {"competition": competition, "form": form, "kind": kind, "new": True}
    return render(request, "console/phase_form.html", context)


@staff_member_required
def phase_console(request, slug: str, kind: str):
    phase = _phase(slug, kind)
    tables = selectors.phase_preview_tables(phase=phase)
    context = {
        "competition": phase.competition,
        "phase": phase,
        "form": PhaseForm(instance=phase),
        "file_form": FileForSubtaskForm(),
        "format_form": FormatTestSetForm(),
        "test_sets": list(phase.test_sets.select_related("gold")),
        "tables": tables,
        "format_board": format_board(phase=phase, tables=tables),  # CLOTH, SCDE; None for ReCAM
        "frozen": official_result_latest(phase=phase),
        "submissions": selectors.phase_recent_submissions(phase=phase),
        "formats": list(FORMATS),
    }
    return render(request, "console/phase.html", context)


@staff_member_required
@require_POST
def phase_settings(request, slug: str, kind: str):
    phase = _phase(slug, kind)
    form = PhaseForm(request.POST, instance=Phase.objects.get(pk=phase.pk))
    if not form.is_valid():
        context = {"competition": phase.competition, "form": form, "kind": kind, "phase": phase}
        return render(request, "console/phase_form.html", context, status=400)
    services.phase_save(competition=phase.competition, kind=kind, values=form.cleaned_data)
    messages.success(request, "Phase settings saved.")
    return _back(phase)


def _uploaded(request, phase: Phase):
    form = FileForSubtaskForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, "Choose a subtask and a file.")
        return None
    upload = form.cleaned_data["file"]
    if upload.size > MAX_UPLOAD_BYTES:
        messages.error(request, f"{upload.name}: larger than {MAX_UPLOAD_BYTES // 2**20} MiB")
        return None
    return form.cleaned_data["subtask"], upload.read(), upload.name


@staff_member_required
@require_POST
def phase_test_set(request, slug: str, kind: str):
    phase = _phase(slug, kind)
    if (got := _uploaded(request, phase)) is None:
        return _back(phase)
    subtask, data, name = got
    try:
        test_set, with_gold = services.test_set_load_upload(
            phase=phase, subtask=subtask, data=data, filename=name
        )
    except ApplicationError as exc:
        messages.error(request, f"Nothing changed: {exc.message}")
        return _back(phase)
    gold = "with its gold labels" if with_gold else "without labels (upload the gold later)"
    messages.success(
        request, f"Subtask {subtask}: {test_set.num_questions:,} questions loaded from {name}, {gold}."
    )
    return _back(phase)


@staff_member_required
@require_POST
def phase_format_test_set(request, slug: str, kind: str):
    """A CLOTH or SCDE phase's test set (this platform's jsonl or the published layout); re-scores the phase."""
    phase = _phase(slug, kind)
    form = FormatTestSetForm(request.POST, request.FILES)
    if not form.is_valid():
        problems = "; ".join(f"{name}: {' '.join(errors)}" for name, errors in form.errors.items())
        messages.error(request, f"Nothing changed: {problems}")
        return _back(phase)
    upload = form.cleaned_data["file"]
    if upload.size > MAX_UPLOAD_BYTES:
        messages.error(request, f"{upload.name}: larger than {MAX_UPLOAD_BYTES // 2**20} MiB")
        return _back(phase)
    try:
        report = services.format_test_set_upload(
            phase=phase,
            data=upload.read(),
            filename=upload.name,
            official=form.cleaned_data["layout"] == "official",
        )
    except ApplicationError as exc:
        messages.error(request, f"Nothing changed: {exc.message}")
        return _back(phase)
    messages.success(request, f"Test set loaded: {report}; the phase's submissions are re-scored.")
    return _back(phase)


@staff_member_required
@require_POST
def phase_gold(request, slug: str, kind: str):
    phase = _phase(slug, kind)
    if (got := _uploaded(request, phase)) is None:
        return _back(phase)
    subtask, data, name = got
    try:
        gold = services.gold_load_upload(phase=phase, subtask=subtask, data=data, filename=name)
    except ApplicationError as exc:
        messages.error(request, f"Nothing changed: {exc.message}")
        return _back(phase)
    messages.success(
        request,
        f"Subtask {subtask}: {gold.num_labels:,} gold labels stored (sha256 {gold.sha256[:12]}); re-scoring.",
    )
    return _back(phase)


@staff_member_required
@require_POST
def phase_publish_view(request, slug: str, kind: str):
    phase = phase_publish(phase=_phase(slug, kind), publish=request.POST.get("publish") == "1")
    messages.success(request, "Results hidden." if phase.results_hidden else "Results published.")
    return _back(phase)


@staff_member_required
def phase_freeze(request, slug: str, kind: str):
    """GET: what is not final and what the freeze changes; POST with ``confirm``: close and freeze."""
    phase = _phase(slug, kind)
    if request.method != "POST" or request.POST.get("confirm") != "1":
        checks = selectors.phase_freeze_checks(phase=phase, now=timezone.now())
        context = {"competition": phase.competition, "phase": phase, "checks": checks}
        return render(request, "console/freeze.html", context)
    try:
        result = services.phase_close_and_freeze(phase=phase, frozen_by=request.user.get_username())
    except ApplicationError as exc:
        messages.error(request, f"Not frozen: {exc.message}")
        return _back(phase)
    rows = result.rows.count()
    messages.success(
        request,
        f"Official results frozen ({rows} row{pluralize(rows)}); "
        f"the phase is closed to uploads since {result.phase.ends_at:%Y-%m-%d %H:%M} UTC.",
    )
    return _back(phase)


@staff_member_required
@require_POST
def phase_submissions_action(request, slug: str, kind: str):
    phase = _phase(slug, kind)
    ids = [s.pk for s in selectors.phase_recent_submissions(phase=phase)]
    form = SubmissionActionForm(request.POST, submission_ids=ids)
    action = request.POST.get("action")
    if not form.is_valid() or action not in ("rescore", "fail"):
        messages.error(request, "Tick at least one submission, then re-score or mark failed.")
        return _back(phase)
    chosen = form.cleaned_data["ids"]
    if action == "rescore":
        done = services.submissions_rescore(phase=phase, ids=chosen)
        messages.success(request, f"{done} submission(s) queued for scoring.")
    else:
        done = services.submissions_mark_failed(phase=phase, ids=chosen, reason=form.cleaned_data["reason"])
        messages.success(request, f"{done} submission(s) marked failed.")
    return _back(phase)
