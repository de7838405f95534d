"""The public leaderboard page and its exports: a constant number of queries, tables cached by version."""

import datetime as dt
import hashlib

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from markdown_it import MarkdownIt

from competitions.models import Competition, Phase, TestSet
from leaderboards.exports import EXTENSIONS, FORMATS, board_csv, board_json
from leaderboards.format_board import format_board, format_export_meta, format_metric_keys, phase_board_latex
from leaderboards.models import LeaderboardEntry, OfficialResult, PhaseStatistics
from leaderboards.official import official_tables
from leaderboards.selectors import leaderboard_tables

CACHE_SECONDS = 3600  # the key changes with every row written, so this only bounds memory


def _phase(slug: str, kind: str) -> Phase:
    phase = Phase.objects.filter(competition__slug=slug, kind=kind).select_related("competition").first()
    if phase is None:
        raise Http404("no such phase")
    return phase


def _frozen(phase: Phase) -> OfficialResult | None:
    return OfficialResult.objects.filter(phase=phase).order_by("-frozen_at", "-id").first()


def _tables(phase: Phase, frozen: OfficialResult | None):
    if frozen is not None:
        return official_tables(result=frozen)
    subtasks = [ts.subtask for ts in phase.test_sets.all()]
    return leaderboard_tables(phase=phase, subtasks=subtasks, with_submissions=True)  # + system names


def _version_sql() -> str:
    phase, competition = Phase._meta.db_table, Competition._meta.db_table
    entry, frozen = LeaderboardEntry._meta.db_table, OfficialResult._meta.db_table
    statistics = PhaseStatistics._meta.db_table
    # Hand-written: compiling the equivalent ORM query with its subqueries costs more than running it.
    return f"""
        SELECT p.id, p.competition_id, p.title, p.counted_policy, p.results_hidden,
          (SELECT COUNT(*) FROM {entry} e WHERE e.phase_id = p.id),
          (SELECT MAX(e.updated_at) FROM {entry} e WHERE e.phase_id = p.id),
          (SELECT COUNT(*) FROM {frozen} o WHERE o.phase_id = p.id),
          (SELECT MAX(o.frozen_at) FROM {frozen} o WHERE o.phase_id = p.id),
          (SELECT s.recomputes * 2 + CASE WHEN s.requested > s.computed THEN 1 ELSE 0 END FROM {statistics} s WHERE s.phase_id = p.id),
          (SELECT s.computed_at FROM {statistics} s WHERE s.phase_id = p.id)
        FROM {phase} p JOIN {competition} c ON c.id = p.competition_id
        WHERE c.slug = %s AND p.kind = %s"""


def _version(slug: str, kind: str) -> tuple[int, int, str, dict | None]:
    """(phase id, number of frozen results, a version that changes whenever the shown board can, the
    statistics state), in one indexed query.

    Changes with: a row written or removed, a freeze, publishing or hiding, a new policy or title, a
    statistics version computed or asked for (the board says when its ranks are being updated).
    """
    with connection.cursor() as cursor:
        cursor.execute(_version_sql(), [slug, kind])
        found = cursor.fetchone()
    if found is None:
        raise Http404("no such phase")
    (
        phase_id,
        competition_id,
        title,
        policy,
        hidden,
        rows,
        written,
        frozen_n,
        frozen_at,
        stats_state,
        computed_at,
    ) = found
    statistics = None
    if stats_state is not None:  # version N, and whether a recompute is pending (requested > computed)
        statistics = {
            "recomputes": stats_state // 2,
            "updating": bool(stats_state % 2),
            "computed_at": computed_at,
        }
    parts = [competition_id, phase_id, slug, kind, title, policy]
    if hidden:
        parts.append("hidden")
    elif frozen_n:
        parts += ["frozen", frozen_n, frozen_at]
    else:
        parts += ["live", rows, written, stats_state]
    return (
        phase_id,
        frozen_n,
        hashlib.sha256(":".join(str(p) for p in parts).encode()).hexdigest()[:32],
        statistics,
    )


def _datetime(value):
    """A timestamp from a raw query: SQLite gives it as text (UTC), PostgreSQL as a datetime."""
    if isinstance(value, str):
        value = parse_datetime(value)
        if value is not None and timezone.is_naive(value):
            value = timezone.make_aware(value, dt.UTC)
    return value


def leaderboard_index(request, slug: str):
    """The board of the competition's first phase (the navigation links here: no phase kind is assumed)."""
    kind = Phase.objects.filter(competition__slug=slug).order_by("order", "pk").values_list("kind", flat=True)
    first = kind.first()
    if first is None:
        raise Http404("this competition has no phase yet")
    return redirect("leaderboard", slug=slug, phase=first)


def _unofficial_subtasks(phase: Phase, frozen: OfficialResult | None) -> list[int]:
    """Subtasks with a test set that the frozen snapshot left out (no gold answers when it was made)."""
    if frozen is None:
        return []
    official = {int(subtask) for subtask in frozen.gold_sha256}
    subtasks = TestSet.objects.filter(phase=phase).order_by("subtask").values_list("subtask", flat=True)
    return [subtask for subtask in subtasks if subtask not in official]


def leaderboard(request, slug: str, phase: str):
    phase_id, frozen_n, version, statistics = _version(slug, phase)
    key = f"leaderboard-page:{version}"
    # A visitor without a session or pending messages gets the same bytes as every other such visitor.
    anonymous = not ({settings.SESSION_COOKIE_NAME, "messages"} & request.COOKIES.keys())
    if anonymous and (page := cache.get(f"{key}:anonymous")) is not None:
        return HttpResponse(page)
    cached = cache.get(key)
    if cached is None:  # a miss renders the tables once; every later request until a change is a hit
        phases = list(Phase.objects.filter(competition__slug=slug).select_related("competition"))
        phase_obj = next(p for p in phases if p.pk == phase_id)
        frozen = _frozen(phase_obj) if frozen_n and not phase_obj.results_hidden else None
        context = {
            "competition": phase_obj.competition,
            "phase": phase_obj,
            "phases": [(p.kind, p.title) for p in phases],
            "hidden": phase_obj.results_hidden,
            "frozen": frozen,
            "unofficial": _unofficial_subtasks(phase_obj, frozen),
            "statistics": statistics if not frozen else None,
            "tables": [] if phase_obj.results_hidden else _tables(phase_obj, frozen),
            "formats": list(FORMATS),
        }
        # A CLOTH or SCDE phase shows its format's metrics and chance row (None for ReCAM).
        context["format_board"] = format_board(phase=phase_obj, tables=context["tables"])
        body = render_to_string("leaderboards/_board.html", context)
        cached = {
            "board": body,
            "competition": {"slug": slug},
            "phase": {"title": phase_obj.title},
        }
        cache.set(key, cached, CACHE_SECONDS)
    context = cached
    if request.user.is_staff:  # the organizers' links above the board; one more query, for staff only
        subtasks = (
            TestSet.objects.filter(phase_id=phase_id).order_by("subtask").values_list("subtask", flat=True)
        )
        formats = ["csv", "json", "latex"]
        context = {**cached, "kind": phase, "subtasks": list(subtasks), "factsheet_formats": formats}
    response = render(request, "leaderboards/leaderboard.html", context)
    if anonymous and not request.user.is_authenticated:
        cache.set(f"{key}:anonymous", response.content, CACHE_SECONDS)
    return response


def leaderboard_export(request, slug: str, phase: str, fmt: str):
    """The shown board (frozen if there is one) as CSV, JSON or LaTeX; organizers may export a hidden one."""
    if fmt not in FORMATS:
        raise Http404("unknown format")
    phase_obj = _phase(slug, phase)
    if phase_obj.results_hidden and not request.user.is_staff:
        raise Http404("the results of this phase are hidden")
    frozen = _frozen(phase_obj)
    tables = _tables(phase_obj, frozen)
    metric_keys = format_metric_keys(phase=phase_obj)  # CLOTH, SCDE: every metric per row; ReCAM: none
    if fmt == "csv":
        text = board_csv(tables=tables, metric_keys=metric_keys)
    elif fmt == "latex":
        text = phase_board_latex(phase=phase_obj, tables=tables, frozen=bool(frozen))
    else:
        about = format_export_meta(phase=phase_obj)  # the format's scorer version (and CLOTH / SCDE metrics)
        meta = {
            "competition": slug,
            "phase": phase,
            "frozen_at": frozen.frozen_at.isoformat() if frozen else None,
            "scorer_version": frozen.scorer_version if frozen else about["scorer_version"],
            "gold_sha256": frozen.gold_sha256 if frozen else None,
            "exported_at": timezone.now().isoformat(),
        }
        meta |= {key: value for key, value in about.items() if key != "scorer_version"}
        text = board_json(tables=tables, meta=meta, metric_keys=metric_keys)
    response = HttpResponse(text, content_type=f"{FORMATS[fmt]}; charset=utf-8")
    name = f"{slug}-{phase}-{'official' if frozen else 'live'}.{EXTENSIONS[fmt]}"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def statistics_explained(request, slug: str):
    """docs/statistics.md as a page of the site: the board's intervals and tied ranks, for visitors."""
    competition = Competition.objects.filter(slug=slug).first()
    if competition is None:
        raise Http404("no such competition")
    source = settings.BASE_DIR / "docs" / "statistics.md"
    body = (
        MarkdownIt("commonmark", {"html": False}).enable("table").render(source.read_text(encoding="utf-8"))
    )
    return render(request, "leaderboards/statistics.html", {"competition": competition, "body": body})
