"""Console pages for datasets: upload or pick XSum pairs, start a generation job on the workers, follow
it live, cancel / resume, read the funnel, Tables 3-5 and the quality report, load it into a phase."""

from django.conf import settings
from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from competitions.errors import ApplicationError
from console import generation
from console.forms import GenerationForm, LoadIntoPhaseForm, PairsUploadForm
from console.job_outcome import funnel_rows, job_outcome, quality_options, report_html
from console.models import GenerationJob

MAX_PAIRS_BYTES = 500 * 1024 * 1024


def _choices() -> list[tuple[str, str]]:
    return [(str(p), p.name) for p in generation.pairs_files()]


@staff_member_required
def datasets(request):
    form = GenerationForm(request.POST or None, pairs_choices=_choices())
    if request.method == "POST" and form.is_valid():
        values = dict(form.cleaned_data)
        pairs = values.pop("pairs")
        job = generation.job_start(pairs_path=pairs, values=values, user=request.user)
        messages.success(request, f"Generation job {job.pk} queued on the workers.")
        return redirect("console_job", pk=job.pk)
    context = {"form": form, "upload_form": PairsUploadForm(), "jobs": GenerationJob.objects.all()[:50]}
    return render(request, "console/datasets.html", context)


@staff_member_required
@require_POST
def pairs_upload(request):
    form = PairsUploadForm(request.POST, request.FILES)
    if not form.is_valid() or form.cleaned_data["file"].size > MAX_PAIRS_BYTES:
        messages.error(request, "Choose a .jsonl pairs file (at most 500 MiB).")
        return redirect("console_datasets")
    upload = form.cleaned_data["file"]
    try:
        path = generation.pairs_upload_store(name=upload.name, data=upload.read())
    except ApplicationError as exc:
        messages.error(request, f"Not stored: {exc.message}")
        return redirect("console_datasets")
    check = generation.pairs_check(path=path)
    bad = (
        f"; {len(check.bad_lines)} bad lines skipped (first: {check.bad_lines[0]})" if check.bad_lines else ""
    )
    messages.success(request, f"Stored {path.name}: {check.pairs:,} pairs{bad}.")
    return redirect("console_datasets")


@staff_member_required
def job_page(request, pk: int):
    job = get_object_or_404(GenerationJob, pk=pk)
    outputs = generation.job_outputs(job=job)
    initial = {"subtask": job.settings.get("subtask"), "phase": generation.phase_to_load_into()}
    context = {
        "job": job,
        "outputs": outputs,
        "funnel": funnel_rows(funnel=(outputs["funnel"] or {}).get("funnel", {})),
        "report_html": report_html(markdown=outputs["report_md"]) if outputs["report_md"] else "",
        "outcome": job_outcome(job=job, outputs=outputs),
        "quality_options": quality_options(quality=outputs["quality"], disto_model=settings.DISTO_MODEL),
        "folder": generation.job_dir(job=job),
        "load_form": LoadIntoPhaseForm(initial=initial),
    }
    return render(request, "console/job.html", context)


@staff_member_required
def job_status(request, pk: int):
    job = get_object_or_404(GenerationJob, pk=pk)
    fields = ("status", "stage", "done", "total", "message", "cancel_requested")
    return JsonResponse({name: getattr(job, name) for name in fields})


@staff_member_required
@require_POST
def job_action(request, pk: int):
    job = get_object_or_404(GenerationJob, pk=pk)
    action = request.POST.get("action")
    try:
        if action == "cancel":
            generation.job_cancel(job=job)
            messages.success(request, "Cancel requested: the job stops after its current shard.")
        elif action == "resume":
            generation.job_resume(job=job)
            messages.success(request, "Job queued again; finished shards and folds are reused.")
    except ApplicationError as exc:
        messages.error(request, exc.message)
    return redirect("console_job", pk=pk)


@staff_member_required
@require_POST
def job_validate(request, pk: int):
    job = get_object_or_404(GenerationJob, pk=pk)
    try:
        batch = generation.job_send_to_validation(job=job, user=request.user)
    except ApplicationError as exc:
        messages.error(request, f"Nothing changed: {exc.message}")
        return redirect("console_job", pk=pk)
    messages.success(
        request,
        f"Validation batch {batch.pk} created. Add annotators on this page; each one then presses "
        "Annotate on the Validation page.",
    )
    return redirect("validation:batch", pk=batch.pk)


@staff_member_required
@require_POST
def job_load(request, pk: int):
    job = get_object_or_404(GenerationJob, pk=pk)
    form = LoadIntoPhaseForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose a phase and a subtask.")
        return redirect("console_job", pk=pk)
    phase, subtask = form.cleaned_data["phase"], form.cleaned_data["subtask"]
    try:
        test_set, _ = generation.job_load_into_phase(job=job, phase=phase, subtask=subtask)
    except ApplicationError as exc:
        messages.error(request, f"Nothing changed: {exc.message}")
        return redirect("console_job", pk=pk)
    messages.success(
        request,
        f"{test_set.num_questions:,} questions and their gold loaded into {phase}, Subtask {subtask}.",
    )
    return redirect("console_phase", slug=phase.competition.slug, kind=phase.kind)
