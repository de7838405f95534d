"""Upload form, my submissions, a submission's page, its status JSON and its file (members only)."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, JsonResponse
from django.shortcuts import redirect, render

from competitions.errors import ApplicationError
from competitions.models import Competition
from recam.submission import SubmissionError
from submissions.forms import SubmissionForm
from submissions.queue import submission_queue_info
from submissions.selectors import submission_get_for_user, submission_list_for_team, submission_status
from submissions.services import submission_create
from teams.selectors import team_for_user


def _competition(slug: str) -> Competition:
    competition = Competition.objects.filter(slug=slug).first()
    if competition is None:
        raise Http404("no such competition")
    return competition


@login_required
def submit(request, slug: str):
    competition = _competition(slug)
    team = team_for_user(competition=competition, user=request.user)
    if team is None:
        messages.info(request, "Create or join a team before you submit.")
        return redirect("team", slug=slug)
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
    context = {"competition": competition, "team": team, "form": form, "problems": problems}
    return render(request, "submissions/submit.html", context, status=400 if problems else 200)


@login_required
def my_submissions(request, slug: str):
    competition = _competition(slug)
    team = team_for_user(competition=competition, user=request.user)
    submissions = submission_list_for_team(team=team) if team else []
    return render(
        request,
        "submissions/list.html",
        {"competition": competition, "team": team, "submissions": submissions},
    )


def _get(request, pk: int):
    submission = submission_get_for_user(user=request.user, submission_id=pk)
    if submission is None:
        raise Http404("no such submission")
    return submission


@login_required
def submission_detail(request, pk: int):
    submission = _get(request, pk)
    context = {"submission": submission, "competition": submission.phase.competition}
    context["queue"] = submission_queue_info(submission=submission)
    return render(request, "submissions/detail.html", context)


@login_required
def submission_status_json(request, pk: int):
    return JsonResponse(submission_status(submission=_get(request, pk)))


@login_required
def submission_download(request, pk: int):
    submission = _get(request, pk)
    return FileResponse(submission.file.open("rb"), as_attachment=True, filename=submission.original_filename)
