"""Organizer pages (staff): batches, results, export. Annotator pages: assignments, one item at a time."""

from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, HttpResponseForbidden
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.views.decorators.http import require_POST

from competitions.errors import ApplicationError
from recam.agreement import CATEGORIES, NONE_FITS
from validation import selectors
from validation.assignments import (
    annotation_answer,
    annotation_mark_shown,
    assignment_get_or_create,
    assignments_release,
)
from validation.exports import batch_export_zip
from validation.forms import (
    AddAnnotatorsForm,
    BatchForm,
    BatchSettingsForm,
    QualityReportForm,
    ReleaseForm,
)
from validation.results import batch_results
from validation.services import (
    BatchSettings,
    annotators_add,
    batch_attach_quality_report,
    batch_create,
    batch_settings_update,
)
from validation.two_stage import (
    annotation_answer_with_article,
    annotation_answer_without_article,
    two_stage_results,
)


def _source_paths() -> list[str]:
    folder = Path(settings.VALIDATION_SOURCE_DIR)
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*.jsonl")) if folder.is_dir() else []


@login_required
def home(request):
    if not (request.user.is_staff or selectors.user_is_annotator(user=request.user)):
        return render(request, "validation/not_annotator.html", status=403)
    form = None
    if request.user.is_staff:
        form = BatchForm(request.POST or None, request.FILES or None, paths=_source_paths())
        if request.method == "POST" and form.is_valid():
            try:
                batch = _create(request, form.cleaned_data)
            except ApplicationError as exc:
                form.add_error(None, exc.message)
            else:
                messages.success(request, f"created batch {batch.pk}: {batch.questions.count()} questions")
                return redirect("validation:batch", pk=batch.pk)
    context = {
        "overviews": selectors.batch_overviews(user=request.user),
        "form": form,
        "is_annotator": selectors.user_is_annotator(user=request.user),
    }
    return render(request, "validation/home.html", context, status=400 if form and form.errors else 200)


def _create(request, data: dict):
    if data["file"]:
        source_name, content = data["file"].name, data["file"].read()
    else:
        path = (Path(settings.VALIDATION_SOURCE_DIR) / data["path"]).resolve()
        if data["path"] not in _source_paths():
            raise ApplicationError(f"{data['path']}: not a file under VALIDATION_SOURCE_DIR")
        source_name, content = data["path"], path.read_bytes()
    gold = (data["gold_file"].name, data["gold_file"].read()) if data["gold_file"] else None
    batch_settings = BatchSettings(
        annotations_per_question=data["annotations_per_question"],
        questions_per_assignment=data["questions_per_assignment"],
        allow_none=data["allow_none"],
        gold_rate=data["gold_rate"],
        min_gold_accuracy=data["min_gold_accuracy"],
        two_stage=bool(data.get("two_stage")),
    )
    return batch_create(
        name=data["name"], source_name=source_name, data=content, batch_settings=batch_settings,
        gold=gold, created_by=request.user,
    )  # fmt: skip


@staff_member_required
def batch_detail(request, pk: int):
    batch = selectors.batch_get(pk=pk)
    if batch is None:
        raise Http404("no such batch")
    form = QualityReportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["report"]
        try:
            batch_attach_quality_report(batch=batch, name=upload.name, data=upload.read())
        except ApplicationError as exc:
            form.add_error("report", exc.message)
        else:
            messages.success(request, f"attached the quality report {upload.name}")
            return redirect("validation:batch", pk=batch.pk)
    return _batch_page(request, batch, form=form)


def _batch_page(request, batch, **forms):
    results = batch_results(batch=batch)
    initial = {
        "annotations_per_question": batch.annotations_per_question,
        "min_gold_accuracy": batch.min_gold_accuracy,
    }
    context = {
        "two_stage": two_stage_results(batch=batch) if batch.two_stage else None,
        "batch": batch,
        "results": results,
        "form": forms.get("form") or QualityReportForm(),
        "add_form": forms.get("add_form") or AddAnnotatorsForm(),
        "settings_form": forms.get("settings_form") or BatchSettingsForm(initial=initial),
        "holders": selectors.open_slot_holders(batch=batch),
        "annotators": selectors.annotator_usernames(),
        "none_fits": NONE_FITS,
        "categories": CATEGORIES,
    }
    status = 400 if any(f.errors for f in forms.values()) else 200
    return render(request, "validation/batch.html", context, status=status)


def _staff_batch(pk: int):
    batch = selectors.batch_get(pk=pk)
    if batch is None:
        raise Http404("no such batch")
    return batch


@staff_member_required
@require_POST
def batch_add_annotators(request, pk: int):
    batch = _staff_batch(pk)
    form = AddAnnotatorsForm(request.POST)
    if form.is_valid():
        try:
            users = annotators_add(usernames=form.cleaned_data["usernames"])
        except ApplicationError as exc:
            form.add_error("usernames", exc.message)
        else:
            names = ", ".join(sorted(u.username for u in users))
            messages.success(
                request, f"{names} can annotate now: they press Annotate on the Validation page."
            )
            return redirect("validation:batch", pk=batch.pk)
    return _batch_page(request, batch, add_form=form)


@staff_member_required
@require_POST
def batch_release(request, pk: int):
    batch = _staff_batch(pk)
    form = ReleaseForm(request.POST)
    user = selectors.user_by_username(username=form.data.get("username", ""))
    if user is None:
        messages.error(request, "no such annotator")
    else:
        released = assignments_release(batch=batch, annotator=user)
        messages.success(
            request,
            f"released {released} open slot{pluralize(released)} of {user.username}: others can take them",
        )
    return redirect("validation:batch", pk=batch.pk)


@staff_member_required
@require_POST
def batch_settings(request, pk: int):
    batch = _staff_batch(pk)
    form = BatchSettingsForm(request.POST)
    if form.is_valid():
        try:
            batch_settings_update(batch=batch, **form.cleaned_data)
        except ApplicationError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, "batch settings saved; the results below use them")
            return redirect("validation:batch", pk=batch.pk)
    return _batch_page(request, batch, settings_form=form)


@staff_member_required
def batch_export_download(request, pk: int):
    batch = selectors.batch_get(pk=pk)
    if batch is None:
        raise Http404("no such batch")
    response = HttpResponse(batch_export_zip(batch=batch), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="validation-batch-{batch.pk}.zip"'
    return response


@login_required
@require_POST
def annotate_start(request, pk: int):
    if not selectors.user_is_annotator(user=request.user):
        return HttpResponseForbidden("you do not have the annotator role")
    batch = selectors.batch_get(pk=pk)
    if batch is None:
        raise Http404("no such batch")
    assignment = assignment_get_or_create(batch=batch, annotator=request.user)
    if assignment is None:
        messages.info(request, f"nothing left for you to annotate in {batch.name}: thank you")
        return redirect("validation:home")
    return redirect("validation:assignment", pk=assignment.pk)


@login_required
def assignment_page(request, pk: int):
    if not selectors.user_is_annotator(user=request.user):
        return HttpResponseForbidden("you do not have the annotator role")
    assignment = selectors.assignment_get(pk=pk, annotator=request.user)
    if assignment is None:
        raise Http404("no such assignment")
    if request.method == "POST":
        try:
            answer = int(request.POST.get("answer", ""))
            annotation_id = int(request.POST.get("annotation", ""))
            if assignment.batch.two_stage:
                _answer_two_stage(request, assignment=assignment, annotation_id=annotation_id, answer=answer)
            else:
                annotation_answer(
                    assignment=assignment, annotator=request.user, annotation_id=annotation_id, answer=answer
                )
        except ValueError:
            messages.error(request, "choose one of the options")
        except ApplicationError as exc:
            messages.error(request, exc.message)
        return redirect("validation:assignment", pk=assignment.pk)
    annotation = selectors.assignment_next_annotation(assignment=assignment)
    item = None
    if annotation is not None and assignment.status == assignment.Status.OPEN:
        annotation_mark_shown(annotation=annotation)
        item = selectors.item_view(annotation=annotation, allow_none=assignment.batch.allow_none)
    without_article = bool(
        item and assignment.batch.two_stage and annotation.answer_without_article is None
    )  # the first of two stages: the article is not shown
    context = {
        "assignment_id": assignment.pk,
        "batch_id": assignment.batch_id,
        "batch_name": assignment.batch.name,
        "status": assignment.status,
        "item": item,
        "progress": selectors.assignment_progress(assignment=assignment),
        "none_fits": NONE_FITS,
        "two_stage": assignment.batch.two_stage,
        "without_article": without_article,
    }
    return render(request, "validation/annotate.html", context)


def _answer_two_stage(request, *, assignment, annotation_id: int, answer: int) -> None:
    if request.POST.get("stage") == "without-article":
        annotation_answer_without_article(
            assignment=assignment, annotator=request.user, annotation_id=annotation_id, answer=answer
        )
    else:
        annotation_answer_with_article(
            assignment=assignment, annotator=request.user, annotation_id=annotation_id, answer=answer,
            multiple_fit=request.POST.get("multiple_fit") == "on",
            ungrammatical=request.POST.get("ungrammatical") == "on",
        )  # fmt: skip
