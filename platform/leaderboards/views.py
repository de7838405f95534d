"""The public leaderboard page and its exports: a constant number of queries, tables cached by version."""

import hashlib

from django.core.cache import cache
from django.db.models import Count, Max, OuterRef, Subquery
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import timezone

from competitions.models import Phase
from leaderboards.exports import EXTENSIONS, FORMATS, board_csv, board_json, board_latex
from leaderboards.models import LeaderboardEntry, OfficialResult
from leaderboards.official import official_tables
from leaderboards.selectors import leaderboard_tables
from recam.metrics import SCORER_VERSION

CACHE_SECONDS = 3600  # the key changes with every row written, so this only bounds memory


def _phase(slug: str, kind: str) -> Phase:
    """The phase and, in the same query, the version of its board (entry count, last write, last freeze)."""
    entries = LeaderboardEntry.objects.filter(phase=OuterRef("pk")).order_by().values("phase")
    frozen = OfficialResult.objects.filter(phase=OuterRef("pk")).order_by("-frozen_at", "-id")
    phase = (
        Phase.objects.filter(competition__slug=slug, kind=kind)
        .select_related("competition")
        .annotate(
            board_rows=Subquery(entries.annotate(n=Count("id")).values("n")),
            board_written=Subquery(entries.annotate(at=Max("updated_at")).values("at")),
            frozen_id=Subquery(frozen.values("id")[:1]),
            frozen_at=Subquery(frozen.values("frozen_at")[:1]),
        )
        .first()
    )
    if phase is None:
        raise Http404("no such phase")
    return phase


def _version(phase: Phase) -> str:
    """Changes whenever the shown board can: a row written or removed, a freeze, publishing, a new policy."""
    parts = [phase.competition_id, phase.pk, phase.kind, phase.title, phase.counted_policy]
    if phase.results_hidden:
        parts.append("hidden")
    elif phase.frozen_id is not None:
        parts += ["frozen", phase.frozen_id, phase.frozen_at.isoformat()]
    else:
        written = phase.board_written.isoformat() if phase.board_written else "-"
        parts += ["live", phase.board_rows or 0, written]
    return hashlib.sha256(":".join(str(p) for p in parts).encode()).hexdigest()[:32]


def _frozen(phase: Phase) -> OfficialResult | None:
    return None if phase.frozen_id is None else OfficialResult.objects.get(pk=phase.frozen_id)


def _tables(phase: Phase, frozen: OfficialResult | None):
    if frozen is not None:
        return official_tables(result=frozen)
    return leaderboard_tables(phase=phase, subtasks=[ts.subtask for ts in phase.test_sets.all()])


def leaderboard(request, slug: str, phase: str):
    phase_obj = _phase(slug, phase)
    key = f"leaderboard-page:{_version(phase_obj)}"
    body = cache.get(key)
    if body is None:  # a miss renders the tables once; every later request until a change is a hit
        frozen = None if phase_obj.results_hidden else _frozen(phase_obj)
        phases = Phase.objects.filter(competition=phase_obj.competition).values_list("kind", "title")
        context = {
            "competition": phase_obj.competition,
            "phase": phase_obj,
            "phases": list(phases),
            "hidden": phase_obj.results_hidden,
            "frozen": frozen,
            "tables": [] if phase_obj.results_hidden else _tables(phase_obj, frozen),
            "formats": list(FORMATS),
        }
        body = render_to_string("leaderboards/_board.html", context)
        cache.set(key, body, CACHE_SECONDS)
    context = {"competition": phase_obj.competition, "phase": phase_obj, "board": body}
    return render(request, "leaderboards/leaderboard.html", context)


def leaderboard_export(request, slug: str, phase: str, fmt: str):
    """The shown board (frozen if there is one) as CSV, JSON or LaTeX; organizers may export a hidden one."""
    if fmt not in FORMATS:
        raise Http404("unknown format")
    phase_obj = _phase(slug, phase)
    if phase_obj.results_hidden and not request.user.is_staff:
        raise Http404("the results of this phase are hidden")
    frozen = _frozen(phase_obj)
    tables = _tables(phase_obj, frozen)
    if fmt == "csv":
        text = board_csv(tables=tables)
    elif fmt == "latex":
        text = board_latex(tables=tables, caption_prefix="Official results" if frozen else "Results")
    else:
        meta = {
            "competition": slug,
            "phase": phase,
            "frozen_at": frozen.frozen_at.isoformat() if frozen else None,
            "scorer_version": frozen.scorer_version if frozen else SCORER_VERSION,
            "gold_sha256": frozen.gold_sha256 if frozen else None,
            "exported_at": timezone.now().isoformat(),
        }
        text = board_json(tables=tables, meta=meta)
    response = HttpResponse(text, content_type=f"{FORMATS[fmt]}; charset=utf-8")
    name = f"{slug}-{phase}-{'official' if frozen else 'live'}.{EXTENSIONS[fmt]}"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
