"""Organizers only: the per-question analytics page of a test set and its CSV (joined with a quality report)."""

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from leaderboards.analytics import (
    QualityReportError,
    analytics_csv,
    analytics_rows,
    phase_analytics,
    phase_baseline_names,
    quality_report_parse,
)
from leaderboards.views import _phase

MAX_REPORT_BYTES = 50 * 1024 * 1024
FLAGGED_SHOWN = 200


def _staff_phase(request, slug: str, phase: str):
    if not request.user.is_staff:
        raise Http404("no such page")  # nobody else learns that the page exists
    return _phase(slug, phase)


def _quality(request):
    upload = request.FILES.get("quality")
    if upload is None:
        return None, ""
    if upload.size > MAX_REPORT_BYTES:
        return None, f"{upload.name}: larger than {MAX_REPORT_BYTES // 2**20} MiB"
    try:
        return quality_report_parse(data=upload.read(), name=upload.name), ""
    except QualityReportError as exc:
        return None, str(exc)


def question_analytics(request, slug: str, phase: str, subtask: int):
    phase_obj = _staff_phase(request, slug, phase)
    quality, error = _quality(request) if request.method == "POST" else (None, "")
    with_baselines = "1" in (request.GET.get("baselines"), request.POST.get("baselines"))
    analytics, skipped = phase_analytics(phase=phase_obj, subtask=subtask, baselines=with_baselines)
    if "csv" in (request.GET.get("format"), request.POST.get("format")):
        if analytics is None:
            raise Http404("no answers per question yet")
        response = HttpResponse(analytics_csv(analytics=analytics, quality=quality), content_type="text/csv")
        response["Content-Disposition"] = (
            f'attachment; filename="{slug}-{phase}-subtask{subtask}-questions'
            f'{"-with-baselines" if with_baselines else ""}.csv"'
        )
        return response
    rows = analytics_rows(analytics=analytics, quality=quality) if analytics else []
    flagged = [row for row in rows if row["flags"]]
    open_phase = phase_obj.ends_at is None or phase_obj.ends_at > timezone.now()
    context = {
        "competition": phase_obj.competition,
        "phase": phase_obj,
        "subtask": subtask,
        "analytics": analytics,
        "skipped": skipped,
        "flagged": flagged[:FLAGGED_SHOWN],
        "flagged_total": len(flagged),
        "flag_counts": {
            f: sum(f in r["flags"].split() for r in rows)
            for f in ("strong_agree_wrong", "none_right", "unpicked_distractors")
        },
        "teams": sorted(analytics.teams, key=lambda t: -t.accuracy) if analytics else [],
        "baseline_names": phase_baseline_names(phase=phase_obj, subtask=subtask),
        "with_baselines": with_baselines,
        "quality": quality,
        "quality_error": error,
        "open_phase": open_phase,
    }
    return render(request, "leaderboards/analytics.html", context, status=400 if error else 200)
