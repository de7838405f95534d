"""Fact sheets: saving one (refused after a freeze; re-counts the team's results) and the exports that
go with the official results (CSV, JSON, the task paper's LaTeX "participating systems" table)."""

import csv
import io
import json

from django.db import transaction

from accounts.names import csv_row
from competitions.errors import ApplicationError
from competitions.models import Phase
from leaderboards.exports import latex_escape
from leaderboards.models import LeaderboardEntry
from leaderboards.official import official_result_latest
from leaderboards.services import leaderboard_refresh
from teams.factsheets import FIELDS, fact_sheet_locked_by
from teams.models import FactSheet, Team


def fact_sheet_save(*, team: Team, user=None, **fields) -> FactSheet:
    """Create or update the team's fact sheet, then re-count its results in the phases that require one."""
    if (phase := fact_sheet_locked_by(team=team)) is not None:
        raise ApplicationError(
            f"the fact sheet is frozen with the official results of the {phase.title} phase"
        )
    unknown = set(fields) - set(FIELDS)
    if unknown:
        raise ValueError(f"unknown fact sheet fields: {', '.join(sorted(unknown))}")
    with transaction.atomic():
        sheet, _ = FactSheet.objects.update_or_create(team=team, defaults={**fields, "updated_by": user})
        for phase in Phase.objects.filter(competition_id=team.competition_id, fact_sheet_required=True):
            leaderboard_refresh(phase=phase, team=team)
    return sheet


def fact_sheet_records(*, phase: Phase) -> list[dict]:
    """One record per team on the phase's board (latest frozen results if any, else live), with its sheet."""
    frozen = official_result_latest(phase=phase)
    if frozen is not None:
        names = list(frozen.rows.filter(is_baseline=False).values_list("team_name", flat=True))
    else:
        names = list(
            LeaderboardEntry.objects.filter(phase=phase, is_baseline=False).values_list(
                "team_name", flat=True
            )
        )
    sheets = {
        s.team.name: s
        for s in FactSheet.objects.filter(
            team__competition_id=phase.competition_id, team__name__in=names
        ).select_related("team")
    }
    records = []
    for name in sorted(set(names)):
        sheet = sheets.get(name)
        record = {"team": name, "fact_sheet": sheet is not None and sheet.is_complete}
        record |= {f: getattr(sheet, f) if sheet else None for f in FIELDS}
        records.append(record)
    return records


def fact_sheets_csv(*, phase: Phase) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=["team", "fact_sheet", *FIELDS], lineterminator="\n")
    writer.writeheader()
    writer.writerows(csv_row(record) for record in fact_sheet_records(phase=phase))
    return out.getvalue()


def fact_sheets_json(*, phase: Phase) -> str:
    data = {
        "competition": phase.competition.slug,
        "phase": phase.kind,
        "systems": fact_sheet_records(phase=phase),
    }
    return json.dumps(data, indent=2) + "\n"


def fact_sheets_latex(*, phase: Phase) -> str:
    """The task paper's "participating systems" table: team, model, pretrained weights, external data, flags."""
    lines = [
        r"\begin{table*}[t]",
        r"\centering",
        r"\begin{tabular}{llllcc}",
        r"\hline",
        r"Team & System & Model & Pretrained weights & Ensemble & Trial/dev in training \\",
        r"\hline",
    ]
    for r in fact_sheet_records(phase=phase):
        if not r["fact_sheet"]:
            lines.append(rf"{latex_escape(r['team'])} & \multicolumn{{5}}{{l}}{{(no fact sheet)}} \\")
            continue
        ensemble = (
            ("yes" + (f" ({r['ensemble_size']})" if r["ensemble_size"] else "")) if r["ensemble"] else "no"
        )
        cells = [r["team"], r["system_name"], r["model"], r["pretrained_weights"] or "-"]
        lines.append(
            " & ".join(latex_escape(c) for c in cells)
            + f" & {ensemble} & {'yes' if r['trained_on_trial_dev'] else 'no'} \\\\"
        )
    lines += [
        r"\hline",
        r"\end{tabular}",
        rf"\caption{{Participating systems ({latex_escape(phase.title)} phase), from the teams' fact sheets.}}",
        r"\end{table*}",
    ]
    return "\n".join(lines) + "\n"
