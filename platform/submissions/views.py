"""Upload form, my submissions, a submission's page, its status JSON and its file (members only)."""

import io

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from competitions.errors import ApplicationError
from competitions.models import Competition, Phase
from competitions.views import competition_or_404
from leaderboards.selectors import counted_note, counted_submission_ids, phase_counted_submission_ids
from recam.submission import SubmissionError
from submissions.downloads import phase_submissions_zip
from submissions.forms import SubmissionForm
from submissions.models import Submission
from submissions.queue import submission_queue_info
from submissions.quotas import quota_status
from submissions.selectors import (
    results_hidden_for,
    submission_duplicate_of_other_team,
    submission_get_for_user,
    submission_list_for_team,
    submission_status,
    submission_validity,
)
from submissions.services import submission_create, submission_select
from teams.selectors import team_for_user
from teams.views import member_team_or_redirect


@login_required
def submit(request, slug: str):
    competition = competition_or_404(slug)
    team, refusal = member_team_or_redirect(
        request, competition=competition, message="Create or join a team before you submit."
    )
    if refusal is not None:
        return refusal
    form = SubmissionForm(request.POST or None, request.FILES or None, competition=competition)
    problems = []
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        # An upload over the limit is refused from its size alone; its bytes are never read into memory.
        data = upload.read() if upload.size <= settings.SUBMISSION_MAX_BYTES else b""
        try:
            submission = submission_create(
                phase=form.cleaned_data["phase"],
                team=team,
                filename=upload.name,
                data=data,
                size=upload.size,
                submitted_by=request.user,
                trained_on={1: form.cleaned_data["trained_on_1"], 2: form.cleaned_data["trained_on_2"]},
                system_name=form.cleaned_data["system_name"],
                description=form.cleaned_data["description"],
            )
        except SubmissionError as exc:
            problems = [str(p) for p in exc.problems]
        except ApplicationError as exc:
            form.add_error(None, exc.message)
        else:
            return redirect("submission_detail", pk=submission.pk)
    context = {
        "competition": competition,
        "team": team,
        "form": form,
        "problems": problems,
        "quotas": phase_quotas(competition=competition, team=team),
    }
    return render(request, "submissions/submit.html", context, status=400 if problems else 200)


@login_required
def my_submissions(request, slug: str):
    competition = competition_or_404(slug)
    team = team_for_user(competition=competition, user=request.user)
    submissions = list(submission_list_for_team(team=team)) if team else []
    counted = {}
    for phase in {s.phase for s in submissions}:
        counted[phase.pk] = counted_submission_ids(phase=phase, team=team)
    for submission in submissions:  # annotate for the template: hidden scores, counted, may be selected
        submission.hidden = results_hidden_for(phase=submission.phase, user=request.user)
        submission.counted_note = counted_note(
            submission=submission, counted_ids=counted[submission.phase_id], hidden=submission.hidden
        )
        submission.selectable = (
            submission.phase.counted_policy == Phase.CountedPolicy.SELECTED
            and submission.status != Submission.Status.FAILED
            and not submission.counted_note
        )
    return render(
        request,
        "submissions/list.html",
        {"competition": competition, "team": team, "submissions": submissions},
    )


@login_required
@require_POST
def submission_select_view(request, pk: int):
    submission = _get(request, pk)
    if not submission.team.memberships.filter(user=request.user).exists():
        raise Http404("only the team's members choose its counted submission")
    try:
        submission_select(submission=submission)
    except ApplicationError as exc:
        messages.error(request, exc.message)
    else:
        messages.info(request, f"Submission {submission.pk} now counts for {submission.phase.title}.")
    return redirect("my_submissions", slug=submission.phase.competition.slug)


def _get(request, pk: int):
    submission = submission_get_for_user(user=request.user, submission_id=pk)
    if submission is None:
        raise Http404("no such submission")
    return submission


@login_required
def submission_detail(request, pk: int):
    submission = _get(request, pk)
    hidden = results_hidden_for(phase=submission.phase, user=request.user)
    counted = counted_submission_ids(phase=submission.phase, team=submission.team)
    context = {
        "submission": submission,
        "competition": submission.phase.competition,
        "results_hidden": hidden,
        "validity": submission_validity(submission=submission),
        "counted_note": counted_note(submission=submission, counted_ids=counted, hidden=hidden),
        "duplicate": submission_duplicate_of_other_team(submission=submission),
    }
    context["queue"] = submission_queue_info(submission=submission)
    return render(request, "submissions/detail.html", context)


@login_required
def submission_status_json(request, pk: int):
    submission = _get(request, pk)
    hidden = results_hidden_for(phase=submission.phase, user=request.user)
    return JsonResponse(submission_status(submission=submission, hidden=hidden))


@login_required
def submission_download(request, pk: int):
    submission = _get(request, pk)
    return FileResponse(submission.file.open("rb"), as_attachment=True, filename=submission.original_filename)


def phase_quotas(*, competition: Competition, team) -> list[dict]:
    """Per phase: what the team has left now and when the UTC day resets (for the upload page)."""
    if team is None:
        return []
    now = timezone.now()
    phases = Phase.objects.filter(competition=competition).order_by("order")
    return [
        {"phase": p, "quota": quota_status(team=team, phase=p, at=now), "open": p.is_open(at=now)}
        for p in phases
    ]


@login_required
def phase_submissions_download(request, slug: str, phase: str):
    """Organizers only: every submission of the phase as a zip with manifest.csv."""
    if not request.user.is_staff:
        raise Http404("no such page")
    phase_obj = Phase.objects.filter(competition__slug=slug, kind=phase).first()
    if phase_obj is None:
        raise Http404("no such phase")
    buffer = io.BytesIO()
    phase_submissions_zip(phase=phase_obj, out=buffer, counted=phase_counted_submission_ids(phase=phase_obj))
    buffer.seek(0)
    stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
    return FileResponse(buffer, as_attachment=True, filename=f"{slug}-{phase}-submissions-{stamp}.zip")
